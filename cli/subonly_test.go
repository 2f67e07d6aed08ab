package cli_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestInspect_SubgraphOnlyThread: a thread whose checkpoints are all in
// subgraph namespaces (its own checkpoints lost, or written by a program
// that saves only the subgraph) is listed by threads, written by export,
// and show and history say where its checkpoints are rather than that it
// does not exist.
func TestInspect_SubgraphOnlyThread(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "sub.db")
	st, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := engine.Config{ThreadID: "subonly", CheckpointNS: "inner:abc"}
	for i, v := range []string{"one", "two"} {
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: "0000000" + string(rune('1'+i)), TS: time.Unix(1700000000, 0).UTC(),
			ChannelValues: map[string]any{"q": v}, ChannelVersions: map[string]engine.Version{"q": engine.Version(i + 1)}}
		next, err := st.Put(ctx, cfg, cp, engine.Metadata{Source: engine.SourceLoop, Step: i}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg = next
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "threads", "--db", db).want(t, 0, "subonly", "subgraphs only")
	for _, cmd := range [][]string{{"show", "subonly"}, {"show", "subonly", "--checkpoint", "00000001"}, {"history", "subonly"}} {
		superstep(t, "", append(cmd, "--db", db)...).want(t, 2, `thread subonly has checkpoints only in subgraph namespaces (inner:abc)`, "superstep export subonly")
	}
	superstep(t, "", "show", "subonly", "--db", db).want(t, 2, "show and history read one with --ns NS")
	// The namespace the message names is what --ns reads, without a graph.
	superstep(t, "", "show", "subonly", "--db", db, "--ns", "inner:abc").want(t, 0, "namespace inner:abc", `q = "two"`)
	superstep(t, "", "history", "subonly", "--db", db, "--ns", "inner").want(t, 0, "step 1 loop", "step 0 loop")
	superstep(t, "", "export", "subonly", "--db", db).want(t, 0, `"ns":"inner:abc"`, `"two"`)
	superstep(t, "", "show", "nosuch", "--db", db).want(t, 2, `thread not found: "nosuch"`)
}
