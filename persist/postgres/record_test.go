package postgres

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestNewBlob_Growth: a list that extends the parent's elements is encoded
// from the added elements only, and the result is byte for byte the
// engine's encoding of the whole list; a list whose old elements changed
// is encoded whole and stored whole.
func TestNewBlob_Growth(t *testing.T) {
	msg := func(i int) any {
		return map[string]any{"id": json.Number("1"), "role": "ai", "content": "message " + string(rune('a'+i)), "parts": []any{float64(i), true, nil}}
	}
	var list []any
	var prev *valueEnc
	var prevRef *ref
	for i := range 5 {
		// As engine.AppendReducer grows a list: a new array, the same elements.
		next := append(slices.Clip(list), msg(i), "text", float64(i))
		b, enc, err := newBlob("messages", int64(i+1), next, true, prevRef, prev)
		if err != nil {
			t.Fatal(err)
		}
		want, err := engine.EncodeValue(next)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc.enc, want) {
			t.Fatalf("step %d: encoding\n%s\nwant\n%s", i, enc.enc, want)
		}
		if i > 0 && (b.data[0] != blobAppend || b.base == nil || enc.depth != i) {
			t.Fatalf("step %d: stored as format %d depth %d, want an append of depth %d", i, b.data[0], enc.depth, i)
		}
		if i > 0 {
			joined, err := joinAppend(prev.enc, b.data[1:])
			if err != nil || !bytes.Equal(joined, want) {
				t.Fatalf("step %d: the stored suffix rebuilds %s, %v", i, joined, err)
			}
		}
		list, prev, prevRef = next, &enc, &b.ref
	}

	// add_messages replaces a message in place: a different map at an old
	// index. The value is encoded whole and is not an append.
	replaced := slices.Clone(list)
	replaced[0] = map[string]any{"id": "x", "content": "edited"}
	replaced = append(replaced, "more")
	b, enc, err := newBlob("messages", 9, replaced, true, prevRef, prev)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := engine.EncodeValue(replaced)
	if !bytes.Equal(enc.enc, want) || b.data[0] != blobFull || b.base != nil {
		t.Fatalf("edited list: format %d, encoding %s", b.data[0], enc.enc)
	}

	// A bad added element is reported as the whole list's would be.
	if _, _, err := newBlob("messages", 10, append(slices.Clip(list), make(chan int)), true, prevRef, prev); err == nil {
		t.Fatal("an unencodable element was stored")
	}
}
