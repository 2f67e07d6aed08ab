package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
)

// The expected sequences below are what LangGraph.js 1.7.3 streams for
// the same graphs with streamMode ["checkpoints"] (or ["debug"]) and a
// MemorySaver: its tick streams the checkpoint it planned the tasks from,
// after planning (dist pregel/loop.js:684), with debug.js:94-160
// mapDebugCheckpoint's next and tasks; the debug wrapper's step is the
// loop's step less one (loop.js:972). Checkpoint ids are numbered in the
// order they first appear (cp0, cp1, ...); "<cpN" names the parent.

// cpGraph is a → b over an append key "log"; b asks a question with
// Interrupt when ask is set.
func cpGraph(t *testing.T, ask bool, opts ...engine.CompileOption) *engine.Graph {
	return mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(context.Context, any) (any, error) {
			return engine.Pairs("log", []any{"a"}), nil
		}).
		AddNode("b", func(ctx context.Context, _ any) (any, error) {
			if !ask {
				return engine.Pairs("log", []any{"b"}), nil
			}
			ans, err := engine.Interrupt(ctx, "q?")
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{"b:" + fmt.Sprint(ans)}), nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End), opts...)
}

// cpNames numbers checkpoint ids in the order they appear.
type cpNames map[string]string

func (n cpNames) of(id string) string {
	if id == "" {
		return "-"
	}
	if _, ok := n[id]; !ok {
		n[id] = fmt.Sprintf("cp%d", len(n))
	}
	return n[id]
}

// streamCheckpoints runs g with the given modes and writes each
// checkpoints chunk (and debug checkpoint chunk) as one line.
func streamCheckpoints(t *testing.T, g *engine.Graph, names cpNames, input any, modes []engine.StreamMode, opts ...engine.RunOption) []string {
	t.Helper()
	var out []string
	for p, err := range g.StreamModes(ctx, input, modes, opts...) {
		if err != nil {
			t.Fatal(err)
		}
		var c engine.CheckpointChunk
		prefix := ""
		switch d := p.Data.(type) {
		case engine.CheckpointChunk:
			c = d
		case engine.DebugChunk:
			if d.Type != "checkpoint" {
				out = append(out, fmt.Sprintf("debug %s %d", d.Type, d.Step))
				continue
			}
			c = d.Payload.(engine.CheckpointChunk)
			prefix = fmt.Sprintf("debug %d ", d.Step)
		default:
			continue
		}
		if len(c.Next) != len(c.Tasks) {
			t.Fatalf("next %v and tasks %+v differ", c.Next, c.Tasks)
		}
		var tasks []string
		for i, tk := range c.Tasks {
			if tk.Name != c.Next[i] || tk.ID == "" || tk.Interrupts == nil {
				t.Fatalf("task %+v (next %v)", tk, c.Next)
			}
			s := tk.Name
			for _, in := range tk.Interrupts {
				s += "!" + fmt.Sprint(in.Value)
			}
			if tk.Error != "" {
				s += " error " + tk.Error
			}
			if tk.Result != nil {
				s += fmt.Sprint(" =", tk.Result["log"])
			}
			if tk.Subgraph != "" {
				s += " @" + strings.SplitN(tk.Subgraph, ":", 2)[0]
			}
			tasks = append(tasks, s)
		}
		ns := ""
		if p.Namespace != nil {
			ns = strings.SplitN(p.Namespace[0], ":", 2)[0] + " "
		}
		out = append(out, fmt.Sprintf("%s%s%s<%s %d %s log=%v next=%v", prefix, ns, names.of(c.ID), names.of(c.ParentID), c.Step, c.Source, c.Values.(map[string]any)["log"], tasks))
	}
	return out
}

func wantLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

var onlyCheckpoints = []engine.StreamMode{engine.StreamCheckpoints}

// A run to the end streams its input checkpoint (next: the start node),
// each loop checkpoint with the node planned from it, and its last
// checkpoint with nothing planned (LangGraph.js streams before
// loop.js:685 ends the run when no task was planned).
func TestStreamModes_CheckpointsComeWhenPlanned(t *testing.T) {
	got := streamCheckpoints(t, cpGraph(t, false), cpNames{}, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "checkpoints", got, []string{
		"cp0<- -1 input log=[] next=[__start__]",
		"cp1<cp0 0 loop log=[] next=[a]",
		"cp2<cp1 1 loop log=[a] next=[b]",
		"cp3<cp2 2 loop log=[a b] next=[]",
	})
	// debug: the checkpoint's step is the loop's less one (loop.js:972),
	// and it comes before the task starts planned from it.
	got = streamCheckpoints(t, cpGraph(t, false), cpNames{}, map[string]any{"log": []any{}}, []engine.StreamMode{engine.StreamDebug}, engine.OnThread("t"))
	wantLines(t, "debug", got, []string{
		"debug -1 cp0<- -1 input log=[] next=[__start__]",
		"debug 0 cp1<cp0 0 loop log=[] next=[a]",
		"debug task 1",
		"debug task_result 1",
		"debug 1 cp2<cp1 1 loop log=[a] next=[b]",
		"debug task 2",
		"debug task_result 2",
		"debug 2 cp3<cp2 2 loop log=[a b] next=[]",
	})
}

// The checkpoint an interrupt_after breakpoint stops at is not streamed
// by the run that wrote it (tick throws at loop.js:663, before planning)
// but first by the run that resumes from it.
func TestStreamModes_CheckpointsAcrossInterruptAfter(t *testing.T) {
	g := cpGraph(t, false, engine.WithInterruptAfter("a"))
	names := cpNames{}
	got := streamCheckpoints(t, g, names, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "stopped", got, []string{
		"cp0<- -1 input log=[] next=[__start__]",
		"cp1<cp0 0 loop log=[] next=[a]",
	})
	got = streamCheckpoints(t, g, names, nil, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "resumed", got, []string{
		"cp2<cp1 1 loop log=[a] next=[b]",
		"cp3<cp2 2 loop log=[a b] next=[]",
	})
}

// An interrupt_before breakpoint streams the checkpoint it stops at (tick
// streams it before shouldInterrupt, loop.js:684 then :697), and the run
// that resumes streams it again.
func TestStreamModes_CheckpointsAcrossInterruptBefore(t *testing.T) {
	g := cpGraph(t, false, engine.WithInterruptBefore("b"))
	names := cpNames{}
	got := streamCheckpoints(t, g, names, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "stopped", got, []string{
		"cp0<- -1 input log=[] next=[__start__]",
		"cp1<cp0 0 loop log=[] next=[a]",
		"cp2<cp1 1 loop log=[a] next=[b]",
	})
	got = streamCheckpoints(t, g, names, nil, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "resumed", got, []string{
		"cp2<cp1 1 loop log=[a] next=[b]",
		"cp3<cp2 2 loop log=[a b] next=[]",
	})
}

// A run resumed with Command{Resume} streams the checkpoint it resumes
// from first, its task with the interrupt saved against it
// (tasksWithWrites, debug.js:130).
func TestStreamModes_CheckpointsAcrossInterrupt(t *testing.T) {
	g := cpGraph(t, true)
	names := cpNames{}
	got := streamCheckpoints(t, g, names, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "interrupted", got, []string{
		"cp0<- -1 input log=[] next=[__start__]",
		"cp1<cp0 0 loop log=[] next=[a]",
		"cp2<cp1 1 loop log=[a] next=[b]",
	})
	got = streamCheckpoints(t, g, names, engine.Command{Resume: "yes"}, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "resumed", got, []string{
		"cp2<cp1 1 loop log=[a] next=[b!q?]",
		"cp3<cp2 2 loop log=[a b:yes] next=[]",
	})
}

// A run resumed after a failure streams the checkpoint it resumes from
// with the failed task's error and the finished sibling's result
// (tasksWithWrites, debug.js:129-139). LangGraph.js saves the error as
// an object; here it is its saved text (SnapshotTask.Error's).
func TestStreamModes_CheckpointsAfterFailure(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	cDone := make(chan struct{})
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"a"}), nil }).
		AddNode("b", func(context.Context, any) (any, error) {
			if fail.Load() {
				<-cDone
				return nil, errors.New("boom")
			}
			return engine.Pairs("log", []any{"b"}), nil
		}).
		AddNode("c", func(context.Context, any) (any, error) {
			defer func() {
				if fail.Load() {
					close(cDone)
				}
			}()
			return engine.Pairs("log", []any{"c"}), nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("a", "c"))
	names := cpNames{}
	var got []string
	for p, err := range g.StreamModes(ctx, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t")) {
		if err != nil {
			break // boom
		}
		got = append(got, fmt.Sprint(p.Data.(engine.CheckpointChunk).Next))
	}
	wantLines(t, "failed", got, []string{"[__start__]", "[a]", "[b c]"})
	fail.Store(false)
	got = streamCheckpoints(t, g, names, nil, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "resumed", got, []string{
		`cp0<cp1 1 loop log=[a] next=[b error node "b" failed at step 2: boom c =[c]]`,
		"cp2<cp0 2 loop log=[a b c] next=[]",
	})
}

// Under exit durability each superstep's checkpoint streams from memory,
// addressed as the checkpoint the run started from (none on a new
// thread): LangGraph.js's checkpointConfig changes only when it saves
// (loop.js:1031-1050).
func TestStreamModes_CheckpointsUnderExitDurability(t *testing.T) {
	g := cpGraph(t, false)
	names := cpNames{}
	run := func() []string {
		return streamCheckpoints(t, g, names, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"), engine.WithDurability(engine.DurabilityExit))
	}
	wantLines(t, "first run", run(), []string{
		"-<- -1 input log=[] next=[__start__]",
		"-<- 0 loop log=[] next=[a]",
		"-<- 1 loop log=[a] next=[b]",
		"-<- 2 loop log=[a b] next=[]",
	})
	wantLines(t, "second run", run(), []string{
		"cp0<- 3 input log=[a b] next=[__start__]",
		"cp0<- 4 loop log=[a b] next=[a]",
		"cp0<- 5 loop log=[a b a] next=[b]",
		"cp0<- 6 loop log=[a b a b] next=[]",
	})
}

// A subgraph's checkpoints stream under its namespace, and a task whose
// node runs a subgraph names the subgraph's namespace (LangGraph's
// state, debug.js:105-113).
func TestStreamModes_CheckpointsOfSubgraphs(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"s"}), nil }).
		AddEdge(engine.Start, "s"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("p", sub).
		AddEdge(engine.Start, "p"))
	got := streamCheckpoints(t, g, cpNames{}, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"), engine.WithSubgraphs())
	wantLines(t, "subgraphs", got, []string{
		"cp0<- -1 input log=[] next=[__start__]",
		"cp1<cp0 0 loop log=[] next=[p @p]",
		"p cp2<- -1 input log=[] next=[__start__]",
		"p cp3<cp2 0 loop log=[] next=[s]",
		"p cp4<cp3 1 loop log=[s] next=[]",
		"cp5<cp1 1 loop log=[s] next=[]",
	})
	// Without WithSubgraphs only the root's.
	got = streamCheckpoints(t, g, cpNames{}, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("u"))
	if len(got) != 3 {
		t.Errorf("root only: %q", got)
	}
}

// No stream mode of checkpoints: nothing asks the run for them.
func TestStreamModes_NoPlannedEventsUnlessWanted(t *testing.T) {
	var planned int
	g := cpGraph(t, false)
	for _, err := range g.StreamModes(ctx, map[string]any{"log": []any{}}, []engine.StreamMode{engine.StreamValues, engine.StreamTasks}, engine.OnThread("t"), engine.WithEvents(func(e engine.Event) {
		if e.Kind == engine.EventPlanned {
			planned++
		}
	})) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if planned != 0 {
		t.Errorf("%d EventPlanned without a checkpoints or debug stream", planned)
	}
}

// Sends are planned first, then the nodes (next lists a Send's node once
// per Send), as LangGraph.js's prepared tasks are.
func TestStreamModes_CheckpointsOfSends(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"a"}), nil }).
		AddNode("z", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"z"}), nil }).
		AddNode("w", func(_ context.Context, in any) (any, error) {
			return engine.Pairs("log", []any{fmt.Sprint("w", in.(map[string]any)["x"])}), nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "z").
		AddConditionalEdges("a", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "w", Arg: map[string]any{"x": 1.0}}, engine.Send{Node: "w", Arg: map[string]any{"x": 2.0}}}, nil
		}, "w"))
	got := streamCheckpoints(t, g, cpNames{}, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "sends", got, []string{
		"cp0<- -1 input log=[] next=[__start__]",
		"cp1<cp0 0 loop log=[] next=[a]",
		"cp2<cp1 1 loop log=[a] next=[w w z]",
		"cp3<cp2 2 loop log=[a z w1 w2] next=[]",
	})
}

// A replay streams the fork checkpoint it writes first (loop.js:902, then
// tick plans from it), and a run from an update_state checkpoint the
// update checkpoint itself.
func TestStreamModes_CheckpointsOfReplayAndUpdate(t *testing.T) {
	g := cpGraph(t, false)
	names := cpNames{}
	wantLines(t, "first", streamCheckpoints(t, g, names, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t")), []string{
		"cp0<- -1 input log=[] next=[__start__]",
		"cp1<cp0 0 loop log=[] next=[a]",
		"cp2<cp1 1 loop log=[a] next=[b]",
		"cp3<cp2 2 loop log=[a b] next=[]",
	})
	byName := map[string]string{}
	for id, n := range names {
		byName[n] = id
	}
	wantLines(t, "replay", streamCheckpoints(t, g, names, nil, onlyCheckpoints, engine.OnThread("t"), engine.FromCheckpoint(byName["cp2"])), []string{
		"cp4<cp2 2 fork log=[a] next=[b]",
		"cp5<cp4 3 loop log=[a b] next=[]",
	})
	up, err := g.UpdateState(ctx, engine.Config{ThreadID: "t", CheckpointID: byName["cp1"]}, map[string]any{"log": []any{"u"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := names.of(up.CheckpointID); n != "cp6" {
		t.Fatalf("update checkpoint %s", n)
	}
	wantLines(t, "from update", streamCheckpoints(t, g, names, nil, onlyCheckpoints, engine.FromConfig(up)), []string{
		"cp6<cp1 1 update log=[u] next=[a]",
		"cp7<cp6 2 loop log=[u a] next=[b]",
		"cp8<cp7 3 loop log=[u a b] next=[]",
	})
}

// An entrypoint's checkpoints carry its output as their values (nil
// until it returned), and next names the entrypoint alone: its Task calls
// are made while it runs, not planned (LangGraph.js 1.7.3 streams
// values null, next ["main"], then values 4, next []).
func TestStreamModes_CheckpointsOfEntrypoint(t *testing.T) {
	g, err := engine.NewEntrypoint("main", func(ctx context.Context, in any) (any, error) {
		y, err := engine.Task(ctx, "t1", func(_ context.Context, x float64) (float64, error) { return x + 1, nil }, in.(float64)).Result()
		if err != nil {
			return nil, err
		}
		return y * 2, nil
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p, err := range g.StreamModes(ctx, 1.0, onlyCheckpoints, engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		c := p.Data.(engine.CheckpointChunk)
		got = append(got, fmt.Sprintf("%d %s %v %v", c.Step, c.Source, c.Values, c.Next))
	}
	wantLines(t, "entrypoint", got, []string{"-1 input <nil> [main]", "0 loop 4 []"})
}
