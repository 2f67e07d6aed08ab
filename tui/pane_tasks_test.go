package tui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// A failed step run again plans the tasks that finished with their saved
// writes: the tasks pane says they are reused at Plan, as the graph pane
// does; it said so by colour alone.
func TestModel_Tasks_PlannedReusedSaysSo(t *testing.T) {
	var vCalls atomic.Int32
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("w", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"w"}), nil }).
		AddNode("v", func(context.Context, any) (any, error) {
			if vCalls.Add(1) == 1 {
				time.Sleep(200 * time.Millisecond) // w finishes first
				return nil, errors.New("upstream 503")
			}
			return engine.Pairs("log", []any{"v"}), nil
		}).
		AddEdge(engine.Start, "w").
		AddEdge(engine.Start, "v").
		Compile(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t", Input: map[string]any{"log": []any{}}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusFailed {
		t.Fatalf("status %v err %v", m.view.Status, m.err)
	}
	m = press(t, m, "n")
	if m.view.Phase != engine.PhasePlanned {
		t.Fatalf("phase %v err %v", m.view.Phase, m.err)
	}
	var w, v string
	for _, r := range m.tasks.rows {
		switch {
		case strings.HasPrefix(r.text, "w "):
			w = r.text
		case strings.HasPrefix(r.text, "v "):
			v = r.text
		}
	}
	if !strings.Contains(w, "reused") || strings.Contains(v, "reused") {
		t.Fatalf("planned rows: w %q, v %q", w, v)
	}
}

// The row under a failed task says what failed inside it, which the
// engine's NodeError wraps: its own row names the node and the pane's
// title the step. At 80 columns the row read ✗ node "summarize" failed at
// step 4…, the cause cut whole.
func TestTasksPane_ErrorRowSaysTheCause(t *testing.T) {
	m, _ := replayedFailure(t, 80, 24)
	m = press(t, m, "esc")
	if v := m.View(); !strings.Contains(v, "│summarize failed") || !strings.Contains(v, "│  ✗ upstream model returned 503") {
		t.Errorf("the failed task's rows:\n%s", v)
	}
	cause := errors.New("upstream model returned 503")
	for _, c := range []struct {
		err  error
		want string
	}{
		{&engine.NodeError{Node: "s", Step: 4, Err: cause}, "upstream model returned 503"},
		{&engine.NodeError{Node: "s", Step: 4, Attempts: 3, Err: cause}, "after 3 attempts: upstream model returned 503"},
		{&engine.NodeError{Node: "s", Step: 4, Panic: true, Err: &engine.PanicError{Value: "boom", At: "main.s, s.go:9"}}, "panicked: boom (main.s, s.go:9)"},
		// A Task call's failure names the call's node: kept whole.
		{&engine.NodeError{Node: "call", Step: 4, Err: cause}, `node "call" failed at step 4: upstream model returned 503`},
		{cause, "upstream model returned 503"},
	} {
		if got := errorCause("s", c.err); got != c.want {
			t.Errorf("errorCause(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
