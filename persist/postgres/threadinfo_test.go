package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// countingClock is a clock that moves a millisecond each time it is read,
// from the same start for every store: the same runs on two stores then
// get the same checkpoint ids and timestamps, which a real clock would
// not give them.
type countingClock struct{ n atomic.Int64 }

func (c *countingClock) now() time.Time {
	return time.Unix(1_700_000_000, 0).UTC().Add(time.Duration(c.n.Add(1)) * time.Millisecond)
}

// threadSituation is one way a thread can stand, made by running graphs on
// a saver. build returns the graph whose GetState says the thread's
// status, or nil for a thread the graph cannot read (subgraph checkpoints
// only).
type threadSituation struct {
	name  string
	build func(t *testing.T, s engine.Saver, opts []engine.CompileOption, thread string) *engine.Graph
	// want checks what the thread must report on either store.
	want func(persist.ThreadInfo) error
}

// compile compiles b with opts, failing the test on an error.
func compile(t *testing.T, b *engine.StateGraph, opts []engine.CompileOption) *engine.Graph {
	t.Helper()
	g, err := b.Compile(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// addOne is a node that adds one to x.
func addOne(_ context.Context, st any) (any, error) {
	x, _ := st.(map[string]any)["x"].(float64)
	return map[string]any{"x": x + 1}, nil
}

// chain is a graph of two nodes, a then b, each adding one to x; b is
// fn when fn is not nil.
func chain(fn engine.NodeFunc) *engine.StateGraph {
	if fn == nil {
		fn = addOne
	}
	return engine.NewStateGraph(engine.LastValueKey("x")).Named("chain").
		AddNode("a", addOne).AddNode("b", fn).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End)
}

// fanOut is a graph whose split node sends n tasks to work at once, which
// append to out; the task given i == ask asks a question first (none when
// ask < 0).
func fanOut(n, ask int) *engine.StateGraph {
	return engine.NewStateGraph(engine.AppendKey("out"), engine.LastValueKey("i")).Named("fanout").
		AddNode("split", func(context.Context, any) (any, error) { return nil, nil }).
		AddNode("work", func(ctx context.Context, in any) (any, error) {
			i, _ := in.(map[string]any)["i"].(float64)
			if int(i) == ask {
				a, err := engine.Interrupt(ctx, fmt.Sprintf("task %d asks", ask))
				if err != nil {
					return nil, err
				}
				return map[string]any{"out": []any{a}}, nil
			}
			return map[string]any{"out": []any{fmt.Sprintf("done %v", i)}}, nil
		}).
		AddEdge(engine.Start, "split").
		AddConditionalEdges("split", func(context.Context, map[string]any) (any, error) {
			sends := make([]any, n)
			for i := range sends {
				sends[i] = engine.Send{Node: "work", Arg: map[string]any{"i": float64(i)}}
			}
			return sends, nil
		}, "work").
		AddEdge("work", engine.End)
}

// invoke runs g on thread from input and checks the run's status.
func invoke(t *testing.T, g *engine.Graph, input any, thread string, want engine.Status, opts ...engine.RunOption) {
	t.Helper()
	res, err := g.Invoke(context.Background(), input, append([]engine.RunOption{engine.OnThread(thread)}, opts...)...)
	if res == nil || res.Status != want || (want != engine.StatusFailed && err != nil) {
		t.Fatalf("run on %s: %+v, %v; want status %v", thread, res, err, want)
	}
}

// wantFlags checks a thread's status flags and pending writes.
func wantFlags(interrupted, failed bool, pending func(int) bool) func(persist.ThreadInfo) error {
	return func(info persist.ThreadInfo) error {
		if info.Interrupted != interrupted || info.Failed != failed || !pending(info.PendingWrites) {
			return fmt.Errorf("interrupted %v, failed %v, %d pending writes; want interrupted %v, failed %v",
				info.Interrupted, info.Failed, info.PendingWrites, interrupted, failed)
		}
		return nil
	}
}

func none(n int) bool { return n == 0 }
func some(n int) bool { return n > 0 }

// threadSituations are the situations TestThreads_StoresAgree lists.
var threadSituations = []threadSituation{
	{
		// An input checkpoint alone: update_state as input on a new
		// thread.
		name: "input-only",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, chain(nil), opts)
			if _, err := g.UpdateState(context.Background(), engine.Config{ThreadID: th}, map[string]any{"x": 1.0}, engine.AsInput); err != nil {
				t.Fatal(err)
			}
			return g
		},
		want: func(info persist.ThreadInfo) error {
			if info.Checkpoints != 1 || info.LastSource != engine.SourceInput {
				return fmt.Errorf("%d checkpoints, latest of source %q; want 1 input checkpoint", info.Checkpoints, info.LastSource)
			}
			return wantFlags(false, false, none)(info)
		},
	},
	{
		name: "finished",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, chain(nil), opts)
			invoke(t, g, map[string]any{"x": 1.0}, th, engine.StatusDone)
			return g
		},
		want: wantFlags(false, false, none),
	},
	{
		// A node's interrupt() waits for an answer.
		name: "interrupted",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, chain(func(ctx context.Context, _ any) (any, error) {
				a, err := engine.Interrupt(ctx, "how many?")
				return map[string]any{"x": a}, err
			}), opts)
			invoke(t, g, map[string]any{"x": 1.0}, th, engine.StatusInterrupted)
			return g
		},
		want: wantFlags(true, false, some),
	},
	{
		// Answered once, the node asks again: it waits.
		name: "asked-again",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, chain(func(ctx context.Context, _ any) (any, error) {
				if _, err := engine.Interrupt(ctx, "first?"); err != nil {
					return nil, err
				}
				a, err := engine.Interrupt(ctx, "second?")
				return map[string]any{"x": a}, err
			}), opts)
			invoke(t, g, map[string]any{"x": 1.0}, th, engine.StatusInterrupted)
			invoke(t, g, engine.Command{Resume: 2.0}, th, engine.StatusInterrupted)
			return g
		},
		want: wantFlags(true, false, some),
	},
	{
		// The node took its answer and then failed: it waits for
		// nothing, its superstep failed.
		name: "answered-then-failed",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, chain(func(ctx context.Context, _ any) (any, error) {
				if _, err := engine.Interrupt(ctx, "how many?"); err != nil {
					return nil, err
				}
				return nil, errors.New("the answer broke the node")
			}), opts)
			invoke(t, g, map[string]any{"x": 1.0}, th, engine.StatusInterrupted)
			invoke(t, g, engine.Command{Resume: 2.0}, th, engine.StatusFailed)
			return g
		},
		want: wantFlags(false, true, some),
	},
	{
		// A breakpoint stops the run before b: nothing is saved
		// against the latest checkpoint.
		name: "breakpoint",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, chain(nil), append(opts, engine.WithInterruptBefore("b")))
			invoke(t, g, map[string]any{"x": 1.0}, th, engine.StatusInterrupted)
			return g
		},
		want: wantFlags(false, false, none),
	},
	{
		name: "failed",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, chain(func(context.Context, any) (any, error) { return nil, errors.New("boom") }), opts)
			invoke(t, g, map[string]any{"x": 1.0}, th, engine.StatusFailed)
			return g
		},
		want: wantFlags(false, true, some),
	},
	{
		// The run failed, and continuing it succeeded.
		name: "failed-then-succeeded",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			var calls atomic.Int32
			g := compile(t, chain(func(ctx context.Context, st any) (any, error) {
				if calls.Add(1) == 1 {
					return nil, errors.New("first try fails")
				}
				return addOne(ctx, st)
			}), opts)
			invoke(t, g, map[string]any{"x": 1.0}, th, engine.StatusFailed)
			invoke(t, g, nil, th, engine.StatusDone)
			return g
		},
		want: wantFlags(false, false, none),
	},
	{
		// A subgraph node: the thread has two namespaces.
		name: "subgraph-interrupted",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			inner := compile(t, engine.NewStateGraph(engine.LastValueKey("x")).Named("inner").
				AddNode("ask", func(ctx context.Context, _ any) (any, error) {
					a, err := engine.Interrupt(ctx, "inner question")
					return map[string]any{"x": a}, err
				}).AddEdge(engine.Start, "ask"), opts)
			g := compile(t, engine.NewStateGraph(engine.LastValueKey("x")).Named("outer").
				AddNode("a", addOne).AddSubgraph("sub", inner).
				AddEdge(engine.Start, "a").AddEdge("a", "sub"), opts)
			invoke(t, g, map[string]any{"x": 1.0}, th, engine.StatusInterrupted)
			return g
		},
		want: func(info persist.ThreadInfo) error {
			if info.Namespaces != 2 {
				return fmt.Errorf("%d namespaces, want 2", info.Namespaces)
			}
			return wantFlags(true, false, some)(info)
		},
	},
	{
		// Checkpoints in a subgraph's namespace only, as a program that
		// saves only the subgraph leaves them: put directly, since a
		// graph's run always checkpoints its root namespace.
		name: "subgraph-only",
		build: func(t *testing.T, s engine.Saver, _ []engine.CompileOption, th string) *engine.Graph {
			cfg := engine.Config{ThreadID: th, CheckpointNS: "inner:abc"}
			for i, v := range []string{"one", "two"} {
				cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: fmt.Sprintf("%032x", i+1), TS: time.Unix(1700000000, 0).UTC(),
					ChannelValues: map[string]any{"q": v}, ChannelVersions: map[string]engine.Version{"q": engine.Version(i + 1)}}
				next, err := s.Put(context.Background(), cfg, cp, engine.Metadata{Source: engine.SourceLoop, Step: i}, nil)
				if err != nil {
					t.Fatal(err)
				}
				cfg = next
			}
			if err := s.PutWrites(context.Background(), cfg, "task", []engine.Write{{Channel: engine.ErrorChannel, Value: "boom"}}); err != nil {
				t.Fatal(err)
			}
			return nil
		},
		want: func(info persist.ThreadInfo) error {
			if info.Checkpoints != 0 || info.Namespaces != 1 || info.LastID != "" || info.Failed || info.PendingWrites != 0 {
				return fmt.Errorf("%+v; want one namespace, no root checkpoint", info)
			}
			return nil
		},
	},
	{
		// Many tasks at once: every superstep's last task's writes go
		// in the pack of the checkpoint that follows.
		name: "many-tasks",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, fanOut(12, -1), opts)
			invoke(t, g, map[string]any{"out": []any{}}, th, engine.StatusDone)
			return g
		},
		want: wantFlags(false, false, none),
	},
	{
		// Many tasks at once, one of them asking: the others' writes
		// wait with its question.
		name: "many-tasks-one-asks",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, fanOut(12, 11), opts)
			invoke(t, g, map[string]any{"out": []any{}}, th, engine.StatusInterrupted, engine.WithMaxConcurrency(1))
			return g
		},
		want: wantFlags(true, false, func(n int) bool { return n >= 12 }),
	},
	{
		// update_state at an earlier checkpoint forks the thread; the
		// run then continues the fork.
		name: "forked",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, chain(nil), opts)
			invoke(t, g, map[string]any{"x": 1.0}, th, engine.StatusDone)
			fork := forkAfterA(t, g, th)
			invoke(t, g, nil, th, engine.StatusDone, engine.FromConfig(fork))
			return g
		},
		want: wantFlags(false, false, none),
	},
	{
		// A fork not run yet: its latest checkpoint is the update's.
		name: "forked-pending",
		build: func(t *testing.T, s engine.Saver, opts []engine.CompileOption, th string) *engine.Graph {
			g := compile(t, chain(nil), opts)
			invoke(t, g, map[string]any{"x": 1.0}, th, engine.StatusDone)
			forkAfterA(t, g, th)
			return g
		},
		want: func(info persist.ThreadInfo) error {
			if info.LastSource != engine.SourceUpdate {
				return fmt.Errorf("latest of source %q, want %q", info.LastSource, engine.SourceUpdate)
			}
			return wantFlags(false, false, none)(info)
		},
	},
}

// forkAfterA updates the checkpoint of thread th after node a ran, which
// forks the thread, and returns the fork's config.
func forkAfterA(t *testing.T, g *engine.Graph, th string) engine.Config {
	t.Helper()
	hist, err := g.History(context.Background(), engine.Config{ThreadID: th}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hist {
		if h.Metadata.Step == 1 {
			cfg, err := g.UpdateState(context.Background(), h.Config, map[string]any{"x": 100.0}, "a")
			if err != nil {
				t.Fatal(err)
			}
			return cfg
		}
	}
	t.Fatalf("thread %s has no checkpoint of step 1", th)
	return engine.Config{}
}

// TestThreads_StoresAgree: the PostgreSQL store lists every thread
// situation as the bbolt store does, the same runs made on both: the
// same checkpoint counts, namespaces, latest checkpoint, pending writes,
// status flags and graph record; only Updated, each store's own clock,
// may differ, and it is a time of the test. The status flags say what the
// engine's GetState does of the latest checkpoint, and PendingWrites
// counts what GetTuple reads against it (packed writes included).
func TestThreads_StoresAgree(t *testing.T) {
	t.Parallel()
	start := time.Now()
	pg := open(t, schemaURL(t), postgres.Options{})
	bolt, err := persist.Open(filepath.Join(t.TempDir(), "threads.db"), persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bolt.Close() })
	stores := []struct {
		name  string
		saver engine.Saver
	}{{"bbolt", bolt}, {"postgres", pg}}
	graphs := map[string]*engine.Graph{} // the postgres store's, by thread
	for _, st := range stores {
		for _, sit := range threadSituations {
			var clock countingClock
			opts := []engine.CompileOption{engine.WithSaver(st.saver), engine.WithIDs(engine.NewTimeIDs(clock.now)), engine.WithClock(clock.now)}
			graphs[sit.name] = sit.build(t, st.saver, opts, sit.name)
		}
	}
	want, err := bolt.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pg.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(threadSituations) || len(want) != len(threadSituations) {
		t.Fatalf("postgres lists %d threads, bbolt %d; want %d", len(got), len(want), len(threadSituations))
	}
	end := time.Now()
	for i := range want {
		w, g := want[i], got[i] // both sorted by id
		t.Run(w.ID, func(t *testing.T) {
			for _, info := range []persist.ThreadInfo{w, g} {
				// A minute either way: the server's clock is another
				// process's reading of this machine's.
				if info.Updated.Before(start.Add(-time.Minute)) || info.Updated.After(end.Add(time.Minute)) {
					t.Errorf("updated %v, not a time of the test (%v to %v)", info.Updated, start, end)
				}
			}
			if !g.LastTS.Equal(w.LastTS) {
				t.Errorf("postgres: latest at %v, bbolt %v", g.LastTS, w.LastTS)
			}
			g.Updated, w.Updated, g.LastTS, w.LastTS = time.Time{}, time.Time{}, time.Time{}, time.Time{}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("postgres lists\n\t%+v\nbbolt\n\t%+v", g, w)
			}
		})
	}
	for _, sit := range threadSituations {
		t.Run(sit.name+"/status", func(t *testing.T) {
			var info persist.ThreadInfo
			for _, i := range got {
				if i.ID == sit.name {
					info = i
				}
			}
			if info.ID == "" {
				t.Fatalf("postgres does not list %s", sit.name)
			}
			if err := sit.want(info); err != nil {
				t.Error(err)
			}
			g := graphs[sit.name]
			if g == nil {
				return
			}
			snap, err := g.GetState(ctx, engine.Config{ThreadID: sit.name})
			if err != nil {
				t.Fatal(err)
			}
			if status := snap.Status(); info.Interrupted != (status == engine.CheckpointInterrupted) || info.Failed != (status == engine.CheckpointFailed) {
				t.Errorf("interrupted %v, failed %v; GetState's status is %v", info.Interrupted, info.Failed, status)
			}
			tup, err := pg.GetTuple(ctx, engine.Config{ThreadID: sit.name})
			if err != nil {
				t.Fatal(err)
			}
			if info.LastID != tup.Config.CheckpointID || info.PendingWrites != len(tup.PendingWrites) {
				t.Errorf("latest %s with %d pending writes; GetTuple reads %s with %d", info.LastID, info.PendingWrites, tup.Config.CheckpointID, len(tup.PendingWrites))
			}
		})
	}
	if n := countRows(t, pg.Schema(), "blobs WHERE thread = $1 AND channel = '' AND get_byte(data, 0) = 4", []byte("many-tasks")); n == 0 {
		t.Errorf("many-tasks: no pack holds task writes: the situation does not test packed writes")
	}
}

// TestThreads_UnreadableLatest: a thread whose latest record does not
// decode is listed with Err and, as the bbolt store lists it, with what
// was read before the record (its counts and graph record) and nothing of
// the record's checkpoint: no latest id, no pending writes, no status.
func TestThreads_UnreadableLatest(t *testing.T) {
	t.Parallel()
	s := open(t, schemaURL(t), postgres.Options{})
	var clock countingClock
	opts := []engine.CompileOption{engine.WithSaver(s), engine.WithIDs(engine.NewTimeIDs(clock.now)), engine.WithClock(clock.now)}
	for _, sit := range threadSituations {
		if sit.name == "failed" {
			sit.build(t, s, opts, "bad")
		}
	}
	if n := countRows(t, s.Schema(), "writes WHERE thread = 'bad'::bytea"); n == 0 {
		t.Fatal("the failed run saved no writes")
	}
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	cps := pgx.Identifier{s.Schema(), "checkpoints"}.Sanitize()
	if _, err := conn.Exec(ctx, "UPDATE "+cps+" SET rec = '\\xff0001'::bytea WHERE thread = 'bad'::bytea AND id = (SELECT id FROM "+cps+" WHERE thread = 'bad'::bytea AND ns = ''::bytea ORDER BY id DESC LIMIT 1)"); err != nil {
		t.Fatal(err)
	}
	infos, err := s.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 {
		t.Fatalf("%d threads listed, want 1", len(infos))
	}
	info := infos[0]
	if !errors.Is(info.Err, persist.ErrCorrupt) && !errors.Is(info.Err, persist.ErrUnknownValueFormat) {
		t.Errorf("Err %v, want ErrCorrupt or ErrUnknownValueFormat", info.Err)
	}
	if info.Checkpoints != 3 || info.Namespaces != 1 || info.Fingerprint == "" || info.Updated.IsZero() {
		t.Errorf("%+v: want what was read before the record", info)
	}
	if info.LastID != "" || info.LastStep != 0 || info.LastSource != "" || !info.LastTS.IsZero() || info.PendingWrites != 0 || info.Interrupted || info.Failed {
		t.Errorf("%+v: want nothing of the record's checkpoint", info)
	}
}
