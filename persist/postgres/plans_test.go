package postgres_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist/postgres"
)

// TestReadStatements_LookUpByKey: the statements that read checkpoints
// and writes by id look each id up in the primary key in the generic plan
// too, which PostgreSQL switches a prepared statement to after five runs
// (pgx prepares every statement): reading a thread's latest checkpoint
// must not scan all its checkpoints and writes. "id = ANY ($3)" was such
// a scan, a filter over the thread's every row (1.4 ms for a thread of
// 2,500 checkpoints, 5 ms for its writes).
func TestReadStatements_LookUpByKey(t *testing.T) {
	t.Parallel()
	s := open(t, schemaURL(t), postgres.Options{})
	const thread, n = "long", 120
	parent, last := "", ""
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("1f0a3c00-%04x-6000-8000-000000000000", i)
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, TS: time.Unix(1700000000, int64(i)).UTC(),
			ChannelValues:   map[string]any{"step": float64(i)},
			ChannelVersions: map[string]engine.Version{"step": engine.Version(i)},
			VersionsSeen:    map[string]map[string]engine.Version{"count": {"step": engine.Version(i - 1)}},
			UpdatedChannels: []string{"step"}}
		if _, err := s.Put(ctx, engine.Config{ThreadID: thread, CheckpointID: parent}, cp, engine.Metadata{Source: engine.SourceLoop, Step: i - 1}, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.PutWrites(ctx, engine.Config{ThreadID: thread, CheckpointID: id}, "task", []engine.Write{{Channel: "step", Value: float64(i + 1)}}); err != nil {
			t.Fatal(err)
		}
		parent, last = id, id
	}
	// Other namespaces and threads, so that the planner's generic
	// estimate of one namespace of one thread is a few rows, as in a
	// database of many threads with subgraphs: "id = ANY ($3)" was then
	// a filter.
	for i := range 300 {
		cfg := engine.Config{ThreadID: fmt.Sprintf("other-%d", i%30), CheckpointNS: fmt.Sprintf("sub:%d", i)}
		if i%3 == 0 {
			cfg = engine.Config{ThreadID: thread, CheckpointNS: fmt.Sprintf("sub:%d", i)}
		}
		id := fmt.Sprintf("1f0a3c01-%04x-6000-8000-000000000000", i)
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, TS: time.Unix(1700000001, int64(i)).UTC(),
			ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}, VersionsSeen: map[string]map[string]engine.Version{}}
		if _, err := s.Put(ctx, cfg, cp, engine.Metadata{Source: engine.SourceInput, Step: -1}, nil); err != nil {
			t.Fatal(err)
		}
		cfg.CheckpointID = id
		if err := s.PutWrites(ctx, cfg, "task", []engine.Write{{Channel: "step", Value: float64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	stmts, schema := postgres.ReadStatements(s)
	if _, err := conn.Exec(ctx, "ANALYZE "+pgx.Identifier{schema, "checkpoints"}.Sanitize()+", "+pgx.Identifier{schema, "writes"}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	// The generic plan, and no sequential scan, which a table this small
	// gets whatever the statement (a real thread's tables are not).
	for _, set := range []string{"SET plan_cache_mode = force_generic_plan", "SET enable_seqscan = off"} {
		if _, err := conn.Exec(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	lit := func(s string) string { return `'\x` + hex.EncodeToString([]byte(s)) + `'::bytea` }
	for name, stmt := range stmts {
		if _, err := conn.Exec(ctx, "PREPARE "+name+" AS "+stmt); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var out []byte
		explain := fmt.Sprintf("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE %s(%s, %s, ARRAY[%s])", name, lit(thread), lit(""), lit(last))
		if err := conn.QueryRow(ctx, explain, pgx.QueryExecModeSimpleProtocol).Scan(&out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plans []struct{ Plan planNode }
		if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		scans := 0
		plans[0].Plan.walk(func(p planNode) {
			if p.Relation != "checkpoints" && p.Relation != "writes" {
				return
			}
			scans++
			if p.RemovedByFilter > 0 {
				t.Errorf("%s: the generic plan reads %d rows of %s to drop them (%s, filter %s), not a lookup by key:\n%s", name, p.RemovedByFilter, p.Relation, p.Type, p.Filter, out)
			}
		})
		if scans == 0 {
			t.Errorf("%s: no scan of checkpoints or writes in the plan:\n%s", name, out)
		}
	}
}

// planNode is a node of EXPLAIN's JSON plan, with what the test asks.
type planNode struct {
	Type            string     `json:"Node Type"`
	Relation        string     `json:"Relation Name"`
	Filter          string     `json:"Filter"`
	RemovedByFilter int        `json:"Rows Removed by Filter"`
	Plans           []planNode `json:"Plans"`
}

func (p planNode) walk(fn func(planNode)) {
	fn(p)
	for _, c := range p.Plans {
		c.walk(fn)
	}
}

// TestThreads_CountsCheckpointsAndNamespaces: Threads counts a thread's
// root checkpoints and its namespaces, the root's counted when it has
// checkpoints: a thread with subgraph namespaces, one with subgraph
// checkpoints only, one with a recorded graph only.
func TestThreads_CountsCheckpointsAndNamespaces(t *testing.T) {
	t.Parallel()
	s := open(t, schemaURL(t), postgres.Options{})
	put := func(thread, ns string, n int) {
		parent := ""
		for i := 1; i <= n; i++ {
			id := fmt.Sprintf("1f0a3c00-%04x-6000-8000-%012x", i, len(ns))
			cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, TS: time.Unix(1700000000, int64(i)).UTC(),
				ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}, VersionsSeen: map[string]map[string]engine.Version{}}
			if _, err := s.Put(ctx, engine.Config{ThreadID: thread, CheckpointNS: ns, CheckpointID: parent}, cp, engine.Metadata{Source: engine.SourceLoop, Step: i - 1}, nil); err != nil {
				t.Fatal(err)
			}
			parent = id
		}
	}
	put("nested", "", 5)
	put("nested", "a:1", 2)
	put("nested", "b:2", 3)
	put("nested", "b:2|c:3", 1)
	put("subonly", "a:1", 2)
	put("subonly", "b:1", 1)
	if err := s.SetFingerprint(ctx, "fponly", "fp"); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	infos, err := s.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int{}
	for _, in := range infos {
		got[in.ID] = [2]int{in.Checkpoints, in.Namespaces}
	}
	want := map[string][2]int{"nested": {5, 4}, "subonly": {0, 2}, "fponly": {0, 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("(checkpoints, namespaces) by thread %v, want %v", got, want)
	}
}
