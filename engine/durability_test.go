package engine_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
)

// callLog is a MemorySaver that logs, in order, the checkpoints and writes
// the engine stores, and can fail its Puts.
type callLog struct {
	*engine.MemorySaver
	mu      sync.Mutex
	log     []string
	failPut error
	lastNV  map[string]engine.Version // the newVersions of the last Put
}

func newCallLog() *callLog { return &callLog{MemorySaver: engine.NewMemorySaver()} }

func (s *callLog) note(e string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, e)
}

func (s *callLog) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *callLog) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	chans := make([]string, len(writes))
	for i, w := range writes {
		chans[i] = w.Channel
	}
	s.note(fmt.Sprintf("writes %s%s", nsTag(cfg), strings.Join(chans, ",")))
	return s.MemorySaver.PutWrites(ctx, cfg, taskID, writes)
}

func (s *callLog) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, nv map[string]engine.Version) (engine.Config, error) {
	s.note(fmt.Sprintf("put %s%s %d", nsTag(cfg), md.Source, md.Step))
	s.mu.Lock()
	s.lastNV = nv
	s.mu.Unlock()
	if s.failPut != nil {
		return engine.Config{}, s.failPut
	}
	return s.MemorySaver.Put(ctx, cfg, cp, md, nv)
}

func nsTag(cfg engine.Config) string {
	if cfg.CheckpointNS == "" {
		return ""
	}
	return strings.SplitN(cfg.CheckpointNS, ":", 2)[0] + "/"
}

// chainGraph is a → b → c, each appending its name to log; b interrupts
// when ask is set.
func chainGraph(t *testing.T, s engine.Saver, ask bool) *engine.Graph {
	t.Helper()
	node := func(name string) engine.NodeFunc {
		return func(ctx context.Context, _ any) (any, error) {
			if ask && name == "b" {
				ans, err := engine.Interrupt(ctx, "b?")
				if err != nil {
					return nil, err
				}
				return engine.Pairs("log", []any{"b:" + ans.(string)}), nil
			}
			return engine.Pairs("log", []any{name}), nil
		}
	}
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", node("a")).AddNode("b", node("b")).AddNode("c", node("c")).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", engine.End).
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func history(t *testing.T, g *engine.Graph, thread string) []*engine.StateSnapshot {
	t.Helper()
	h, err := g.History(context.Background(), engine.Config{ThreadID: thread}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestDurabilityExit_OneCheckpointAtTheEnd: an exit run stores nothing
// while it runs and one checkpoint at its end, with the metadata of its
// last superstep and no parent on a new thread; the steps still count.
func TestDurabilityExit_OneCheckpointAtTheEnd(t *testing.T) {
	s := newCallLog()
	g := chainGraph(t, s, false)
	res, err := g.Invoke(context.Background(), map[string]any{"log": []any{}}, engine.OnThread("x"), engine.WithDurability(engine.DurabilityExit))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Values["log"]); got != "[a b c]" {
		t.Fatalf("values %s", got)
	}
	if got, want := s.calls(), []string{"put loop 3"}; !slices.Equal(got, want) {
		t.Fatalf("saver calls %q, want %q", got, want)
	}
	h := history(t, g, "x")
	if len(h) != 1 || h[0].Metadata.Step != 3 || h[0].Metadata.Source != engine.SourceLoop || h[0].ParentID != "" {
		t.Fatalf("history %+v", h)
	}
	if h[0].Config.CheckpointID != res.Checkpoint.CheckpointID {
		t.Fatalf("result addresses %s, saved %s", res.Checkpoint.CheckpointID, h[0].Config.CheckpointID)
	}
	if got := fmt.Sprint(h[0].Values["log"]); got != "[a b c]" {
		t.Fatalf("saved values %s", got)
	}
}

// TestDurabilityExit_InterruptThenResume: an interrupted exit run stores
// the state its last superstep started from and the interrupt write; the
// resume starts from that checkpoint and stores one more, its child.
func TestDurabilityExit_InterruptThenResume(t *testing.T) {
	ctx := context.Background()
	s := newCallLog()
	g := chainGraph(t, s, true)
	exit := engine.WithDurability(engine.DurabilityExit)
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("x"), exit)
	if err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("%v %v", res.Status, err)
	}
	if got, want := s.calls(), []string{"put loop 1", "writes __interrupt__"}; !slices.Equal(got, want) {
		t.Fatalf("saver calls %q, want %q", got, want)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(snap.Next, []string{"b"}) || len(snap.Interrupts()) != 1 {
		t.Fatalf("state next %v interrupts %v", snap.Next, snap.Interrupts())
	}
	first := snap.Config.CheckpointID
	firstCP, err := s.GetTuple(ctx, engine.Config{ThreadID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(s.lastNV, firstCP.Checkpoint.ChannelVersions) {
		t.Fatalf("new versions %v, want every version of a new thread %v", s.lastNV, firstCP.Checkpoint.ChannelVersions)
	}
	res, err = g.Invoke(ctx, engine.Command{Resume: "yes"}, engine.OnThread("x"), exit)
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("%v %v", res.Status, err)
	}
	if got := fmt.Sprint(res.Values["log"]); got != "[a b:yes c]" {
		t.Fatalf("values %s", got)
	}
	// The resume's one Put lists the channels changed since the
	// checkpoint it started from (getNewChannelVersions, loop.js:1036).
	last, err := s.GetTuple(ctx, engine.Config{ThreadID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	for c, v := range last.Checkpoint.ChannelVersions {
		old, had := firstCP.Checkpoint.ChannelVersions[c]
		if nv, listed := s.lastNV[c]; listed != (!had || old != v) || listed && nv != v {
			t.Errorf("channel %s: version %d (was %d), listed %v", c, v, old, listed)
		}
	}
	h := history(t, g, "x")
	if len(h) != 2 || h[0].ParentID != first || h[0].Metadata.Step != 3 {
		t.Fatalf("history %+v", h)
	}
}

// TestDurabilityExit_Error: a failed exit run stores its checkpoint and
// the failed superstep's writes (the error); a saver failure at the end
// fails a run that had not failed.
func TestDurabilityExit_Error(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	s := newCallLog()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"a"}), nil }).
		AddNode("b", func(context.Context, any) (any, error) { return nil, boom }).
		AddEdge(engine.Start, "a").AddEdge("a", "b").
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("x"), engine.WithDurability(engine.DurabilityExit))
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if got, want := s.calls(), []string{"put loop 1", "writes __error__"}; !slices.Equal(got, want) {
		t.Fatalf("saver calls %q, want %q", got, want)
	}

	s2 := newCallLog()
	s2.failPut = errors.New("disk full")
	g2 := chainGraph(t, s2, false)
	res, err := g2.Invoke(ctx, map[string]any{"log": []any{}}, engine.WithDurability(engine.DurabilityExit), engine.OnThread("t"))
	if !errors.Is(err, s2.failPut) || res.Status != engine.StatusFailed {
		t.Fatalf("status %v err %v", res.Status, err)
	}
}

// TestDurability_SyncAsyncSameCalls: sync and async make the same saver
// calls in the same order (Put returns before the next superstep in
// both), and without a saver exit changes nothing.
func TestDurability_SyncAsyncSameCalls(t *testing.T) {
	var logs [][]string
	for _, d := range []engine.Durability{engine.DurabilityAsync, engine.DurabilitySync} {
		s := newCallLog()
		g := chainGraph(t, s, false)
		if _, err := g.Invoke(context.Background(), map[string]any{"log": []any{}}, engine.WithDurability(d), engine.OnThread("t")); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, s.calls())
	}
	if !slices.Equal(logs[0], logs[1]) || len(logs[0]) != 9 {
		t.Fatalf("async %q\nsync  %q", logs[0], logs[1])
	}
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"a"}), nil }).
		AddEdge(engine.Start, "a").Compile()
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(context.Background(), map[string]any{"log": []any{}}, engine.WithDurability(engine.DurabilityExit))
	if err != nil || fmt.Sprint(res.Values["log"]) != "[a]" {
		t.Fatalf("%v %v", res, err)
	}
}

// TestDurabilityExit_Subgraphs: a subgraph inherits exit; one that
// finishes in its task's namespace stores nothing, one interrupted stores
// its checkpoint and interrupt before its parent does.
func TestDurabilityExit_Subgraphs(t *testing.T) {
	ctx := context.Background()
	s := newCallLog()
	inner := func(ask bool) *engine.Graph {
		sg := engine.NewStateGraph(engine.AppendKey("log")).
			AddNode("i1", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"i1"}), nil }).
			AddNode("i2", func(ctx context.Context, _ any) (any, error) {
				if ask {
					if _, err := engine.Interrupt(ctx, "?"); err != nil {
						return nil, err
					}
				}
				return engine.Pairs("log", []any{"i2"}), nil
			}).
			AddEdge(engine.Start, "i1").AddEdge("i1", "i2")
		g, err := sg.Compile()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("quiet", inner(false)).AddSubgraph("asker", inner(true)).
		AddEdge(engine.Start, "quiet").AddEdge("quiet", "asker").
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	exit := engine.WithDurability(engine.DurabilityExit)
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("x"), exit); err != nil {
		t.Fatal(err)
	}
	want := []string{"put asker/loop 1", "writes asker/__interrupt__", "put loop 1", "writes __interrupt__"}
	if got := s.calls(); !slices.Equal(got, want) {
		t.Fatalf("saver calls %q, want %q", got, want)
	}
	res, err := g.Invoke(ctx, engine.Command{Resume: "ok"}, engine.OnThread("x"), exit)
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("%v %v", res, err)
	}
	if got := fmt.Sprint(res.Values["log"]); got != "[i1 i2 i1 i2 i1 i2]" {
		t.Fatalf("values %s", got)
	}
}

// TestDurabilityExit_Stepper: a Stepper's hook still stops at every phase
// of an exit run, the step advances in memory, and the saver sees the
// checkpoint only once the run has ended.
func TestDurabilityExit_Stepper(t *testing.T) {
	ctx := context.Background()
	s := newCallLog()
	g := chainGraph(t, s, false)
	var phases []string
	hook := func(_ context.Context, v *engine.StepView) error {
		phases = append(phases, fmt.Sprintf("%d:%s", v.Step, v.Phase))
		if v.Unsaved != (v.Status == engine.StatusRunning) {
			t.Errorf("step %d %s: unsaved %v with status %v", v.Step, v.Phase, v.Unsaved, v.Status)
		}
		return nil
	}
	st, err := g.Start(ctx, map[string]any{"log": []any{}}, engine.WithDurability(engine.DurabilityExit), engine.WithHook(hook), engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	for st.Status() == engine.StatusRunning {
		if len(s.calls()) != 0 {
			t.Fatalf("saved while running: %q", s.calls())
		}
		if err := st.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.calls(); !slices.Equal(got, []string{"put loop 3"}) {
		t.Fatalf("saver calls %q", got)
	}
	if len(phases) != 14 || phases[0] != "0:UPDATE" || phases[len(phases)-1] != "4:UPDATE" {
		t.Fatalf("phases %q", phases)
	}
	if err := st.Next(ctx); !errors.Is(err, engine.ErrRunFinished) {
		t.Fatalf("after the end: %v", err)
	}
}

func TestParseDurability(t *testing.T) {
	for _, d := range []engine.Durability{engine.DurabilityAsync, engine.DurabilitySync, engine.DurabilityExit} {
		got, err := engine.ParseDurability(d.String())
		if err != nil || got != d {
			t.Fatalf("%v: %v %v", d, got, err)
		}
	}
	if _, err := engine.ParseDurability("later"); !errors.Is(err, engine.ErrUnknownDurability) || !strings.Contains(err.Error(), `"later"`) {
		t.Fatalf("err %v", err)
	}
	g := chainGraph(t, engine.NewMemorySaver(), false)
	if _, err := g.Invoke(context.Background(), map[string]any{"log": []any{}}, engine.WithDurability(7), engine.OnThread("t")); !errors.Is(err, engine.ErrUnknownDurability) {
		t.Fatalf("err %v", err)
	}
}

// TestDurabilityExit_HookStops: a hook that stops an exit run ends it
// with its error, and the run still writes its checkpoint (LangGraph
// saves at exit on any error, loop.js:714).
func TestDurabilityExit_HookStops(t *testing.T) {
	ctx := context.Background()
	s := newCallLog()
	g := chainGraph(t, s, false)
	stop := errors.New("stop here")
	hook := func(_ context.Context, v *engine.StepView) error {
		if v.Step == 2 && v.Phase == engine.PhasePlanned {
			return stop
		}
		return nil
	}
	_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("x"), engine.WithDurability(engine.DurabilityExit), engine.WithHook(hook))
	if !errors.Is(err, stop) {
		t.Fatalf("err %v", err)
	}
	if got := s.calls(); !slices.Equal(got, []string{"put loop 1"}) {
		t.Fatalf("saver calls %q", got)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "x"})
	if err != nil || fmt.Sprint(snap.Values["log"]) != "[a]" || !slices.Equal(snap.Next, []string{"b"}) {
		t.Fatalf("state %v %v: %v", snap.Values, snap.Next, err)
	}
}

// TestDurabilityExit_Close: an exit run whose caller closes its Stepper
// after Execute saves the checkpoint it is at and its finished task's
// writes, and a resume of the thread reuses them instead of running the
// task again (_loop.py:1317-1335: the abandoned loop still saves).
func TestDurabilityExit_Close(t *testing.T) {
	ctx := context.Background()
	s := newCallLog()
	ran := map[string]int{}
	var mu sync.Mutex
	node := func(name string) engine.NodeFunc {
		return func(context.Context, any) (any, error) {
			mu.Lock()
			ran[name]++
			mu.Unlock()
			return engine.Pairs("log", []any{name}), nil
		}
	}
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", node("a")).AddNode("b", node("b")).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End).
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	st, err := g.Start(ctx, map[string]any{"log": []any{}}, engine.OnThread("x"), engine.WithDurability(engine.DurabilityExit))
	if err != nil {
		t.Fatal(err)
	}
	// Steps 0 (__start__) and 1 (a) whole, then step 2 (b) planned and
	// executed, not applied.
	for i := 0; i < 8; i++ {
		if err := st.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st.Phase() != engine.PhaseExecuted || len(s.calls()) != 0 {
		t.Fatalf("phase %v, saver calls %q", st.Phase(), s.calls())
	}
	if err := st.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := s.calls(), []string{"put loop 1", "writes log"}; !slices.Equal(got, want) {
		t.Fatalf("saver calls %q, want %q", got, want)
	}
	if !errors.Is(st.Err(), engine.ErrRunClosed) || st.Status() != engine.StatusFailed {
		t.Fatalf("closed run: %v %v", st.Status(), st.Err())
	}
	if err := st.Next(ctx); !errors.Is(err, engine.ErrRunFinished) {
		t.Fatalf("after Close: %v", err)
	}
	if err := st.Close(ctx); err != nil || len(s.calls()) != 2 {
		t.Fatalf("second Close: %v, calls %q", err, s.calls())
	}
	res, err := g.Invoke(ctx, nil, engine.OnThread("x"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Values["log"]); got != "[a b]" {
		t.Fatalf("resumed values %s", got)
	}
	if ran["a"] != 1 || ran["b"] != 1 {
		t.Fatalf("runs %v: the closed run's finished task must be reused", ran)
	}
}

// TestDurabilityExit_CloseSaveFails: Close returns the saver's error and
// the run ends with it.
func TestDurabilityExit_CloseSaveFails(t *testing.T) {
	ctx := context.Background()
	s := newCallLog()
	g := chainGraph(t, s, false)
	st, err := g.Start(ctx, map[string]any{"log": []any{}}, engine.WithDurability(engine.DurabilityExit), engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Next(ctx); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	s.failPut = boom
	if err := st.Close(ctx); !errors.Is(err, boom) || !errors.Is(st.Err(), boom) {
		t.Fatalf("Close: %v, run error %v", err, st.Err())
	}
}

// TestClose_AsyncSavesNothingMore: a default run saved every checkpoint
// as it went; Close only ends it.
func TestClose_AsyncSavesNothingMore(t *testing.T) {
	ctx := context.Background()
	s := newCallLog()
	g := chainGraph(t, s, false)
	st, err := g.Start(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Next(ctx); err != nil {
		t.Fatal(err)
	}
	before := s.calls()
	if err := st.Close(ctx); err != nil || !slices.Equal(s.calls(), before) || !errors.Is(st.Err(), engine.ErrRunClosed) {
		t.Fatalf("Close: %v, calls %q then %q, run error %v", err, before, s.calls(), st.Err())
	}
}
