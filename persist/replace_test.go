package persist_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestImport_OverwriteKeepsNewerHistory: Overwrite replaces a thread only
// when the import has everything the thread has. A copy taken before the
// thread went on (pull, then the server's run advanced it; push
// --overwrite) would drop its newer checkpoints, its pending writes or its
// recorded graph: Import refuses, saying how many and the newest, and
// leaves the thread as it was; Discard replaces it anyway.
func TestImport_OverwriteKeepsNewerHistory(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	cps := chain(t, s, "t", 3)
	if err := s.SetFingerprint(ctx, "t", "graph-a"); err != nil {
		t.Fatal(err)
	}
	old := export(t, s, "t")
	importOld := func(o persist.ImportOptions) error {
		o.Overwrite = true
		_, err := s.Import(ctx, bytes.NewReader(old), o)
		return err
	}
	if err := importOld(persist.ImportOptions{}); err != nil {
		t.Fatalf("Overwrite with a copy of everything: %v", err)
	}

	// The thread goes on: two checkpoints, and a write.
	more := chain(t, s, "t", 5)
	last := engine.Config{ThreadID: "t", CheckpointID: more[len(more)-1].ID}
	if err := s.PutWrites(ctx, last, "task", []engine.Write{{Channel: "x", Value: 1.0}}); err != nil {
		t.Fatal(err)
	}
	tup, err := s.GetTuple(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	want := export(t, s, "t")
	err = importOld(persist.ImportOptions{})
	var re *persist.ReplaceError
	if !errors.Is(err, persist.ErrWouldDiscard) || !errors.As(err, &re) || re.Checkpoints != 2 || re.Writes < len(tup.PendingWrites) ||
		re.NewestID != last.CheckpointID || re.NewestStep != tup.Metadata.Step || re.GraphDiffers {
		t.Fatalf("Overwrite with an older copy: %v, want 2 checkpoints and at least %d writes, the newest %s at step %d", err, len(tup.PendingWrites), last.CheckpointID, tup.Metadata.Step)
	}
	if !strings.Contains(err.Error(), engine.ShortID(last.CheckpointID)) {
		t.Errorf("the error does not name the newest checkpoint: %v", err)
	}
	if got := export(t, s, "t"); !bytes.Equal(got, want) {
		t.Fatal("a refused Overwrite changed the thread")
	}

	// Pending writes only, and another graph.
	withWrites := export(t, s, "t")
	if err := s.PutWrites(ctx, engine.Config{ThreadID: "t", CheckpointID: cps[0].ID}, "late", []engine.Write{{Channel: "x", Value: 2.0}}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Import(ctx, bytes.NewReader(withWrites), persist.ImportOptions{Overwrite: true})
	if !errors.As(err, &re) || re.Checkpoints != 0 || re.Writes != 1 {
		t.Fatalf("Overwrite without a pending write: %v, want 1 write", err)
	}
	current := export(t, s, "t")
	if err := s.SetFingerprint(ctx, "t", "graph-b"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Import(ctx, bytes.NewReader(current), persist.ImportOptions{Overwrite: true})
	if !errors.As(err, &re) || !re.GraphDiffers || re.Checkpoints != 0 || re.Writes != 0 {
		t.Fatalf("Overwrite recorded with another graph: %v, want the graph named", err)
	}
	same := func(a, b string) bool { return a[:5] == b[:5] }
	if _, err := s.Import(ctx, bytes.NewReader(current), persist.ImportOptions{Overwrite: true, SameGraph: same}); err != nil {
		t.Fatalf("Overwrite whose SameGraph says the graphs are one: %v", err)
	}

	if err := importOld(persist.ImportOptions{Discard: true}); err != nil {
		t.Fatalf("Overwrite with Discard: %v", err)
	}
	if got := export(t, s, "t"); !bytes.Equal(got, bytes.TrimSpace(old)) && !bytes.Equal(got, old) {
		t.Fatal("Discard did not replace the thread with the import")
	}
}
