package postgres_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// TestImport_OverwriteKeepsNewerHistory: as persist's, on the server,
// where it matters most: a push --overwrite of a copy taken before the
// service's run advanced the thread must not replace it, and a refused
// Overwrite leaves the thread (and the running writer) as they were.
func TestImport_OverwriteKeepsNewerHistory(t *testing.T) {
	t.Parallel()
	s := open(t, schemaURL(t), postgres.Options{})
	conversation(t, s, "t", 3)
	var old bytes.Buffer
	if err := s.Export(ctx, "t", &old, ""); err != nil {
		t.Fatal(err)
	}
	importOld := func(o persist.ImportOptions) error {
		o.Overwrite = true
		_, err := s.Import(ctx, bytes.NewReader(old.Bytes()), o)
		return err
	}
	if err := importOld(persist.ImportOptions{}); err != nil {
		t.Fatalf("Overwrite with a copy of everything: %v", err)
	}
	more := conversation(t, s, "t", 5)
	newest := more[len(more)-1].ID
	err := importOld(persist.ImportOptions{})
	var re *persist.ReplaceError
	if !errors.Is(err, persist.ErrWouldDiscard) || !errors.As(err, &re) || re.Checkpoints != 2 || re.NewestID != newest {
		t.Fatalf("Overwrite with an older copy: %v, want 2 checkpoints, the newest %s", err, newest)
	}
	// The thread's writer goes on as if nothing happened.
	conversation(t, s, "t", 6)
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil || tup.Checkpoint.ID == newest {
		t.Fatalf("the thread after a refused Overwrite: %v", err)
	}
	if err := importOld(persist.ImportOptions{Discard: true}); err != nil {
		t.Fatalf("Overwrite with Discard: %v", err)
	}
	if got, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil || got.Checkpoint.ID == tup.Checkpoint.ID {
		t.Fatalf("Discard did not replace the thread: %v", err)
	}
}
