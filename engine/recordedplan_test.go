package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/superstep/superstep/engine"
)

// checkRecordedPlan compares, at every root checkpoint of thread (its
// history) and at its head, what the graph's record plans
// (engine.RecordedPlan, read back from the encoded record as a saver
// keeps it) with what the graph's own GetState plans: the same tasks,
// and the same status where the record decides it. It returns the head's
// status as the record tells it ("unknown" when it cannot) and how many
// checkpoints the record could not decide.
func checkRecordedPlan(t *testing.T, g *engine.Graph, thread string) (head string, undecided int) {
	t.Helper()
	ctx := context.Background()
	rec, ok := engine.DecodeGraphRecord(g.Record("g").Encode())
	if !ok {
		t.Fatal("the record does not read back")
	}
	tuples, err := g.Saver().List(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{})
	if err != nil || len(tuples) == 0 {
		t.Fatalf("thread %q: %d checkpoints, %v", thread, len(tuples), err)
	}
	p, err := engine.PlanFromRecord(rec)
	if errors.Is(err, engine.ErrUndecided) {
		t.Logf("the record decides nothing: %v", err)
		return "unknown", len(tuples)
	}
	if err != nil {
		t.Fatalf("PlanFromRecord: %v", err)
	}
	for i, tup := range tuples {
		snap, err := g.GetState(ctx, tup.Config)
		if err != nil {
			t.Fatalf("GetState %s: %v", tup.Config.CheckpointID, err)
		}
		if i == 0 {
			// The head as GetState reads the latest: the writes of
			// finished tasks applied, which changes no task or status
			// (and fails where those writes conflict).
			if latest, err := g.GetState(ctx, engine.Config{ThreadID: thread}); err == nil {
				if latest.Status() != snap.Status() || len(latest.Tasks) != len(snap.Tasks) {
					t.Fatalf("the latest checkpoint reads %v with its writes applied, %v without", latest.Status(), snap.Status())
				}
			}
		}
		var want []string
		for _, tk := range snap.Tasks {
			want = append(want, tk.Name)
		}
		sort.Strings(want)
		got, err := p.Planned(tup)
		if err != nil {
			t.Fatalf("checkpoint %s (step %d): Planned: %v", tup.Config.CheckpointID, tup.Metadata.Step, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("checkpoint %s (step %d, %s): the record plans %v, the graph %v", tup.Config.CheckpointID, tup.Metadata.Step, tup.Metadata.Source, got, want)
		}
		status, err := p.Status(tup)
		switch {
		case errors.Is(err, engine.ErrUndecided):
			undecided++
			if i == 0 {
				head = "unknown"
			}
			continue
		case err != nil:
			t.Fatalf("checkpoint %s: Status: %v", tup.Config.CheckpointID, err)
		}
		if status != snap.Status() {
			t.Errorf("checkpoint %s (step %d, %s): the record says %v, the graph %v", tup.Config.CheckpointID, tup.Metadata.Step, tup.Metadata.Source, status, snap.Status())
		}
		if i == 0 {
			head = status.String()
		}
	}
	return head, undecided
}

// compilePlain compiles sg with opts alone (mustCompile adds a saver).
func compilePlain(t *testing.T, sg *engine.StateGraph, opts ...engine.CompileOption) *engine.Graph {
	t.Helper()
	g, err := sg.Compile(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func appendTo(key string, v any) engine.NodeFunc {
	return func(context.Context, any) (any, error) { return engine.Pairs(key, []any{v}), nil }
}

// TestRecordedPlan_HandMade: graphs with Sends, Command gotos, routes,
// joins, a deferred node, interrupts, a failure, a breakpoint, a
// cancelled run, a subgraph, an entrypoint and the null task's writes
// plan from their records, at every checkpoint, what GetState plans; the
// heads' statuses are the ones each run leaves.
func TestRecordedPlan_HandMade(t *testing.T) {
	ctx := context.Background()
	ask := func(ctx context.Context, _ any) (any, error) {
		a, err := engine.Interrupt(ctx, "ok?")
		if err != nil {
			return nil, err
		}
		return engine.Pairs("log", []any{fmt.Sprint("answer ", a)}), nil
	}
	// askThenAfter asks, then appends "after".
	askThenAfter := func(s engine.Saver) *engine.Graph {
		return compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
			AddNode("ask", ask).AddNode("after", appendTo("log", "after")).
			AddEdge(engine.Start, "ask").AddEdge("ask", "after"), engine.WithSaver(s))
	}
	cases := []struct {
		name string
		// build compiles the graph on the saver; drive runs it on thread "t".
		build func(s engine.Saver) *engine.Graph
		drive func(g *engine.Graph) error
		head  string
	}{{
		name: "sends",
		build: func(s engine.Saver) *engine.Graph {
			return compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("fan", appendTo("log", "fan")).
				AddNode("work", func(_ context.Context, in any) (any, error) { return engine.Pairs("log", []any{in}), nil }).
				AddNode("sum", appendTo("log", "sum")).
				AddEdge(engine.Start, "fan").
				AddConditionalEdges("fan", func(context.Context, map[string]any) (any, error) {
					return []any{engine.Send{Node: "work", Arg: "a"}, engine.Send{Node: "work", Arg: "b"}}, nil
				}).
				AddEdge("work", "sum"), engine.WithSaver(s))
		},
		head: "done",
	}, {
		name: "goto-and-route-loop",
		build: func(s engine.Saver) *engine.Graph {
			return compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("a", func(_ context.Context, in any) (any, error) {
					if len(in.(map[string]any)["log"].([]any)) >= 3 {
						return engine.Command{Goto: []any{"b", engine.Send{Node: "b", Arg: "sent"}}}, nil
					}
					return engine.Command{Update: engine.Pairs("log", []any{"a"}), Goto: []any{"a"}}, nil
				}, engine.WithEnds("a", "b")).
				AddNode("b", appendTo("log", "b")).
				AddEdge(engine.Start, "a").
				AddConditionalEdges("b", func(_ context.Context, st map[string]any) (any, error) {
					if len(st["log"].([]any)) < 6 {
						return "b", nil
					}
					return engine.End, nil
				}, "b", engine.End), engine.WithSaver(s))
		},
		head: "done",
	}, {
		name: "join-and-deferred",
		build: func(s engine.Saver) *engine.Graph {
			return compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("a", appendTo("log", "a")).
				AddNode("b", appendTo("log", "b")).
				AddNode("b2", appendTo("log", "b2")).
				AddNode("j", appendTo("log", "j")).
				AddNode("last", appendTo("log", "last"), engine.WithDefer()).
				AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").
				AddEdge("b", "b2").
				AddJoin([]string{"a", "b2"}, "j").
				AddEdge("a", "last"), engine.WithSaver(s))
		},
		head: "done",
	}, {
		name:  "interrupted",
		build: askThenAfter,
		head:  "interrupted",
	}, {
		name:  "answered",
		build: askThenAfter,
		drive: func(g *engine.Graph) error {
			if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t")); err != nil {
				return err
			}
			_, err := g.Invoke(ctx, engine.Command{Resume: "yes"}, engine.OnThread("t"))
			return err
		},
		head: "done",
	}, {
		// A resume value saved and not applied yet (the run that took it
		// died): the record cannot tell whether the node runs a subgraph
		// that asks again.
		name: "answer-saved-not-applied",
		build: func(s engine.Saver) *engine.Graph {
			return compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("ask", ask).AddEdge(engine.Start, "ask"), engine.WithSaver(s))
		},
		drive: func(g *engine.Graph) error {
			res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
			if err != nil {
				return err
			}
			return g.Saver().PutWrites(ctx, res.Checkpoint, engine.NullTaskID, []engine.Write{{Channel: engine.ResumeChannel, Value: "yes"}})
		},
		head: "unknown",
	}, {
		name: "failed",
		build: func(s engine.Saver) *engine.Graph {
			return compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("ok", appendTo("log", "ok")).
				AddNode("boom", func(context.Context, any) (any, error) { return nil, errors.New("boom") }).
				AddEdge(engine.Start, "ok").AddEdge("ok", "boom"), engine.WithSaver(s))
		},
		head: "error",
	}, {
		name: "breakpoint",
		build: func(s engine.Saver) *engine.Graph {
			return compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("a", appendTo("log", "a")).AddNode("b", appendTo("log", "b")).
				AddEdge(engine.Start, "a").AddEdge("a", "b"), engine.WithSaver(s), engine.WithInterruptBefore("b"))
		},
		head: "pending",
	}, {
		name: "cancelled",
		build: func(s engine.Saver) *engine.Graph {
			return compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("a", appendTo("log", "a")).
				AddNode("quick", appendTo("log", "quick")).
				AddNode("slow", func(ctx context.Context, _ any) (any, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				}).
				AddEdge(engine.Start, "a").AddEdge("a", "quick").AddEdge("a", "slow"), engine.WithSaver(s))
		},
		drive: func(g *engine.Graph) error {
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			_, err := g.Invoke(cctx, map[string]any{}, engine.OnThread("t"), engine.WithEvents(func(e engine.Event) {
				if e.Kind == engine.EventTaskResult && e.Node == "quick" {
					cancel()
				}
			}))
			if !errors.Is(err, context.Canceled) {
				return fmt.Errorf("want the run cancelled, got %v", err)
			}
			return nil
		},
		// The cancelled task saved its cancellation as an error.
		head: "error",
	}, {
		name: "subgraph-interrupt",
		build: func(s engine.Saver) *engine.Graph {
			sub := compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("ask", ask).AddEdge(engine.Start, "ask"))
			return compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddSubgraph("inner", sub).AddNode("after", appendTo("log", "after")).
				AddEdge(engine.Start, "inner").AddEdge("inner", "after"), engine.WithSaver(s))
		},
		head: "interrupted",
	}, {
		name: "goto-saved-not-applied",
		build: func(s engine.Saver) *engine.Graph {
			return compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("a", appendTo("log", "a")).AddNode("b", appendTo("log", "b")).
				AddEdge(engine.Start, "a").
				AddConditionalEdges("a", func(context.Context, map[string]any) (any, error) { return engine.End, nil }, "b", engine.End),
				engine.WithSaver(s))
		},
		drive: func(g *engine.Graph) error {
			res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
			if err != nil {
				return err
			}
			// A Command input's writes, saved by a run that died before
			// its first superstep: b and a Send to a are what remain.
			return g.Saver().PutWrites(ctx, res.Checkpoint, engine.NullTaskID, []engine.Write{
				{Channel: engine.BranchPrefix + "b"},
				{Channel: engine.TasksChannel, Value: engine.Send{Node: "a", Arg: map[string]any{}}},
			})
		},
		head: "pending",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := c.build(engine.NewMemorySaver())
			drive := c.drive
			if drive == nil {
				drive = func(g *engine.Graph) error {
					_, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
					if err != nil && c.head == "error" {
						return nil
					}
					return err
				}
			}
			if err := drive(g); err != nil && c.head != "error" {
				t.Fatal(err)
			}
			if head, _ := checkRecordedPlan(t, g, "t"); head != c.head {
				t.Errorf("head: the record says %s, want %s", head, c.head)
			}
		})
	}
}

// TestRecordedPlan_Entrypoint: a functional graph's record plans its
// entrypoint and its calls' checkpoints as GetState does.
func TestRecordedPlan_Entrypoint(t *testing.T) {
	ctx := context.Background()
	double := func(_ context.Context, n float64) (float64, error) { return 2 * n, nil }
	g, err := engine.NewEntrypoint("main", func(ctx context.Context, in any) (any, error) {
		v, err := engine.Task(ctx, "double", double, 21.0).Result()
		if err != nil {
			return nil, err
		}
		a, err := engine.Interrupt(ctx, v)
		if err != nil {
			return nil, err
		}
		return a, nil
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, 1.0, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	if head, _ := checkRecordedPlan(t, g, "t"); head != "interrupted" {
		t.Errorf("asking: the record says %s", head)
	}
	if _, err := g.Invoke(ctx, engine.Command{Resume: "yes"}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	if head, _ := checkRecordedPlan(t, g, "t"); head != "done" {
		t.Errorf("answered: the record says %s", head)
	}
}

// TestPlanFromRecord_Undecided: a record without a topology, or with one
// its fingerprint does not match, decides nothing; nor does a subgraph's
// checkpoint.
func TestPlanFromRecord_Undecided(t *testing.T) {
	g := compilePlain(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", appendTo("log", "a")).AddEdge(engine.Start, "a"), engine.WithSaver(engine.NewMemorySaver()))
	bare, _ := engine.DecodeGraphRecord(g.Fingerprint())
	cut := g.Record("g")
	cut.Topology = cut.Topology[1:]
	for name, rec := range map[string]engine.GraphRecord{"bare fingerprint": bare, "no topology": {Graph: "g", Fingerprint: g.Fingerprint()}, "cut topology": cut} {
		if _, err := engine.PlanFromRecord(rec); !errors.Is(err, engine.ErrUndecided) {
			t.Errorf("%s: %v, want ErrUndecided", name, err)
		}
	}
	p, err := engine.PlanFromRecord(g.Record("g"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(context.Background(), map[string]any{}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	tup, err := g.Saver().GetTuple(context.Background(), res.Checkpoint)
	if err != nil || tup == nil {
		t.Fatal(tup, err)
	}
	tup.Config.CheckpointNS = "sub:1"
	if _, err := p.Status(tup); !errors.Is(err, engine.ErrUndecided) {
		t.Errorf("a subgraph's checkpoint: %v, want ErrUndecided", err)
	}
	for _, ch := range []string{engine.TasksChannel, engine.BranchPrefix + "a", engine.Start} {
		if !p.Reads(ch) {
			t.Errorf("planning reads %s", ch)
		}
	}
	if p.Reads("log") {
		t.Error("planning reads no state key")
	}
}
