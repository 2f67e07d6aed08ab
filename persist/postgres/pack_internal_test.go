package postgres

import (
	"reflect"
	"testing"
)

// TestPack_RoundTrip: a pack reads back as the values put in it, sorted
// by channel, whatever their order; every truncation of it is reported
// as damage, not misread.
func TestPack_RoundTrip(t *testing.T) {
	vals := []blob{
		{channel: "step", ref: ref{Version: 7, Root: 7}, has: true, kind: blobFull, payload: []byte("7")},
		{channel: "msgs", ref: ref{Version: 7, Root: 3}, base: ref{Version: 6, Hash: -5, Root: 3}, depth: 4, has: true, kind: blobAppend, payload: []byte(`"x"`)},
		{channel: "none", ref: ref{Version: 7, Root: 7}, kind: blobFull},
		{channel: "big", ref: ref{Version: 7, Root: 7}, has: true, kind: blobFull, payload: make([]byte, packMax)},
		{channel: "other", ref: ref{Version: 8, Root: 8}, has: true, kind: blobFull, payload: []byte("1")},
	}
	refs := map[string]ref{}
	for _, v := range vals {
		refs[v.channel] = v.ref
	}
	st := refState(refs, nil)
	out := packBlobs(append([]blob(nil), vals...), st)
	refs = refMap(st)
	if len(out) != 3 {
		t.Fatalf("%d rows, want 3: the big value, the one of version 8, the pack of version 7", len(out))
	}
	var pk blob
	for _, b := range out {
		if b.channel == packChannel {
			pk = b
		}
	}
	if pk.ref.Version != 7 || pk.ref.Hash < 0 {
		t.Fatalf("pack ref %+v", pk.ref)
	}
	for _, ch := range []string{"step", "msgs", "none"} {
		if r := refs[ch]; !r.packed() || r.Hash != ^pk.ref.Hash || r.Version != 7 {
			t.Errorf("ref of %s: %+v, want packed in %+v", ch, r, pk.ref)
		}
	}
	// The others are rows of their own, as schema 3 stored them.
	for _, b := range out {
		if b.channel == packChannel {
			continue
		}
		want := append([]byte{b.kind}, b.payload...)
		if !reflect.DeepEqual(b.data, want) || b.ref.Hash != hashBlob(want, true) || refs[b.channel] != b.ref || b.ref.packed() {
			t.Errorf("%s: row %q, ref %+v (in refs %+v)", b.channel, b.data, b.ref, refs[b.channel])
		}
	}
	got, err := decodePack(nil, 7, pk.data, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []packEntry{
		{channel: "msgs", root: 3, base: &ref{Version: 6, Hash: -5, Root: 3}, depth: 4, has: true, data: []byte("\x02\"x\"")},
		{channel: "none", root: 7, data: []byte{blobFull}},
		{channel: "step", root: 7, has: true, data: []byte("\x017")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
	// Only the channels asked for, after those in dst.
	got, err = decodePack(want[:1:1], 7, pk.data, map[string]packWant{"step": {"step", 7, 7}, "none": {"none", 1, 6}, "absent": {"absent", 7, 7}})
	if err != nil || !reflect.DeepEqual(got, []packEntry{want[0], want[2]}) {
		t.Errorf("decoded step alone: %+v, %v", got, err)
	}
	// The same values in another order make the same pack.
	again := packBlobs([]blob{vals[2], vals[0], vals[1]}, refState(refs, nil))
	if len(again) != 1 || !reflect.DeepEqual(again[0], pk) {
		t.Errorf("pack depends on order: %+v, want %+v", again, pk)
	}
	for n := 0; n < len(pk.data); n++ {
		if _, err := decodePack(nil, 7, pk.data[:n], nil); err == nil {
			t.Errorf("pack cut to %d bytes decodes", n)
		}
	}
	if _, err := decodePack(nil, 7, append(pk.data, 0), nil); err == nil {
		t.Errorf("pack with a byte more decodes")
	}
}
