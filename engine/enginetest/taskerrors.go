package enginetest

import (
	"context"
	"errors"
	"time"

	"github.com/superstep/superstep/engine"
)

// testWritesTaskErrors runs graphs whose tasks end in each of the ways a
// task can fail and reads their saved errors back (after reopening, for a
// persistent saver): a reader asks errors.Is and errors.As of a saved
// error as the run's caller did, and reads its text; an error saved as
// text alone (as older versions did) reads as before.
func testWritesTaskErrors(h *harness) {
	errBoom := errors.New("boom")
	// waiting says that a "waits" task runs: the caller cancels, or its
	// deadline passes, once it does, however slow the saver's commits
	// before it are (a fixed delay raced them).
	waiting := make(chan struct{}, 8)
	build := func(s engine.Saver) *engine.Graph {
		b := engine.NewStateGraph(engine.LastValueKey("x")).
			AddNode("slow", func(ctx context.Context, _ any) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}, engine.WithTimeout(engine.TimeoutPolicy{Run: 20 * time.Millisecond})).
			AddNode("waits", func(ctx context.Context, _ any) (any, error) {
				select {
				case waiting <- struct{}{}:
				default:
				}
				<-ctx.Done()
				return nil, ctx.Err()
			}).
			AddNode("fails", func(ctx context.Context, _ any) (any, error) { return nil, errBoom }).
			AddConditionalEdges(engine.Start, func(_ context.Context, s map[string]any) (any, error) {
				if s["x"] == "fail" {
					return []any{"fails"}, nil
				}
				if s["x"] == "timeout" {
					return []any{"slow", "waits"}, nil
				}
				return []any{"waits"}, nil
			}, "slow", "waits", "fails")
		g, err := b.Compile(engine.WithSaver(s))
		if err != nil {
			h.t.Fatal(err)
		}
		return g
	}
	g := build(h.s)
	run := func(ctx context.Context, thread, x string) {
		if _, err := g.Invoke(ctx, map[string]any{"x": x}, engine.OnThread(thread)); err == nil {
			h.t.Fatalf("%s: the run did not fail", thread)
		}
	}
	run(h.ctx, "timeout", "timeout")
	run(h.ctx, "fail", "fail")
	drain := func() {
		for len(waiting) > 0 {
			<-waiting
		}
	}
	drain()
	cctx, cancel := context.WithCancel(h.ctx)
	go func() { <-waiting; cancel() }()
	run(cctx, "cancel", "wait")
	drain()
	dctx := newDeadlineContext(h.ctx)
	go func() { <-waiting; dctx.pass() }()
	run(dctx, "deadline", "wait")
	// An error saved as text alone, by an older version.
	old := cp(1, nil, nil, nil, nil)
	h.put("old", "", nil, old, loopMD(0))
	h.putWrites("old", "", old.ID, taskA, wr(engine.ErrorChannel, "node \"a\" failed at step 0: boom"))

	h.checkAgain(func() {
		g := build(h.s)
		saved := func(thread, node string) engine.SnapshotTask {
			h.t.Helper()
			snap, err := g.GetState(h.ctx, engine.Config{ThreadID: thread})
			if err != nil {
				h.t.Fatal(err)
			}
			for _, st := range snap.Tasks {
				if st.Name == node {
					if st.Err == nil || st.Err.Error() != st.Error || st.Error == "" {
						h.t.Fatalf("%s/%s: saved error %v, text %q", thread, node, st.Err, st.Error)
					}
					var ne *engine.NodeError
					if !errors.As(st.Err, &ne) || ne.Node != node || ne.Step != 1 || ne.TaskID != st.ID {
						h.t.Fatalf("%s/%s: %v is not its NodeError (%+v)", thread, node, st.Err, ne)
					}
					return st
				}
			}
			h.t.Fatalf("%s: no task %s", thread, node)
			return engine.SnapshotTask{}
		}
		var nte *engine.NodeTimeoutError
		if st := saved("timeout", "slow"); !errors.As(st.Err, &nte) || nte.Node != "slow" || nte.Kind != engine.TimeoutRun || nte.Run != 20*time.Millisecond || nte.Elapsed < nte.Run ||
			errors.Is(st.Err, context.Canceled) {
			h.t.Errorf("timeout: %v reads as %+v", st.Err, nte)
		}
		var ce *engine.CancelledError
		if st := saved("timeout", "waits"); !errors.As(st.Err, &ce) || ce.By != "slow" || !errors.Is(st.Err, context.Canceled) {
			h.t.Errorf("cancelled by a sibling: %v", st.Err)
		}
		if st := saved("fail", "fails"); errors.Is(st.Err, context.Canceled) || errors.As(st.Err, &nte) || st.Error != `node "fails" failed at step 1: boom` {
			h.t.Errorf("failure: %v", st.Err)
		}
		if st := saved("cancel", "waits"); !errors.Is(st.Err, context.Canceled) || errors.Is(st.Err, context.DeadlineExceeded) || errors.As(st.Err, &ce) {
			h.t.Errorf("caller's cancellation: %v", st.Err)
		}
		if st := saved("deadline", "waits"); !errors.Is(st.Err, context.DeadlineExceeded) || errors.Is(st.Err, context.Canceled) {
			h.t.Errorf("caller's deadline: %v", st.Err)
		}
		tup := h.mustGet("old", "", "")
		ts := engine.ReadSavedWrites(tup.PendingWrites).Tasks
		if len(ts) != 1 || !ts[0].Failed || ts[0].Error != `node "a" failed at step 0: boom` || ts[0].Err == nil || ts[0].Err.Error() != ts[0].Error || errors.Unwrap(ts[0].Err) != nil {
			h.t.Errorf("an error saved as text: %+v", ts)
		}
	})
}

// deadlineContext is a context whose deadline passes when the test says
// (pass), not after a time the machine may be too slow to keep.
type deadlineContext struct {
	context.Context
	done chan struct{}
}

func newDeadlineContext(parent context.Context) *deadlineContext {
	return &deadlineContext{Context: parent, done: make(chan struct{})}
}

// pass makes the deadline pass.
func (c *deadlineContext) pass() { close(c.done) }

// Deadline reports a deadline: there is one, its time is the test's.
func (c *deadlineContext) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }

// Done is closed when the deadline passes.
func (c *deadlineContext) Done() <-chan struct{} { return c.done }

// Err is context.DeadlineExceeded once the deadline passed.
func (c *deadlineContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
