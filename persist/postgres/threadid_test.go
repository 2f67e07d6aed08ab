package postgres_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// TestImport_BlankThreadID: the id a thread is imported under (a copy's
// new id) follows persist.CheckThreadID, as the bbolt store's Import:
// " " was stored, and listed as a blank row.
func TestImport_BlankThreadID(t *testing.T) {
	t.Parallel()
	s := open(t, schemaURL(t), postgres.Options{})
	conversation(t, s, "t", 2)
	var doc bytes.Buffer
	if err := s.Export(ctx, "t", &doc, ""); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{" ", " t2"} {
		if _, err := s.Import(ctx, bytes.NewReader(doc.Bytes()), persist.ImportOptions{Thread: id}); !errors.Is(err, persist.ErrInvalidID) {
			t.Errorf("Import as thread %q: %v, want ErrInvalidID", id, err)
		}
	}
}
