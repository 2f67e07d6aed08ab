package engine

import (
	"slices"
	"testing"
)

// A kept run's updated-channel lists share chunks: each is a copy that
// stays as it was when the caller's list is reused, an append to one
// cannot write into the next, and an empty list stays known (not nil).
func TestKeepUpdated_CopiesApart(t *testing.T) {
	cs := &channelState{kept: true}
	scratch := []string{"a", "b"}
	var kept [][]string
	for i := 0; i < 50; i++ {
		scratch = append(scratch[:0], "a", "b", string(rune('c'+i%20)))[:1+i%3]
		kept = append(kept, cs.keepUpdated(scratch))
		cs.made++
	}
	for i, l := range kept {
		want := []string{"a", "b", string(rune('c' + i%20))}[:1+i%3]
		if !slices.Equal(l, want) || cap(l) != len(l) {
			t.Fatalf("list %d: %q (cap %d), want %q", i, l, cap(l), want)
		}
	}
	_ = append(kept[0], "x")
	if kept[1][0] != "a" {
		t.Fatalf("an append to one list wrote into the next: %q", kept[1])
	}
	if l := cs.keepUpdated(nil); l == nil || len(l) != 0 {
		t.Fatalf("empty list: %#v, want known and empty", l)
	}
}
