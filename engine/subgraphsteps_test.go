package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
)

// stepLog records the views a hook sees as "namespace-node phase status".
type stepLog struct {
	mu    sync.Mutex
	lines []string
}

func (s *stepLog) hook(_ context.Context, v *engine.StepView) error {
	ns := "root"
	if v.Namespace != "" {
		ns = engine.NamespaceNodes(v.Namespace)
	}
	s.mu.Lock()
	s.lines = append(s.lines, fmt.Sprintf("%s %d %v %s", ns, v.Step, v.Phase, v.Status))
	s.mu.Unlock()
	return nil
}

func subgraphStepsGraph(t *testing.T) *engine.Graph {
	t.Helper()
	inner := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("deep", func(context.Context, any) (any, error) { return map[string]any{"log": []any{"deep"}}, nil }).
		AddEdge(engine.Start, "deep"))
	mid := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("m", func(context.Context, any) (any, error) { return map[string]any{"log": []any{"m"}}, nil }).
		AddSubgraph("inner", inner).
		AddEdge(engine.Start, "m").AddEdge("m", "inner"))
	return mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("mid", mid).AddEdge(engine.Start, "mid"),
		engine.WithSaver(engine.NewMemorySaver()))
}

// WithSubgraphSteps shows a hook every subgraph run's phases, nested
// ones included, inside the parent's Execute phase: the first view of a
// subgraph run comes after its parent planned the task running it, and
// the parent's Execute ends after the subgraph's last view. Without it
// the hook sees the root only.
func TestWithSubgraphSteps_HookSeesNestedPhases(t *testing.T) {
	ctx := context.Background()
	g := subgraphStepsGraph(t)
	plain := &stepLog{}
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("plain"), engine.WithHook(plain.hook)); err != nil {
		t.Fatal(err)
	}
	for _, l := range plain.lines {
		if !strings.HasPrefix(l, "root ") {
			t.Fatalf("without WithSubgraphSteps the hook saw %q", l)
		}
	}
	stepped := &stepLog{}
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("stepped"), engine.WithHook(stepped.hook), engine.WithSubgraphSteps())
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("%v %v", res, err)
	}
	got := strings.Join(stepped.lines, "\n")
	// The root's superstep 1 runs mid; mid's superstep 2 runs inner.
	want := []string{
		"root 1 PLAN running",
		"mid 0 UPDATE running", // mid's input checkpoint
		"mid 2 PLAN running",
		"mid|inner 0 UPDATE running",
		"mid|inner 1 PLAN running",
		"mid|inner 1 EXECUTE running",
		"mid|inner 2 UPDATE done",
		"mid 2 EXECUTE running",
		"mid 3 UPDATE done",
		"root 1 EXECUTE running",
	}
	at := 0
	for _, l := range stepped.lines {
		if at < len(want) && l == want[at] {
			at++
		}
	}
	if at < len(want) {
		t.Fatalf("views:\n%s\nlack, in this order, %q (and what follows)", got, want[at])
	}
	if len(stepped.lines) <= len(plain.lines) {
		t.Fatalf("stepping into subgraphs saw %d views, the root alone %d", len(stepped.lines), len(plain.lines))
	}
}

// A hook error inside a subgraph run ends it, and fails the run with it;
// a hook that blocks in a subgraph run returns when the superstep
// abandons the task (a sibling failed).
func TestWithSubgraphSteps_HookErrorsAndAbandonment(t *testing.T) {
	ctx := context.Background()
	g := subgraphStepsGraph(t)
	stop := errors.New("person quit")
	_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("quit"), engine.WithSubgraphSteps(),
		engine.WithHook(func(_ context.Context, v *engine.StepView) error {
			if strings.Contains(v.Namespace, "inner") {
				return stop
			}
			return nil
		}))
	if !errors.Is(err, stop) {
		t.Fatalf("err %v, want the hook's", err)
	}

	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s", func(context.Context, any) (any, error) { return map[string]any{"log": []any{"s"}}, nil }).
		AddEdge(engine.Start, "s"))
	boom := errors.New("boom")
	held := make(chan struct{})
	g2 := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub).
		AddNode("bad", func(context.Context, any) (any, error) {
			<-held // fails once the subgraph's hook holds it
			return nil, boom
		}).
		AddEdge(engine.Start, "sub").AddEdge(engine.Start, "bad"),
		engine.WithSaver(engine.NewMemorySaver()))
	var once sync.Once
	_, err = g2.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"), engine.WithSubgraphSteps(),
		engine.WithHook(func(hctx context.Context, v *engine.StepView) error {
			if v.Namespace == "" {
				return nil
			}
			once.Do(func() { close(held) })
			<-hctx.Done() // a person who never steps on
			return context.Cause(hctx)
		}))
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want the sibling's failure", err)
	}
}

// A subgraph run that fails shows the hook its failed last view, as one
// that ends otherwise does: a node that catches its declared subgraph's
// failure goes on, and a debugger holding the run knows it ended.
func TestWithSubgraphSteps_FailedRunShowsItsEnd(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s", func(context.Context, any) (any, error) { return nil, boom }).
		AddEdge(engine.Start, "s"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("caller", func(ctx context.Context, _ any) (any, error) {
			if _, err := engine.InvokeSubgraph(ctx, sub, map[string]any{"log": []any{}}); !errors.Is(err, boom) {
				return nil, fmt.Errorf("subgraph: %v", err)
			}
			return map[string]any{"log": []any{"caught"}}, nil
		}, engine.UsesSubgraph("sub", sub)).
		AddEdge(engine.Start, "caller"),
		engine.WithSaver(engine.NewMemorySaver()))
	var mu sync.Mutex
	var ends []engine.Status
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"), engine.WithSubgraphSteps(),
		engine.WithHook(func(_ context.Context, v *engine.StepView) error {
			if v.Namespace != "" && v.Status != engine.StatusRunning {
				mu.Lock()
				ends = append(ends, v.Status)
				mu.Unlock()
			}
			return nil
		}))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("%v %v", res, err)
	}
	if len(ends) != 1 || ends[0] != engine.StatusFailed {
		t.Fatalf("the hook saw the subgraph run end %v, want once, failed", ends)
	}
}

// A subgraph run that stops at an interrupt keeps its state as its
// checkpoint holds it: the finished sibling's writes stay pending, not
// applied, as LangGraph applies them for the root's output only. A
// debugger stepping the subgraph shows the state its checkpoint has.
func TestWithSubgraphSteps_InterruptedRunShowsItsCheckpointState(t *testing.T) {
	ctx := context.Background()
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(context.Context, any) (any, error) { return map[string]any{"log": []any{"a"}}, nil }).
		AddNode("q", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Interrupt(ctx, "ok?")
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{v}}, nil
		}).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "q"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub).AddEdge(engine.Start, "sub"),
		engine.WithSaver(engine.NewMemorySaver()))
	var last *engine.StepView
	res, err := g.Invoke(ctx, map[string]any{"log": []any{"in"}}, engine.OnThread("t"), engine.WithSubgraphSteps(),
		engine.WithHook(func(_ context.Context, v *engine.StepView) error {
			if v.Namespace != "" {
				last = v
			}
			return nil
		}))
	if err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("%v %v", res, err)
	}
	if last == nil || last.Status != engine.StatusInterrupted {
		t.Fatalf("the subgraph's last view %+v, want interrupted", last)
	}
	if got := fmt.Sprint(last.Values["log"]); got != "[in]" {
		t.Fatalf("the interrupted subgraph's state log=%s, want [in] (a's write pending, not applied)", got)
	}
	if got := fmt.Sprint(res.Values["log"]); got != "[in]" {
		// The root's own superstep wrote nothing: sub interrupted.
		t.Fatalf("root log=%s", got)
	}
}
