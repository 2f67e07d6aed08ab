package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// A kept run's checkpoint holds its updated channels as ids, in its own
// room or a shared chunk, and reads them back as the names it was given:
// each list stays as it was when the caller's is reused, lists in the
// shared chunk do not overlap, an empty list stays known ([], not nil),
// an unknown one stays nil, and a hint without an id for each channel
// is kept by name (copied).
func TestKeepUpdated_IDsReadAsNames(t *testing.T) {
	var keys []KeySpec
	for i := range 8 {
		keys = append(keys, LastValueKey(fmt.Sprint("k", i)))
	}
	g, err := NewStateGraph(keys...).AddNode("a", func(context.Context, any) (any, error) { return nil, nil }).
		AddEdge(Start, "a").AddEdge("a", End).Compile()
	if err != nil {
		t.Fatal(err)
	}
	cs := newChannelState(g, nil)
	cs.kept = true
	var names []string
	var ids []chanID
	var cps []*Checkpoint
	var want [][]string
	for i := range 60 {
		names, ids = names[:0], ids[:0]
		for j := range i % 6 { // 0 to 5 channels: in the room and beyond
			c := fmt.Sprint("k", (i+j)%8)
			names = append(names, c)
			ids = append(ids, g.chanIDs[c])
		}
		cp := cs.testCheckpoint(fmt.Sprint(i), planHint{known: true, channels: names, ids: ids})
		if cp.UpdatedChannels != nil {
			t.Fatalf("checkpoint %d: names %q before it is read, want ids only", i, cp.UpdatedChannels)
		}
		cps, want = append(cps, cp), append(want, slices.Clone(names))
	}
	for i := range names { // the caller's lists are reused
		names[i], ids[i] = "x", 0
	}
	for i, cp := range cps {
		got := cp.Materialize().UpdatedChannels
		if got == nil || !slices.Equal(got, want[i]) {
			t.Fatalf("checkpoint %d: updated %#v, want %q", i, got, want[i])
		}
	}
	if cp := cs.testCheckpoint("u", planHint{channels: names, ids: ids}).Materialize(); cp.UpdatedChannels != nil {
		t.Fatalf("unknown: %#v, want nil", cp.UpdatedChannels)
	}
	// A hint without an id for each channel (nothing makes one, but
	// the check is the guarantee): the names are kept as given, copied.
	names = append(names[:0], "k1", "k2")
	cp := cs.testCheckpoint("m", planHint{known: true, channels: names, ids: []chanID{g.chanIDs["k2"]}})
	names[0] = "x"
	if got := cp.Materialize().UpdatedChannels; !slices.Equal(got, []string{"k1", "k2"}) {
		t.Fatalf("ids not the names': %q, want [k1 k2]", got)
	}
}
