package cli_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/persist"
)

// serviceThread runs the research graph on thread "svc" of a new bbolt
// file as a service does, through engine.WithSaver on the store (wrapped
// in hide, when given), and returns the file.
func serviceThread(t *testing.T, hide func(*persist.Store) engine.Saver) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "a.db")
	st, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var saver engine.Saver = st
	if hide != nil {
		saver = hide(st)
	}
	ex, _ := graphs.Get("research")
	g, err := ex.Build(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(context.Background(), ex.Input, engine.OnThread("svc")); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestRun_ServiceThreadNamesItsGraph: a thread a service wrote through
// engine.WithSaver names its graph (the engine records it before the
// thread's first checkpoint, engine.GraphRecorder): threads lists it,
// replay finds the graph by its name, and another graph is refused saying
// what differs, as for a thread the command line started.
func TestRun_ServiceThreadNamesItsGraph(t *testing.T) {
	t.Parallel()
	db := serviceThread(t, nil)
	superstep(t, "", "threads", "--db", db).want(t, 0, "svc", "research")
	superstep(t, "", "replay", "svc", "--db", db).want(t, 0, "replay matches")
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "svc").
		want(t, 2, `the graph's topology differs from the recorded one for thread "svc" (recorded with research`, "--force goes on anyway")
	superstep(t, "", "run", "research", "--db", db, "--thread", "svc").want(t, 0, "interrupt")
}

// recordless is a saver without engine.GraphRecorder: a store written
// before the engine recorded graphs, or another tool's.
type recordless struct{ engine.Saver }

// TestRun_UnrecordedThreadOfAnotherGraph: a thread with no recorded graph
// is refused by a graph that lacks the nodes and channels its checkpoints
// name (it would run another graph on its state and record that graph for
// the thread); its own graph goes on.
func TestRun_UnrecordedThreadOfAnotherGraph(t *testing.T) {
	t.Parallel()
	db := serviceThread(t, func(st *persist.Store) engine.Saver { return recordless{st} })
	other := testdata("approve.json")
	superstep(t, "", "run", other, "--db", db, "--thread", "svc").
		want(t, 2, `thread "svc": it has no recorded graph`, "node plan_queries", "--force goes on anyway")
	superstep(t, "", "replay", "svc", "--graph", other, "--db", db).
		want(t, 2, `thread "svc": it has no recorded graph`)
	superstep(t, "", "threads", "--db", db).want(t, 0, "(none)")
	superstep(t, "", "run", "research", "--db", db, "--thread", "svc").want(t, 0, "interrupt")
}
