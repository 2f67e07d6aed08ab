package engine_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A subgraph's superstep streams its task starts when it starts, before
// the chunks a sibling subgraph makes while those tasks work: LangGraph.js
// streams them in tick, before the runner starts the tasks
// (libs/langgraph-core/src/pregel/loop.ts:1144-1151). They were held until
// the subgraph's own next chunk, so B's start of "b1" came after A's update
// made while b1 worked.
func TestStreamModes_SubgraphTaskStartsBeforeSiblingChunks(t *testing.T) {
	bWorking := make(chan struct{}) // b1 runs
	aStreamed := make(chan struct{})
	subA := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(ctx context.Context, _ any) (any, error) {
			select {
			case <-bWorking:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return map[string]any{"log": []any{"a"}}, nil
		}).AddEdge(engine.Start, "a"))
	subB := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("b0", appendLog("b0")).
		AddNode("b1", func(ctx context.Context, _ any) (any, error) {
			close(bWorking)
			select {
			case <-aStreamed: // A's update was streamed while b1 worked
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return map[string]any{"log": []any{"b1"}}, nil
		}).
		AddEdge(engine.Start, "b0").AddEdge("b0", "b1"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("A", subA).AddSubgraph("B", subB).
		AddEdge(engine.Start, "A").AddEdge(engine.Start, "B"))
	var got []string
	for p, err := range g.StreamModes(ctx, map[string]any{}, []engine.StreamMode{engine.StreamUpdates, engine.StreamTasks}, engine.WithSubgraphs(), engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Namespace) == 0 {
			continue
		}
		sub, _, _ := strings.Cut(p.Namespace[0], ":")
		switch d := p.Data.(type) {
		case engine.TaskChunk:
			got = append(got, sub+" start "+d.Name)
		case engine.UpdatesChunk:
			for k := range d {
				got = append(got, sub+" update "+k)
				if sub == "A" && k == "a" {
					close(aStreamed)
				}
			}
		}
	}
	start, update := slices.Index(got, "B start b1"), slices.Index(got, "A update a")
	if start < 0 || update < 0 || start > update {
		t.Fatalf("stream %v: want B's start of b1 before A's update", got)
	}
}

// A run stopped by a subgraph's own breakpoint streams the breakpoint's
// empty interrupt from the root only: a nested loop throws its interrupt
// to the parent instead of streaming it (_suppressInterrupt is false when
// nested, loop.ts:1373-1374), and the root streams {__interrupt__: []}
// when no task's interrupt carried a value (loop.ts:1206-1213).
func TestStreamModes_SubgraphBreakpointStreamsFromTheRoot(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s0", appendLog("s0")).AddNode("s1", appendLog("s1")).
		AddEdge(engine.Start, "s0").AddEdge("s0", "s1"),
		engine.WithInterruptAfter("s0"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub).AddEdge(engine.Start, "sub"),
		engine.WithSaver(engine.NewMemorySaver()))
	var got []string
	for p, err := range g.StreamModes(ctx, map[string]any{}, []engine.StreamMode{engine.StreamUpdates}, engine.WithSubgraphs(), engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		if u, ok := p.Data.(engine.UpdatesChunk); ok {
			if _, ok := u[engine.InterruptChannel]; ok {
				got = append(got, "interrupt in "+strings.Join(p.Namespace, "|")+".")
			}
		}
	}
	if want := []string{"interrupt in ."}; !slices.Equal(got, want) {
		t.Fatalf("interrupt chunks %q, want %q (the root's only)", got, want)
	}
}

// A run addressed at an update checkpoint that is the thread's head
// travels in time (LangGraph.js resumeAtHead excludes update and fork
// checkpoints, 1.7.3 dist loop.js:452): its subgraph loads the latest
// checkpoint saved before the update's parent, none here, and starts
// afresh instead of resuming where an earlier run from that checkpoint
// left it (pregel/replay.ts ReplayState, loop.js:938-950, 411-414).
// Continued without a checkpoint id, the thread resumes the subgraph.
func TestReplay_HeadUpdateCheckpointStartsSubgraphsAfresh(t *testing.T) {
	var s0, s1 atomic.Int64
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s0", func(context.Context, any) (any, error) {
			s0.Add(1)
			return map[string]any{"log": []any{"s0"}}, nil
		}).
		AddNode("s1", func(context.Context, any) (any, error) {
			s1.Add(1)
			return map[string]any{"log": []any{"s1"}}, nil
		}).
		AddEdge(engine.Start, "s0").AddEdge("s0", "s1"),
		engine.WithInterruptBefore("s1"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", appendLog("a")).AddSubgraph("S", sub).
		AddEdge(engine.Start, "a").AddEdge("a", "S"),
		engine.WithSaver(engine.NewMemorySaver()))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	fork, err := g.UpdateState(ctx, engine.Config{ThreadID: "t"}, map[string]any{"log": []any{"u"}}, "a")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second run is addressed at the head, an update checkpoint
		if _, err := g.Invoke(ctx, nil, engine.OnThread("t"), engine.FromCheckpoint(fork.CheckpointID)); err != nil {
			t.Fatal(err)
		}
	}
	if s0.Load() != 3 || s1.Load() != 0 {
		t.Fatalf("s0 ran %d times, s1 %d: want 3 and 0 (each run from the update starts the subgraph afresh)", s0.Load(), s1.Load())
	}
	if _, err := g.Invoke(ctx, nil, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	if s0.Load() != 3 || s1.Load() != 1 {
		t.Fatalf("continued: s0 ran %d times, s1 %d: want 3 and 1 (the subgraph resumes)", s0.Load(), s1.Load())
	}
}

// A replay of a graph whose stateful subgraph keeps one namespace across
// runs loads the subgraph's checkpoint from before the replay point, not
// the latest one a later run left (pregel/replay.ts: latest before the
// bound on the namespace's first visit).
func TestReplay_StatefulSubgraphLoadsItsStateBeforeTheReplayPoint(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s", appendLog("s")).AddEdge(engine.Start, "s"),
		engine.AsStatefulSubgraph())
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("S", sub).AddEdge(engine.Start, "S"),
		engine.WithSaver(engine.NewMemorySaver()))
	first, err := g.Invoke(ctx, map[string]any{"log": []any{"1"}}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{"2"}}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	hist, err := g.History(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var atFirst string // the first run's checkpoint that planned S
	for _, s := range hist {
		if s.Metadata.Step == 0 {
			atFirst = s.Config.CheckpointID
		}
	}
	if atFirst == "" {
		t.Fatal("no step-0 checkpoint in the history")
	}
	replayed, err := g.Invoke(ctx, nil, engine.OnThread("t"), engine.FromCheckpoint(atFirst))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := replayed.Values["log"], first.Values["log"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("replayed state %v, want the first run's %v (the subgraph as it was then)", got, want)
	}
}
