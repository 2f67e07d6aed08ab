package cli_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/persist"
)

// TestRun_UnrecordedThreadOfAnotherGraph: a thread a service wrote through
// engine.WithSaver has no recorded graph. Opening it with a graph that
// lacks the nodes and channels its checkpoints name is refused (it would
// run another graph on its state and record that graph for the thread);
// its own graph goes on.
func TestRun_UnrecordedThreadOfAnotherGraph(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	st, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ex, _ := graphs.Get("research")
	g, err := ex.Build(engine.WithSaver(st))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(context.Background(), ex.Input, engine.OnThread("svc")); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	other := testdata("approve.json")
	superstep(t, "", "run", other, "--db", db, "--thread", "svc").
		want(t, 2, `thread "svc": it has no recorded graph`, "node plan_queries", "--force goes on anyway")
	superstep(t, "", "replay", "svc", "--graph", other, "--db", db).
		want(t, 2, `thread "svc": it has no recorded graph`)
	superstep(t, "", "threads", "--db", db).want(t, 0, "(none)")
	superstep(t, "", "run", "research", "--db", db, "--thread", "svc").want(t, 0, "interrupt")
}
