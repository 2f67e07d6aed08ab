package postgres_test

import (
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// storeURL remembers which schema a store of the suite uses, so reopen
// opens the same one.
type suiteStore struct {
	*postgres.Store
	url string
}

func TestStore_SaverSuite(t *testing.T) {
	for _, d := range []persist.Durability{persist.DurabilitySync, persist.DurabilityAsync, persist.DurabilityExit} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel() // each store has its own schema
			opts := postgres.Options{Durability: d}
			enginetest.SaverSuite(t, newSuiteStore(opts), reopenSuiteStore(opts))
		})
	}
}

func TestStore_OutlinerSuite(t *testing.T) {
	enginetest.OutlinerSuite(t, newSuiteStore(postgres.Options{}), reopenSuiteStore(postgres.Options{}))
}

// newSuiteStore opens a store with opts in a schema of its own.
func newSuiteStore(opts postgres.Options) func(t *testing.T) engine.Saver {
	return func(t *testing.T) engine.Saver {
		u := schemaURL(t)
		return suiteStore{open(t, u, opts), u}
	}
}

// reopenSuiteStore closes a suite's store, opens its schema again with
// opts and checks it.
func reopenSuiteStore(opts postgres.Options) func(t *testing.T, s engine.Saver) engine.Saver {
	return func(t *testing.T, s engine.Saver) engine.Saver {
		st := s.(suiteStore)
		if err := st.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		re := open(t, st.url, opts)
		if err := re.Check(); err != nil {
			t.Fatalf("Check after reopen: %v", err)
		}
		return suiteStore{re, st.url}
	}
}
