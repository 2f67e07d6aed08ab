package persist_test

import (
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
)

// openTemp opens a store in a fresh temporary directory and closes it when
// the test ends.
func openTemp(t testing.TB, opts persist.Options) *persist.Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "superstep.db"), opts)
}

func openAt(t testing.TB, path string, opts persist.Options) *persist.Store {
	t.Helper()
	s, err := persist.Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore_SaverSuite(t *testing.T) {
	for _, d := range []persist.Durability{persist.DurabilitySync, persist.DurabilityAsync, persist.DurabilityExit} {
		t.Run(d.String(), func(t *testing.T) {
			opts := persist.Options{Durability: d, NoSync: true}
			enginetest.SaverSuite(t,
				func(t *testing.T) engine.Saver { return openTemp(t, opts) },
				func(t *testing.T, s engine.Saver) engine.Saver {
					st := s.(*persist.Store)
					if err := st.Close(); err != nil {
						t.Fatalf("Close: %v", err)
					}
					re := openAt(t, st.Path(), opts)
					if err := re.Check(); err != nil {
						t.Fatalf("Check after reopen: %v", err)
					}
					return re
				})
		})
	}
}
