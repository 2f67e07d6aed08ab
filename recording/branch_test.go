package recording

import (
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
)

// The original run goes down through the children runs wrote, the oldest
// of several; forks and updates made later are not on it.
func TestOriginalRun(t *testing.T) {
	heads := []engine.CheckpointHead{
		{ID: "5", ParentID: "4", Source: engine.SourceLoop},   // a run after the update
		{ID: "4", ParentID: "1", Source: engine.SourceUpdate}, // update_state of 1
		{ID: "3b", ParentID: "2", Source: engine.SourceLoop},  // a later run from 2
		{ID: "3a", ParentID: "2", Source: engine.SourceLoop},
		{ID: "2", ParentID: "1", Source: engine.SourceLoop},
		{ID: "1", ParentID: "0", Source: engine.SourceLoop},
		{ID: "0", Source: engine.SourceInput},
	}
	if got := OriginalRun(heads, "0"); !slices.Equal(got, []string{"0", "1", "2", "3a"}) {
		t.Fatalf("from the input: %v", got)
	}
	if got := OriginalRun(heads, "4"); !slices.Equal(got, []string{"4", "5"}) {
		t.Fatalf("from the update: %v", got)
	}
	if got := OriginalRun(heads, "9"); got != nil {
		t.Fatalf("from a checkpoint not in the thread: %v", got)
	}
}
