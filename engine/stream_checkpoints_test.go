package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
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
			if tk.Error != nil {
				s += " error " + tk.Error.Name + ": " + tk.Error.Message
			}
			if tk.Result != nil {
				s += fmt.Sprint(" =", tk.Result["log"])
			}
			if tk.State != nil {
				s += " @" + strings.SplitN(tk.State.Configurable.CheckpointNS, ":", 2)[0]
			}
			tasks = append(tasks, s)
		}
		ns := ""
		if p.Namespace != nil {
			ns = strings.SplitN(p.Namespace[0], ":", 2)[0] + " "
		}
		out = append(out, fmt.Sprintf("%s%s%s<%s %d %s log=%v next=%v", prefix, ns, names.of(c.ID()), names.of(c.ParentID()), c.Metadata.Step, c.Metadata.Source, c.Values.(map[string]any)["log"], tasks))
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
// (tasksWithWrites, debug.js:129-139): the error the node returned, as
// LangGraph.js saves it ({message, name}; see
// TestStreamModes_CheckpointChunkJSONOfFailure).
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
		"cp0<cp1 1 loop log=[a] next=[b error Error: boom c =[c]]",
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
	g := sendsGraph(t)
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
		got = append(got, fmt.Sprintf("%d %s %v %v", c.Metadata.Step, c.Metadata.Source, c.Values, c.Next))
	}
	wantLines(t, "entrypoint", got, []string{"-1 input <nil> [main]", "0 loop 4 []"})
}

// jsonChunks is how a consumer sees the chunks: each checkpoints chunk
// (or debug checkpoint chunk) JSON-encoded, then made comparable with
// LangGraph.js's the way the oracle script's output was (norm.py, kept
// out of the repository): checkpoint ids are named cp0, cp1, ... and
// task and interrupt ids t0, ... and i0, ... in the order they first
// appear (across all the chunks given the same ids), a debug
// timestamp is "TS", and object keys are sorted. Each line is "mode
// ns json", ns "-" at the root.
type jsonChunks struct {
	t     *testing.T
	names map[string]string
	count map[string]int
}

func newJSONChunks(t *testing.T) *jsonChunks {
	return &jsonChunks{t: t, names: map[string]string{}, count: map[string]int{}}
}

func (j *jsonChunks) run(g *engine.Graph, input any, modes []engine.StreamMode, opts ...engine.RunOption) []string {
	j.t.Helper()
	var out []string
	for p, err := range g.StreamModes(ctx, input, modes, opts...) {
		if err != nil {
			out = append(out, "error "+err.Error())
			break
		}
		switch p.Data.(type) {
		case engine.CheckpointChunk, engine.DebugChunk, engine.TaskChunk, engine.TaskResultChunk:
			out = append(out, j.line(p))
		}
	}
	return out
}

func (j *jsonChunks) line(p engine.StreamPart) string {
	j.t.Helper()
	kind := map[string]string{}
	data := p.Data
	if d, ok := data.(engine.DebugChunk); ok {
		data = d.Payload
	}
	var c engine.CheckpointChunk
	switch d := data.(type) {
	case engine.CheckpointChunk:
		c = d
	case engine.TaskChunk:
		kind[d.ID] = "t"
	case engine.TaskResultChunk:
		kind[d.ID] = "t"
		for _, in := range d.Interrupts {
			kind[in.ID] = "i"
		}
	}
	addCfg := func(cfg *engine.CheckpointConfig) {
		if cfg == nil {
			return
		}
		if id := cfg.Configurable.CheckpointID; id != "" {
			kind[id] = "cp"
		}
		for _, id := range cfg.Configurable.CheckpointMap {
			kind[id] = "cp"
		}
	}
	if c.Next != nil {
		addCfg(&c.Config)
		addCfg(c.ParentConfig)
	}
	for _, id := range c.Metadata.Parents {
		kind[id] = "cp"
	}
	for _, tk := range c.Tasks {
		kind[tk.ID] = "t"
		for _, in := range tk.Interrupts {
			kind[in.ID] = "i"
		}
	}
	b, err := json.Marshal(p.Data)
	if err != nil {
		j.t.Fatal(err)
	}
	text := string(b)
	// Ids seen in earlier chunks (a parent task's id in a namespace).
	for id := range j.names {
		if _, ok := kind[id]; !ok && strings.Contains(text, id) {
			kind[id] = ""
		}
	}
	var alts []string
	for id := range kind {
		alts = append(alts, regexp.QuoteMeta(id))
	}
	if len(alts) > 0 {
		slices.SortFunc(alts, func(a, b string) int { return len(b) - len(a) })
		text = regexp.MustCompile(strings.Join(alts, "|")).ReplaceAllStringFunc(text, func(id string) string {
			if n, ok := j.names[id]; ok {
				return n
			}
			k := kind[id]
			n := fmt.Sprintf("%s%d", k, j.count[k])
			j.count[k]++
			j.names[id] = n
			return n
		})
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		j.t.Fatal(err)
	}
	if m, ok := v.(map[string]any); ok && p.Mode == engine.StreamDebug {
		m["timestamp"] = "TS"
	}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		j.t.Fatal(err)
	}
	ns := "-"
	if len(p.Namespace) > 0 {
		ns = strings.Join(p.Namespace, "|")
		for id, n := range j.names {
			ns = strings.ReplaceAll(ns, id, n)
		}
	}
	return fmt.Sprintf("%s %s %s", p.Mode, ns, strings.TrimSuffix(buf.String(), "\n"))
}

// The root graph's chunks, field for field: config (the checkpoint's
// address with the run's config: LangGraph.js's ls_integration label,
// thread_id, recursion_limit, tags), values, the checkpoint's whole
// metadata, next, tasks with their path, and parentConfig, left out for
// the input checkpoint. Expected: the oracle's scratch script s1.mjs
// with argument "ok" (a → b over an append key, MemorySaver, thread
// "t", streamMode ["checkpoints"]), through norm.py.
func TestStreamModes_CheckpointChunkJSON(t *testing.T) {
	j := newJSONChunks(t)
	got := j.run(cpGraph(t, false), map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "finished run", got, []string{
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp0","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"input","step":-1},"next":["__start__"],"tasks":[{"id":"t0","interrupts":[],"name":"__start__","path":["__pregel_pull","__start__"]}],"values":{"log":[]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":0},"next":["a"],"parentConfig":{"configurable":{"checkpoint_id":"cp0","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[{"id":"t1","interrupts":[],"name":"a","path":["__pregel_pull","a"]}],"values":{"log":[]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp2","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":1},"next":["b"],"parentConfig":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[{"id":"t2","interrupts":[],"name":"b","path":["__pregel_pull","b"]}],"values":{"log":["a"]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp3","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":2},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp2","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[],"values":{"log":["a","b"]}}`,
	})
	// The debug mode wraps the same payload with its step, and the task
	// chunks with theirs: a task start with its interrupts ([]) and the
	// run's metadata, a result with its error (null). Expected: s1.mjs
	// "ok" "debug" (streamMode ["debug"]), through norm.py.
	j = newJSONChunks(t)
	got = j.run(cpGraph(t, false), map[string]any{"log": []any{}}, []engine.StreamMode{engine.StreamDebug}, engine.OnThread("t"))
	wantLines(t, "debug", got, []string{
		`debug - {"payload":{"config":{"configurable":{"checkpoint_id":"cp0","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"input","step":-1},"next":["__start__"],"tasks":[{"id":"t0","interrupts":[],"name":"__start__","path":["__pregel_pull","__start__"]}],"values":{"log":[]}},"step":-1,"timestamp":"TS","type":"checkpoint"}`,
		`debug - {"payload":{"config":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":0},"next":["a"],"parentConfig":{"configurable":{"checkpoint_id":"cp0","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[{"id":"t1","interrupts":[],"name":"a","path":["__pregel_pull","a"]}],"values":{"log":[]}},"step":0,"timestamp":"TS","type":"checkpoint"}`,
		`debug - {"payload":{"id":"t1","input":{"log":[]},"interrupts":[],"metadata":{"ls_integration":"langgraph"},"name":"a","triggers":["branch:to:a"]},"step":1,"timestamp":"TS","type":"task"}`,
		`debug - {"payload":{"error":null,"id":"t1","interrupts":[],"name":"a","result":{"log":["a"]}},"step":1,"timestamp":"TS","type":"task_result"}`,
		`debug - {"payload":{"config":{"configurable":{"checkpoint_id":"cp2","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":1},"next":["b"],"parentConfig":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[{"id":"t2","interrupts":[],"name":"b","path":["__pregel_pull","b"]}],"values":{"log":["a"]}},"step":1,"timestamp":"TS","type":"checkpoint"}`,
		`debug - {"payload":{"id":"t2","input":{"log":["a"]},"interrupts":[],"metadata":{"ls_integration":"langgraph"},"name":"b","triggers":["branch:to:b"]},"step":2,"timestamp":"TS","type":"task"}`,
		`debug - {"payload":{"error":null,"id":"t2","interrupts":[],"name":"b","result":{"log":["b"]}},"step":2,"timestamp":"TS","type":"task_result"}`,
		`debug - {"payload":{"config":{"configurable":{"checkpoint_id":"cp3","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":2},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp2","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[],"values":{"log":["a","b"]}},"step":2,"timestamp":"TS","type":"checkpoint"}`,
	})
}

// An interrupted task's entry carries its interrupts, {id, value}, when
// the run resumes. Expected: s1.mjs "ask" (b calls interrupt("q?"), then
// the run resumes with Command({resume: "yes"})), through norm.py, with
// one change: LangGraph.js's first chunk of a run that loads a
// checkpoint has the parentConfig its saver handed back, the address
// alone; here parentConfig always has config's run fields, as in every
// other chunk (the address, what a consumer reads, is the same).
func TestStreamModes_CheckpointChunkJSONOfInterrupt(t *testing.T) {
	j := newJSONChunks(t)
	g := cpGraph(t, true)
	j.run(g, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"))
	got := j.run(g, engine.Command{Resume: "yes"}, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "resumed", got, []string{
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp2","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":1},"next":["b"],"parentConfig":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[{"id":"t2","interrupts":[{"id":"i0","value":"q?"}],"name":"b","path":["__pregel_pull","b"]}],"values":{"log":["a"]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp3","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":2},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp2","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[],"values":{"log":["a","b:yes"]}}`,
	})
}

// A failed task's entry carries its error as LangGraph.js saves it,
// {message, name}: the node's own error, not the NodeError around it;
// the sibling that finished carries its result. Expected: s1.mjs "fail"
// (a → b, c; b throws new Error("boom") after c returned; then the run
// resumes with null), through norm.py, with parentConfig's run fields
// as in TestStreamModes_CheckpointChunkJSONOfInterrupt.
func TestStreamModes_CheckpointChunkJSONOfFailure(t *testing.T) {
	g, fail, cResult := cpFailing(t)
	j := newJSONChunks(t)
	first := j.run(g, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"), cResult)
	if len(first) != 4 || !strings.HasPrefix(first[3], "error ") {
		t.Fatalf("failed run: %q", first)
	}
	fail.Store(false)
	got := j.run(g, nil, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "resumed", got, []string{
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp2","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":1},"next":["b","c"],"parentConfig":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[{"error":{"message":"boom","name":"Error"},"id":"t2","interrupts":[],"name":"b","path":["__pregel_pull","b"]},{"id":"t3","interrupts":[],"name":"c","path":["__pregel_pull","c"],"result":{"log":["c"]}}],"values":{"log":["a"]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp3","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":2},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp2","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[],"values":{"log":["a","b","c"]}}`,
	})
}

// A subgraph's chunks, under its namespace: its config has the task's
// config (checkpoint_map, the task's langgraph_* metadata, run_name),
// and the task that runs it carries the subgraph's address as its state.
// Expected: the oracle's scratch script s2.mjs with argument "ok" (root
// node p runs a subgraph whose node s appends "s"; MemorySaver, thread
// "t", recursionLimit 10, streamMode ["checkpoints"], subgraphs: true),
// through norm.py, which drops the "__pregel_*" keys LangGraph.js's
// configurable carries inside a subgraph: its runtime's own objects
// (stream, abort signals, scratchpad, "[MemorySaver]"), no address.
func TestStreamModes_CheckpointChunkJSONOfSubgraph(t *testing.T) {
	g, _ := cpSubgraph(t, false)
	j := newJSONChunks(t)
	got := j.run(g, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"), engine.WithRecursionLimit(10), engine.WithSubgraphs())
	wantLines(t, "subgraph", got, []string{
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp0","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"metadata":{"parents":{},"source":"input","step":-1},"next":["__start__"],"tasks":[{"id":"t0","interrupts":[],"name":"__start__","path":["__pregel_pull","__start__"]}],"values":{"log":[]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"metadata":{"parents":{},"source":"loop","step":0},"next":["p"],"parentConfig":{"configurable":{"checkpoint_id":"cp0","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"tasks":[{"id":"t1","interrupts":[],"name":"p","path":["__pregel_pull","p"],"state":{"configurable":{"checkpoint_ns":"p:t1","thread_id":"t"}}}],"values":{"log":[]}}`,
		`checkpoints p:t1 {"config":{"configurable":{"checkpoint_id":"cp2","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"metadata":{"parents":{"":"cp1"},"source":"input","step":-1},"next":["__start__"],"tasks":[{"id":"t2","interrupts":[],"name":"__start__","path":["__pregel_pull","__start__"]}],"values":{"log":[]}}`,
		`checkpoints p:t1 {"config":{"configurable":{"checkpoint_id":"cp3","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"metadata":{"parents":{"":"cp1"},"source":"loop","step":0},"next":["s"],"parentConfig":{"configurable":{"checkpoint_id":"cp2","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"tasks":[{"id":"t3","interrupts":[],"name":"s","path":["__pregel_pull","s"]}],"values":{"log":[]}}`,
		`checkpoints p:t1 {"config":{"configurable":{"checkpoint_id":"cp4","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"metadata":{"parents":{"":"cp1"},"source":"loop","step":1},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp3","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"tasks":[],"values":{"log":["s"]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp5","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"metadata":{"parents":{},"source":"loop","step":1},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"tasks":[],"values":{"log":["s"]}}`,
	})
}

// An interrupt in a subgraph, resumed: the root's task p carries the
// interrupt and the subgraph's address, and the subgraph streams the
// checkpoint it resumes from, its task s with the interrupt. Expected:
// s2.mjs "ask" (s calls interrupt("q?"); the run resumes with
// Command({resume: "yes"})), through norm.py, with parentConfig's run
// fields as in TestStreamModes_CheckpointChunkJSONOfInterrupt (there
// LangGraph.js's first subgraph chunk also lacks the checkpoint_map its
// own config has).
func TestStreamModes_CheckpointChunkJSONOfSubgraphInterrupt(t *testing.T) {
	g, _ := cpSubgraph(t, true)
	j := newJSONChunks(t)
	first := j.run(g, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"), engine.WithRecursionLimit(10), engine.WithSubgraphs())
	if len(first) != 4 {
		t.Fatalf("interrupted run: %q", first)
	}
	got := j.run(g, engine.Command{Resume: "yes"}, onlyCheckpoints, engine.OnThread("t"), engine.WithRecursionLimit(10), engine.WithSubgraphs())
	wantLines(t, "resumed", got, []string{
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"metadata":{"parents":{},"source":"loop","step":0},"next":["p"],"parentConfig":{"configurable":{"checkpoint_id":"cp0","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"tasks":[{"id":"t1","interrupts":[{"id":"i0","value":"q?"}],"name":"p","path":["__pregel_pull","p"],"state":{"configurable":{"checkpoint_ns":"p:t1","thread_id":"t"}}}],"values":{"log":[]}}`,
		`checkpoints p:t1 {"config":{"configurable":{"checkpoint_id":"cp3","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"metadata":{"parents":{"":"cp1"},"source":"loop","step":0},"next":["s"],"parentConfig":{"configurable":{"checkpoint_id":"cp2","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"tasks":[{"id":"t3","interrupts":[{"id":"i0","value":"q?"}],"name":"s","path":["__pregel_pull","s"]}],"values":{"log":[]}}`,
		`checkpoints p:t1 {"config":{"configurable":{"checkpoint_id":"cp4","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"metadata":{"parents":{"":"cp1"},"source":"loop","step":1},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp3","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"tasks":[],"values":{"log":["s:yes"]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp5","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"metadata":{"parents":{},"source":"loop","step":1},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"tasks":[],"values":{"log":["s:yes"]}}`,
	})
}

// cpSubgraph is s2.mjs's graph: root node p runs a subgraph whose node s
// appends "s", or asks "q?" with Interrupt and appends "s:<answer>".
func cpSubgraph(t *testing.T, ask bool) (*engine.Graph, *engine.Graph) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s", func(ctx context.Context, _ any) (any, error) {
			if !ask {
				return engine.Pairs("log", []any{"s"}), nil
			}
			ans, err := engine.Interrupt(ctx, "q?")
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{"s:" + fmt.Sprint(ans)}), nil
		}).
		AddEdge(engine.Start, "s"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("p", sub).
		AddEdge(engine.Start, "p"))
	return g, sub
}

// The metadata a run is given (WithMetadata) is in its config's
// metadata, a subgraph's included. Expected: s2.mjs "ok" with META=1
// (metadata {user: "u1"}), whose configs' metadata add "user": "u1".
// (LangGraph.js 1.7.3 saves none of it in the checkpoint's own metadata;
// superstep saves it there as Metadata.Extra, so a root checkpoint's
// "metadata" has "user" too: what the checkpoint carries, streamed
// whole.)
func TestStreamModes_CheckpointChunkConfigMetadata(t *testing.T) {
	g, _ := cpSubgraph(t, false)
	var got []string
	for p, err := range g.StreamModes(ctx, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"), engine.WithSubgraphs(), engine.WithMetadata(map[string]any{"user": "u1"})) {
		if err != nil {
			t.Fatal(err)
		}
		c := p.Data.(engine.CheckpointChunk)
		md := c.Config.Metadata
		got = append(got, fmt.Sprint(len(p.Namespace), " ", md["ls_integration"], " ", md["user"], " ", md["thread_id"], " ", md["langgraph_node"], " ", c.Config.RunName))
	}
	wantLines(t, "config metadata", got, []string{
		"0 langgraph u1 t <nil> ", "0 langgraph u1 t <nil> ",
		"1 langgraph u1 t p p", "1 langgraph u1 t p p", "1 langgraph u1 t p p",
		"0 langgraph u1 t <nil> ",
	})
}

// A checkpoint's metadata streams whole: its Extra keys beside source,
// step and parents.
func TestCheckpointMetadata_MarshalJSON(t *testing.T) {
	b, err := json.Marshal(engine.CheckpointMetadata{Source: "loop", Step: 2, Extra: map[string]any{"user": "u1", "a": 1, "step": 9}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"source":"loop","step":2,"parents":{},"a":1,"user":"u1"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if _, err := json.Marshal(engine.CheckpointMetadata{Extra: map[string]any{"f": func() {}}}); err == nil || !strings.Contains(err.Error(), `"f"`) {
		t.Errorf("unencodable extra: %v", err)
	}
}

// cpFailing is s1.mjs "fail"'s graph: a → b, c over an append key; b
// fails with "boom" until fail is set to false, once c's result was
// streamed: a run of it takes the option returned, which says when
// (its streamer hears of c's result after the run's StreamModes one).
func cpFailing(t *testing.T) (*engine.Graph, *atomic.Bool, engine.RunOption) {
	fail := new(atomic.Bool)
	fail.Store(true)
	cStreamed := make(chan struct{})
	var once sync.Once
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"a"}), nil }).
		AddNode("b", func(context.Context, any) (any, error) {
			if fail.Load() {
				<-cStreamed
				return nil, errors.New("boom")
			}
			return engine.Pairs("log", []any{"b"}), nil
		}).
		AddNode("c", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"c"}), nil }).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("a", "c"))
	cResult := engine.WithStreamParts(g, []engine.StreamMode{engine.StreamTasks}, func(p engine.StreamPart) {
		if r, ok := p.Data.(engine.TaskResultChunk); ok && r.Name == "c" {
			once.Do(func() { close(cStreamed) })
		}
	})
	return g, fail, cResult
}

// The tasks chunks, field for field: a start with its interrupts ([])
// and the run's metadata, a result with its error, null or the node's
// own error as {message, name}. Expected: s1.mjs "fail" "tasks"
// (streamMode ["tasks"]) and s2.mjs "ok" "tasks" with META=1 (a
// subgraph's, metadata {user: "u1"}), through norm.py.
func TestStreamModes_TaskChunkJSON(t *testing.T) {
	g, fail, cResult := cpFailing(t)
	tasks := []engine.StreamMode{engine.StreamTasks}
	j := newJSONChunks(t)
	got := j.run(g, map[string]any{"log": []any{}}, tasks, engine.OnThread("t"), cResult)
	fail.Store(false)
	got = append(got, j.run(g, nil, tasks, engine.OnThread("t"))...)
	wantLines(t, "failed and resumed", got, []string{
		`tasks - {"id":"t0","input":{"log":[]},"interrupts":[],"metadata":{"ls_integration":"langgraph"},"name":"a","triggers":["branch:to:a"]}`,
		`tasks - {"error":null,"id":"t0","interrupts":[],"name":"a","result":{"log":["a"]}}`,
		`tasks - {"id":"t1","input":{"log":["a"]},"interrupts":[],"metadata":{"ls_integration":"langgraph"},"name":"b","triggers":["branch:to:b"]}`,
		`tasks - {"id":"t2","input":{"log":["a"]},"interrupts":[],"metadata":{"ls_integration":"langgraph"},"name":"c","triggers":["branch:to:c"]}`,
		`tasks - {"error":null,"id":"t2","interrupts":[],"name":"c","result":{"log":["c"]}}`,
		`tasks - {"error":{"message":"boom","name":"Error"},"id":"t1","interrupts":[],"name":"b","result":{}}`,
		`error node "b" failed at step 2: boom`,
		`tasks - {"id":"t1","input":{"log":["a"]},"interrupts":[],"metadata":{"ls_integration":"langgraph"},"name":"b","triggers":["branch:to:b"]}`,
		`tasks - {"id":"t2","input":{"log":["a"]},"interrupts":[],"metadata":{"ls_integration":"langgraph"},"name":"c","triggers":["branch:to:c"]}`,
		`tasks - {"error":null,"id":"t1","interrupts":[],"name":"b","result":{"log":["b"]}}`,
	})
	root, _ := cpSubgraph(t, false)
	j = newJSONChunks(t)
	got = j.run(root, map[string]any{"log": []any{}}, tasks, engine.OnThread("t"), engine.WithRecursionLimit(10), engine.WithSubgraphs(), engine.WithMetadata(map[string]any{"user": "u1", "thread_id": "x", "langgraph_node": "x"}))
	wantLines(t, "subgraph", got, []string{
		`tasks - {"id":"t0","input":{"log":[]},"interrupts":[],"metadata":{"ls_integration":"langgraph","user":"u1"},"name":"p","triggers":["branch:to:p"]}`,
		`tasks p:t0 {"id":"t1","input":{"log":[]},"interrupts":[],"metadata":{"ls_integration":"langgraph","user":"u1"},"name":"s","triggers":["branch:to:s"]}`,
		`tasks p:t0 {"error":null,"id":"t1","interrupts":[],"name":"s","result":{"log":["s"]}}`,
		`tasks - {"error":null,"id":"t0","interrupts":[],"name":"p","result":{"log":["s"]}}`,
	})
}

// sendsGraph is a → z, and a sends w twice, with x: 1 and x: 2.
func sendsGraph(t *testing.T) *engine.Graph {
	t.Helper()
	return mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"a"}), nil }).
		AddNode("z", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"z"}), nil }).
		AddNode("w", func(_ context.Context, in any) (any, error) {
			return engine.Pairs("log", []any{fmt.Sprint("w", in.(map[string]any)["x"])}), nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "z").
		AddConditionalEdges("a", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "w", Arg: map[string]any{"x": 1.0}}, engine.Send{Node: "w", Arg: map[string]any{"x": 2.0}}}, nil
		}, "w"))
}

// A Send's task has the path [PUSH, index, false]. Expected: the
// oracle's scratch script s3.mjs (a → z, and a sends w twice with x: 1
// and x: 2; MemorySaver, thread "t", streamMode ["checkpoints"]),
// through norm.py.
func TestStreamModes_CheckpointChunkJSONOfSends(t *testing.T) {
	g := sendsGraph(t)
	got := newJSONChunks(t).run(g, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"))
	wantLines(t, "sends", got, []string{
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp0","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"input","step":-1},"next":["__start__"],"tasks":[{"id":"t0","interrupts":[],"name":"__start__","path":["__pregel_pull","__start__"]}],"values":{"log":[]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":0},"next":["a"],"parentConfig":{"configurable":{"checkpoint_id":"cp0","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[{"id":"t1","interrupts":[],"name":"a","path":["__pregel_pull","a"]}],"values":{"log":[]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp2","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":1},"next":["w","w","z"],"parentConfig":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[{"id":"t2","interrupts":[],"name":"w","path":["__pregel_push",0,false]},{"id":"t3","interrupts":[],"name":"w","path":["__pregel_push",1,false]},{"id":"t4","interrupts":[],"name":"z","path":["__pregel_pull","z"]}],"values":{"log":["a"]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp3","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"metadata":{"parents":{},"source":"loop","step":2},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp2","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":25,"tags":[]},"tasks":[],"values":{"log":["a","z","w1","w2"]}}`,
	})
}

// A subgraph's failure: resumed, the root's task p carries the error
// the subgraph's node returned and no state (a failed task has none),
// and the subgraph's task s the same error. Expected: s2.mjs "fail" (s
// throws new Error("boom") in the first run; the run resumes with
// null), the resumed run's chunks through norm.py, with parentConfig's
// run fields (and checkpoint map) as in
// TestStreamModes_CheckpointChunkJSONOfSubgraphInterrupt.
func TestStreamModes_CheckpointChunkJSONOfSubgraphFailure(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s", func(context.Context, any) (any, error) {
			if fail.Load() {
				return nil, errors.New("boom")
			}
			return engine.Pairs("log", []any{"s"}), nil
		}).
		AddEdge(engine.Start, "s"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("p", sub).
		AddEdge(engine.Start, "p"))
	j := newJSONChunks(t)
	opts := []engine.RunOption{engine.OnThread("t"), engine.WithRecursionLimit(10), engine.WithSubgraphs()}
	first := j.run(g, map[string]any{"log": []any{}}, onlyCheckpoints, opts...)
	if len(first) != 5 || !strings.HasPrefix(first[4], "error ") {
		t.Fatalf("failed run: %q", first)
	}
	fail.Store(false)
	got := j.run(g, nil, onlyCheckpoints, opts...)
	wantLines(t, "resumed", got, []string{
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"metadata":{"parents":{},"source":"loop","step":0},"next":["p"],"parentConfig":{"configurable":{"checkpoint_id":"cp0","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"tasks":[{"error":{"message":"boom","name":"Error"},"id":"t1","interrupts":[],"name":"p","path":["__pregel_pull","p"]}],"values":{"log":[]}}`,
		`checkpoints p:t1 {"config":{"configurable":{"checkpoint_id":"cp3","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"metadata":{"parents":{"":"cp1"},"source":"loop","step":0},"next":["s"],"parentConfig":{"configurable":{"checkpoint_id":"cp2","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"tasks":[{"error":{"message":"boom","name":"Error"},"id":"t3","interrupts":[],"name":"s","path":["__pregel_pull","s"]}],"values":{"log":[]}}`,
		`checkpoints p:t1 {"config":{"configurable":{"checkpoint_id":"cp4","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"metadata":{"parents":{"":"cp1"},"source":"loop","step":1},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp3","checkpoint_map":{"":"cp1"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"tasks":[],"values":{"log":["s"]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_id":"cp5","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"metadata":{"parents":{},"source":"loop","step":1},"next":[],"parentConfig":{"configurable":{"checkpoint_id":"cp1","checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"tasks":[],"values":{"log":["s"]}}`,
	})
}

// WithStreamParts's task chunks forward the run's metadata wherever
// WithMetadata stands among the options.
func TestWithStreamParts_TaskMetadataOfLaterOption(t *testing.T) {
	g := cpGraph(t, false)
	var mu sync.Mutex
	var got []string
	parts := engine.WithStreamParts(g, []engine.StreamMode{engine.StreamTasks}, func(p engine.StreamPart) {
		if c, ok := p.Data.(engine.TaskChunk); ok {
			mu.Lock()
			got = append(got, fmt.Sprint(c.Name, " ", c.Metadata["user"], " ", c.Metadata["ls_integration"]))
			mu.Unlock()
		}
	})
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"), parts, engine.WithMetadata(map[string]any{"user": "u1"})); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "task metadata", got, []string{"a u1 langgraph", "b u1 langgraph"})
}

// Under exit durability no checkpoint is saved until the run ends: the
// chunks' config has no checkpoint_id and none has a parentConfig, and
// a subgraph's checkpoint map names the root's checkpoint in memory.
// Expected: s2.mjs "ok" "checkpoints" "exit" (durability "exit"),
// through norm.py.
func TestStreamModes_CheckpointChunkJSONUnderExitDurability(t *testing.T) {
	g, _ := cpSubgraph(t, false)
	got := newJSONChunks(t).run(g, map[string]any{"log": []any{}}, onlyCheckpoints, engine.OnThread("t"), engine.WithRecursionLimit(10), engine.WithSubgraphs(), engine.WithDurability(engine.DurabilityExit))
	wantLines(t, "exit durability", got, []string{
		`checkpoints - {"config":{"configurable":{"checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"metadata":{"parents":{},"source":"input","step":-1},"next":["__start__"],"tasks":[{"id":"t0","interrupts":[],"name":"__start__","path":["__pregel_pull","__start__"]}],"values":{"log":[]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"metadata":{"parents":{},"source":"loop","step":0},"next":["p"],"tasks":[{"id":"t1","interrupts":[],"name":"p","path":["__pregel_pull","p"],"state":{"configurable":{"checkpoint_ns":"p:t1","thread_id":"t"}}}],"values":{"log":[]}}`,
		`checkpoints p:t1 {"config":{"configurable":{"checkpoint_map":{"":"cp0"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"metadata":{"parents":{"":"cp0"},"source":"input","step":-1},"next":["__start__"],"tasks":[{"id":"t2","interrupts":[],"name":"__start__","path":["__pregel_pull","__start__"]}],"values":{"log":[]}}`,
		`checkpoints p:t1 {"config":{"configurable":{"checkpoint_map":{"":"cp0"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"metadata":{"parents":{"":"cp0"},"source":"loop","step":0},"next":["s"],"tasks":[{"id":"t3","interrupts":[],"name":"s","path":["__pregel_pull","s"]}],"values":{"log":[]}}`,
		`checkpoints p:t1 {"config":{"configurable":{"checkpoint_map":{"":"cp0"},"checkpoint_ns":"p:t1","thread_id":"t"},"metadata":{"checkpoint_ns":"p:t1","langgraph_checkpoint_ns":"p:t1","langgraph_node":"p","langgraph_path":["__pregel_pull","p"],"langgraph_step":1,"langgraph_triggers":["branch:to:p"],"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"run_name":"p","tags":[]},"metadata":{"parents":{"":"cp0"},"source":"loop","step":1},"next":[],"tasks":[],"values":{"log":["s"]}}`,
		`checkpoints - {"config":{"configurable":{"checkpoint_ns":"","thread_id":"t"},"metadata":{"ls_integration":"langgraph","thread_id":"t"},"recursion_limit":10,"tags":[]},"metadata":{"parents":{},"source":"loop","step":1},"next":[],"tasks":[],"values":{"log":["s"]}}`,
	})
}

// A saved error no run of the engine wrote (an imported LangGraph.js
// thread's {message, name}) streams as it was saved; text alone streams
// with the name "Error".
func TestStreamModes_CheckpointChunkForeignError(t *testing.T) {
	for _, tc := range []struct {
		saved any
		want  engine.TaskError
	}{
		{map[string]any{"message": "bad", "name": "TypeError"}, engine.TaskError{Message: "bad", Name: "TypeError"}},
		{"bad text", engine.TaskError{Message: "bad text", Name: "Error"}},
	} {
		g := cpGraph(t, false, engine.WithInterruptBefore("b"))
		if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t")); err != nil {
			t.Fatal(err)
		}
		snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
		if err != nil || len(snap.Tasks) != 1 {
			t.Fatalf("state: %v %+v", err, snap)
		}
		if err := g.Saver().PutWrites(ctx, snap.Config, snap.Tasks[0].ID, []engine.Write{{Channel: engine.ErrorChannel, Value: tc.saved}}); err != nil {
			t.Fatal(err)
		}
		var got *engine.TaskError
		for p, err := range g.StreamModes(ctx, nil, onlyCheckpoints, engine.OnThread("t")) {
			if err != nil {
				t.Fatal(err)
			}
			if c := p.Data.(engine.CheckpointChunk); got == nil && len(c.Tasks) == 1 {
				got = c.Tasks[0].Error
			}
		}
		if got == nil || *got != tc.want {
			t.Errorf("saved %v: error %+v, want %+v", tc.saved, got, tc.want)
		}
	}
}
