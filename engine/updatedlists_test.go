package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"unsafe"
)

// Checkpoints of supersteps that updated the same channels share one
// list, and no list changes once a checkpoint has it.
func TestUpdatedChannels_EqualListsShared(t *testing.T) {
	ctx := context.Background()
	g := indexTestGraph(t)
	ms := NewMemorySaver()
	g.saver = ms
	seen := map[string][]string{} // checkpoint id -> its list when made
	res, err := g.Invoke(ctx, map[string]any{"n": 0.0}, OnThread("t"), WithEvents(func(e Event) {
		if e.Kind == EventCheckpoint {
			seen[e.Checkpoint.ID] = slices.Clone(e.Checkpoint.UpdatedChannels)
		}
	}))
	if err != nil || res.Status != StatusDone {
		t.Fatal(err, res.Status)
	}
	hist, err := ms.List(ctx, Config{ThreadID: "t"}, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byContent := map[string]unsafe.Pointer{}
	shared := 0
	for _, tp := range hist {
		l := tp.Checkpoint.UpdatedChannels
		if want, ok := seen[tp.Checkpoint.ID]; !ok || !slices.Equal(l, want) {
			t.Fatalf("checkpoint %s: updated %q, %q when it was made", tp.Checkpoint.ID, l, want)
		}
		if len(l) == 0 {
			continue
		}
		key := fmt.Sprint(l)
		if p, ok := byContent[key]; ok {
			if p != unsafe.Pointer(unsafe.SliceData(l)) {
				t.Fatalf("two checkpoints updated %q and keep two lists", l)
			}
			shared++
		}
		byContent[key] = unsafe.Pointer(unsafe.SliceData(l))
	}
	if shared == 0 {
		t.Fatalf("no two checkpoints updated the same channels: %v", seen)
	}
}
