package engine_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// writeLog is a Saver that records every PutWrites, and refuses those
// made once it was closed, as a store closed by its owner would.
type writeLog struct {
	engine.Saver
	mu     sync.Mutex
	writes []string // "taskID channel", in order
	closed bool
	late   []string // writes attempted after close
}

func (w *writeLog) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, wr := range writes {
		s := taskID + " " + wr.Channel
		if w.closed {
			w.late = append(w.late, s)
		} else {
			w.writes = append(w.writes, s)
		}
	}
	if w.closed {
		return errors.New("store closed")
	}
	return w.Saver.PutWrites(ctx, cfg, taskID, writes)
}

func (w *writeLog) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.writes)
}

func (w *writeLog) setClosed(c bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = c
}

// A Task call started by a node the caller abandons is abandoned with it:
// it saves its cancellation with its caller's, and what it returns later
// reaches no saver — not while the caller resumes the thread at once, not
// once the store is closed. The resumed run calls it again.
// LangGraph.js races a call against its caller's signal (the call's
// config takes the node's signal, @langchain/core ensureConfig) and
// commits it with its AbortError (eng25-probe/call.mjs).
func TestCancel_AbandonsTheTaskCallsOfAnAbandonedNode(t *testing.T) {
	for _, d := range []engine.Durability{engine.DurabilityAsync, engine.DurabilitySync, engine.DurabilityExit} {
		for _, memory := range []bool{false, true} {
			for _, lone := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/memory=%v/lone=%v", d, memory, lone), func(t *testing.T) {
					checkAbandonedCall(t, d, memory, lone)
				})
			}
		}
	}
}

func checkAbandonedCall(t *testing.T, d engine.Durability, memory, lone bool) {
	var inner engine.Saver = engine.NewMemorySaver()
	if !memory {
		inner = wrappedSaver{inner}
	}
	store := &writeLog{Saver: inner}
	var saver engine.Saver = store
	var callRuns atomic.Int32
	var lateCallErr atomic.Pointer[error]
	callStarted := make(chan struct{}, 1)
	release := make(chan struct{})
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	slow := func(_ context.Context, x string) (string, error) {
		if callRuns.Add(1) == 1 {
			callStarted <- struct{}{}
			<-release // ignores its context
		}
		return x + "!", nil
	}
	b := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("caller", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Task(ctx, "slowcall", slow, "c").Result() // waits, whatever ctx says
			// A call made after the node was abandoned fails at once.
			_, lerr := engine.Task(ctx, "after", func(context.Context, string) (string, error) { return "", nil }, "x").Result()
			if lerr != nil {
				lateCallErr.Store(&lerr)
			}
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{"caller:" + v}}, nil
		}).
		AddEdge(engine.Start, "caller")
	fastDone := make(chan struct{})
	if lone {
		close(fastDone)
	} else {
		b.AddNode("fast", func(context.Context, any) (any, error) {
			return map[string]any{"log": []any{"fast"}}, nil
		}).AddEdge(engine.Start, "fast")
	}
	g := mustCompile(t, b, engine.WithSaver(saver))
	before := runtime.NumGoroutine()
	invokeAndCancel(t, g, "a call", callStarted, fastDone, engine.WithDurability(d))
	// What the cancelled run saved: the caller's and the call's
	// cancellations (and fast's writes).
	first := store.count()
	tup, err := inner.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil || tup == nil {
		t.Fatalf("GetTuple: %v", err)
	}
	errorsSaved := 0
	for _, pw := range tup.PendingWrites {
		switch pw.Channel {
		case engine.ErrorChannel:
			errorsSaved++
			se := engine.ReadSavedError(pw.Value)
			if !errors.Is(se, context.Canceled) {
				t.Errorf("task %s saved %v, want a cancellation", pw.TaskID, se)
			}
		case engine.ReturnChannel:
			t.Errorf("the abandoned call saved a result: %+v", pw)
		}
	}
	if errorsSaved != 2 {
		t.Errorf("%d cancellations saved, want the caller's and its call's: %+v", errorsSaved, tup.PendingWrites)
	}
	// The caller resumes the thread at once: the call runs again.
	res, err := g.Invoke(ctx, nil, engine.OnThread("t"), engine.WithDurability(d))
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if n := callRuns.Load(); n != 2 {
		t.Errorf("the call ran %d times, want twice", n)
	}
	if got := fmt.Sprint(res.Values["log"]); got != map[bool]string{true: "[caller:c!]", false: "[caller:c! fast]"}[lone] {
		t.Errorf("log = %s", got)
	}
	resumed := store.count()
	if resumed == first && d != engine.DurabilityExit { // exit saves its writes with its checkpoint
		t.Errorf("the resumed run saved nothing")
	}
	// The store is closed; the abandoned call returns now.
	store.setClosed(true)
	close(release)
	released = true
	waitGoroutines(t, before)
	if p := lateCallErr.Load(); p == nil || !errors.Is(*p, context.Canceled) {
		t.Errorf("a call made by the abandoned node after the run returned: %v, want the cancellation", p)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.late) > 0 || len(store.writes) != resumed {
		t.Fatalf("the abandoned call saved after its run returned: late %v, writes %d → %d", store.late, resumed, len(store.writes))
	}
}

// The caller's cancellation in a bounded superstep settles the tasks not
// yet started as a failure does (TestMaxConcurrency_FailureCommitsUnstartedTasksEmpty):
// with other tasks running when it came, they are committed with no
// writes and do not run when the thread continues; with one task
// running, they save nothing and run then (LangGraph.js runner.ts:322-346
// fills free slots with tasks started on the aborted signal only while
// another task still executes; eng25-probe/bounded.mjs).
func TestMaxConcurrency_CancelCommitsUnstartedTasksAsAFailureDoes(t *testing.T) {
	for _, bound := range []int{1, 2} {
		t.Run(fmt.Sprint("bound=", bound), func(t *testing.T) {
			var mu sync.Mutex
			runs := map[string]int{}
			started := make(chan struct{}, 2)
			release := make(chan struct{})
			defer close(release)
			sends := []any{engine.Send{Node: "deaf", Arg: "d1"}}
			if bound == 2 {
				sends = append(sends, engine.Send{Node: "deaf", Arg: "d2"})
			}
			sends = append(sends, engine.Send{Node: "late", Arg: "l1"}, engine.Send{Node: "late", Arg: "l2"})
			count := func(name string) int {
				mu.Lock()
				defer mu.Unlock()
				runs[name]++
				return runs[name]
			}
			g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("fan", func(context.Context, any) (any, error) {
					return engine.Command{Goto: sends}, nil
				}, engine.WithEnds("deaf", "late")).
				AddNode("deaf", func(_ context.Context, in any) (any, error) {
					if count(in.(string)) == 1 {
						started <- struct{}{}
						<-release // ignores its context
					}
					return map[string]any{"log": []any{in}}, nil
				}).
				AddNode("late", func(_ context.Context, in any) (any, error) {
					count(in.(string))
					return map[string]any{"log": []any{in}}, nil
				}).
				AddEdge(engine.Start, "fan"), engine.WithSaver(engine.NewMemorySaver()))
			cctx, cancel := context.WithCancel(ctx)
			errc := make(chan error, 1)
			go func() {
				_, err := g.Invoke(cctx, map[string]any{}, engine.OnThread("t"), engine.WithMaxConcurrency(bound))
				errc <- err
			}()
			for range bound {
				<-started
			}
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want the cancellation", err)
			}
			snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range snap.Tasks {
				switch st.Name {
				case "deaf":
					if st.Finished || !errors.Is(st.Err, context.Canceled) {
						t.Errorf("deaf = %+v, want its cancellation", st)
					}
				case "late":
					if st.Finished != (bound == 2) || st.Err != nil {
						t.Errorf("late = %+v, want finished with no writes: %v", st, bound == 2)
					}
				}
			}
			res, err := g.Invoke(ctx, nil, engine.OnThread("t"), engine.WithMaxConcurrency(bound))
			if err != nil {
				t.Fatalf("continue: %v", err)
			}
			mu.Lock()
			lateRuns := runs["l1"] + runs["l2"]
			mu.Unlock()
			want := map[int]int{1: 2, 2: 0}[bound]
			if lateRuns != want {
				t.Errorf("late ran %d times, want %d (log %v)", lateRuns, want, res.Values["log"])
			}
		})
	}
}

// A task whose node returned but whose route ignores its context is
// abandoned on the caller's cancellation like one whose node ignores it:
// the run returns at once, the task saves the state writes made before
// the route with its cancellation (which count as its output when the
// thread continues), and nothing the route does later is saved
// (LangGraph.js races a route against the signal; eng25-probe/route.mjs).
func TestCancel_AbandonsATaskWhoseRouteIgnoresItsContext(t *testing.T) {
	for _, lone := range []bool{false, true} {
		for _, memory := range []bool{false, true} {
			t.Run(fmt.Sprintf("lone=%v/memory=%v", lone, memory), func(t *testing.T) {
				var inner engine.Saver = engine.NewMemorySaver()
				if !memory {
					inner = wrappedSaver{inner}
				}
				store := &writeLog{Saver: inner}
				var nodeRuns, routeRuns atomic.Int32
				routeStarted := make(chan struct{}, 1)
				release := make(chan struct{})
				released := false
				defer func() {
					if !released {
						close(release)
					}
				}()
				b := engine.NewStateGraph(engine.AppendKey("log")).
					AddNode("a", func(context.Context, any) (any, error) {
						nodeRuns.Add(1)
						return map[string]any{"log": []any{"a"}}, nil
					}).
					AddNode("b", appendLog("b")).
					AddEdge(engine.Start, "a").
					AddConditionalEdges("a", func(context.Context, map[string]any) (any, error) {
						if routeRuns.Add(1) == 1 {
							routeStarted <- struct{}{}
							<-release // ignores its context
						}
						return "b", nil
					}, "b", engine.End)
				fastDone := make(chan struct{})
				if lone {
					close(fastDone)
				} else {
					b.AddNode("fast", appendLog("fast")).AddEdge(engine.Start, "fast")
				}
				g := mustCompile(t, b, engine.WithSaver(store))
				before := runtime.NumGoroutine()
				invokeAndCancel(t, g, "a route", routeStarted, fastDone)
				tup, err := inner.GetTuple(ctx, engine.Config{ThreadID: "t"})
				if err != nil || tup == nil {
					t.Fatalf("GetTuple: %v", err)
				}
				var got []string
				for _, pw := range tup.PendingWrites {
					switch pw.Channel {
					case "log":
						got = append(got, fmt.Sprint(pw.Value))
					case engine.ErrorChannel:
						if se := engine.ReadSavedError(pw.Value); !errors.Is(se, context.Canceled) {
							t.Errorf("saved error %v, want a cancellation", se)
						}
						got = append(got, "error")
					default:
						got = append(got, pw.Channel)
					}
				}
				slices.Sort(got) // in the saver's order
				want := map[bool]string{true: "[[a] error]", false: "[[a] [fast] error]"}[lone]
				if fmt.Sprint(got) != want {
					t.Errorf("pending writes %v, want %s", got, want)
				}
				saved := store.count()
				store.setClosed(true)
				close(release)
				released = true
				waitGoroutines(t, before)
				store.setClosed(false)
				if n := store.count(); n != saved || len(store.late) > 0 {
					t.Fatalf("the abandoned route's task saved after its run returned: %v", store.late)
				}
				res, err := g.Invoke(ctx, nil, engine.OnThread("t"))
				if err != nil {
					t.Fatalf("continue: %v", err)
				}
				if nodeRuns.Load() != 1 || routeRuns.Load() != 1 {
					t.Errorf("a ran %d times, its route %d: its saved writes count as its output", nodeRuns.Load(), routeRuns.Load())
				}
				if n := len(res.Values["log"].([]any)); n != 2-btoi(lone) {
					t.Errorf("log = %v", res.Values["log"])
				}
			})
		}
	}
}

// invokeAndCancel runs g on thread "t" from an empty log under a context
// it cancels once deaf started and fast finished (fastDone closed, or a
// task named "fast" reported its result), and fails the test unless
// Invoke returns the cancellation at once, whatever deaf — the caller's
// code that ignores its context — still does.
func invokeAndCancel(t *testing.T, g *engine.Graph, deaf string, started <-chan struct{}, fastDone chan struct{}, opts ...engine.RunOption) {
	t.Helper()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	on := func(e engine.Event) {
		if e.Kind == engine.EventTaskResult && e.Node == "fast" {
			close(fastDone)
		}
	}
	errc := make(chan error, 1)
	go func() {
		_, err := g.Invoke(cctx, map[string]any{"log": []any{}}, append(opts, engine.OnThread("t"), engine.WithEvents(on))...)
		errc <- err
	}()
	<-started
	<-fastDone
	cancel()
	if err := returnsPromptly(t, errc, deaf+" that ignores its context after the caller cancelled"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
}

// A sibling's failure abandons the Task calls of the nodes it abandons,
// as the caller's cancellation does: the run fails at once and the call
// saves its cancellation by the failed task; what it returns later is
// saved nowhere.
func TestCancel_SiblingFailureAbandonsTaskCalls(t *testing.T) {
	callStarted := make(chan struct{})
	release := make(chan struct{})
	inner := engine.NewMemorySaver()
	store := &writeLog{Saver: wrappedSaver{inner}}
	deaf := func(context.Context, string) (string, error) {
		close(callStarted)
		<-release // ignores its context
		return "late", nil
	}
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("caller", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Task(ctx, "deafcall", deaf, "x").Result()
			return map[string]any{"log": []any{v}}, err
		}).
		AddNode("fails", func(context.Context, any) (any, error) {
			<-callStarted
			return nil, errBoom
		}).
		AddEdge(engine.Start, "caller").AddEdge(engine.Start, "fails"), engine.WithSaver(store))
	before := runtime.NumGoroutine()
	errc := make(chan error, 1)
	go func() {
		_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
		errc <- err
	}()
	select {
	case err := <-errc:
		if !errors.Is(err, errBoom) {
			t.Fatalf("err = %v, want fails's failure", err)
		}
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("the run waited for a call that ignores its context after a sibling failed")
	}
	tup, err := inner.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil || tup == nil {
		t.Fatalf("GetTuple: %v", err)
	}
	byCall := 0
	for _, pw := range tup.PendingWrites {
		var ce *engine.CancelledError
		var ne *engine.NodeError
		if se := engine.ReadSavedError(pw.Value); pw.Channel == engine.ErrorChannel && errors.As(se, &ce) && ce.By == "fails" && errors.As(se, &ne) && ne.Node == "deafcall" {
			byCall++
		}
	}
	if byCall != 1 {
		t.Errorf("want deafcall's cancellation by fails saved once: %+v", tup.PendingWrites)
	}
	store.setClosed(true)
	close(release)
	waitGoroutines(t, before)
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.late) > 0 {
		t.Fatalf("the abandoned call saved after its run returned: %v", store.late)
	}
}
