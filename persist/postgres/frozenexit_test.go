package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist/postgres"
)

// freezingGraph compiles, on s, the one-node graph of openThroughProxyWith
// (n → n+1) whose node freezes the proxy p points to while freeze is set.
func freezingGraph(t *testing.T, s engine.Saver, p *atomic.Pointer[breakingProxy], freeze *atomic.Bool) *engine.Graph {
	t.Helper()
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("inc", freezingNode(p, freeze)).
		AddEdge(engine.Start, "inc").AddEdge("inc", engine.End).
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// freezingNode is freezingGraph's node.
func freezingNode(p *atomic.Pointer[breakingProxy], freeze *atomic.Bool) engine.NodeFunc {
	return func(_ context.Context, in any) (any, error) {
		if freeze.Load() {
			p.Load().freeze()
		}
		return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
	}
}

// besideThroughProxy opens a second store with opts on s's schema, its
// connections going through p too: another machine of the same service.
func besideThroughProxy(t *testing.T, s *postgres.Store, p *breakingProxy, opts postgres.Options) *postgres.Store {
	t.Helper()
	u, err := url.Parse(withParam(withParam(serverURL, "schema", s.Schema()), "application_name", appName(t)))
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.l.Addr().String()
	return open(t, u.String(), opts)
}

// cancelWhenHeld starts an engine.DurabilityExit run of g on thread with input n,
// and cancels it once a request waits in the frozen proxy p: its outcome.
func cancelWhenHeld(t *testing.T, g *engine.Graph, p *breakingProxy, thread string, n float64) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		_, err := g.Invoke(ctx, map[string]any{"n": n}, engine.OnThread(thread), engine.WithDurability(engine.DurabilityExit))
		done <- err
	}()
	if err := within(t, "a request to the frozen server", chanOf(p.holding)); err != nil {
		t.Fatal(err)
	}
	cancel()
	return within(t, "the cancelled run", done)
}

// checkGaveUp checks err, a cancelled engine.DurabilityExit run's, says the
// server did not answer and what became of the save, in one line, and
// matches ErrUnreachable and the cancellation.
func checkGaveUp(t *testing.T, err error, wants ...string) {
	t.Helper()
	if !errors.Is(err, postgres.ErrUnreachable) || !errors.Is(err, context.Canceled) || errors.Is(err, postgres.ErrCommitUnknown) {
		t.Fatalf("the cancelled run: %v; want ErrUnreachable with the run's cancellation", err)
	}
	msg := err.Error()
	for _, want := range append(wants, "no answer within 500ms") {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message %q is more than one line", msg)
	}
}

// An engine.DurabilityExit run saves its one checkpoint once it ended, cancelled
// too, with a context that does not end (engine.RunContext). A store that
// does not hold the parent in memory (another machine ran the thread
// last) reads it first. Cancelled while that read waits on a server that
// stopped answering, the run returns within about the connect timeout,
// saying the checkpoint was not saved: before, the read waited for ever,
// and Ctrl-C did nothing. Once the server answers, the thread is as the
// other machine left it, and goes on.
func TestStore_CancelledExitRunDoesNotWaitForAFrozenRead(t *testing.T) {
	opts := postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound}
	var proxy atomic.Pointer[breakingProxy]
	var freeze atomic.Bool
	a, _, p := openThroughProxyWith(t, opts, freezingNode(&proxy, &freeze))
	proxy.Store(p)
	t.Cleanup(p.thaw)
	ctx := context.Background()
	before, err := a.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil || len(before) == 0 {
		t.Fatalf("List: %d, %v", len(before), err)
	}
	b := besideThroughProxy(t, a, p, opts)
	g := freezingGraph(t, b, &proxy, &freeze)
	freeze.Store(true)
	err = cancelWhenHeld(t, g, p, "t", 5)
	freeze.Store(false)
	checkGaveUp(t, err, `thread "t"`, "reading checkpoint "+before[0].Checkpoint.ID, "which was not saved")

	p.thaw()
	after, err := a.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil || len(after) != len(before) || after[0].Checkpoint.ID != before[0].Checkpoint.ID {
		t.Fatalf("after the save was given up on: %d checkpoints, %v; want the %d the first machine left", len(after), err, len(before))
	}
	res, err := g.Invoke(ctx, map[string]any{"n": 10.0}, engine.OnThread("t"))
	if err != nil || res.Values["n"] != 11.0 {
		t.Fatalf("a run once the server answers: %v, %v", res, err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := a.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
}

// An engine.DurabilityExit run on a new thread records its graph as it saves its
// first checkpoint, once the run ended: cancelled while that record waits
// on a server that stopped answering, the run returns within about the
// connect timeout, saying the record may or may not be stored. Once the
// server answers, the thread has no checkpoint, and a run makes it.
func TestStore_CancelledExitRunDoesNotWaitToRecordItsGraph(t *testing.T) {
	s, p := storeThroughProxy(t, postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound})
	t.Cleanup(p.thaw)
	var proxy atomic.Pointer[breakingProxy]
	proxy.Store(p)
	var freeze atomic.Bool
	g := freezingGraph(t, s, &proxy, &freeze)
	freeze.Store(true)
	err := cancelWhenHeld(t, g, p, "new", 1)
	freeze.Store(false)
	checkGaveUp(t, err, `recording the graph of thread "new", which may or may not be stored`)

	p.thaw()
	ctx := context.Background()
	if tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "new"}); err != nil || tup != nil {
		t.Fatalf("GetTuple once the server answers: %v, %v; want no checkpoint", tup, err)
	}
	res, err := g.Invoke(ctx, map[string]any{"n": 1.0}, engine.OnThread("new"))
	if err != nil || res.Values["n"] != 2.0 {
		t.Fatalf("a run once the server answers: %v, %v", res, err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// Two engine.DurabilityExit runs of one thread at once on one store (a request
// sent twice to a service): the first saves its checkpoint, whose commit
// the server, now frozen, leaves unanswered; the second, cancelled, saves
// its own after it, and waits first for the thread's commit in flight as
// a write waits for its own: while the server answers, not for ever. Once
// the server answers, the thread holds each checkpoint once.
func TestStore_CancelledExitRunDoesNotWaitForTheCommitBeforeIt(t *testing.T) {
	s, _, p := openThroughProxyWith(t, postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound}, nil)
	t.Cleanup(p.thaw)
	arrived := make(chan float64, 2)
	release := map[float64]chan struct{}{10: make(chan struct{}), 20: make(chan struct{})}
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("inc", func(_ context.Context, in any) (any, error) {
			n := in.(map[string]any)["n"].(float64)
			arrived <- n
			<-release[n]
			return engine.Update{{Key: "n", Value: n + 1}}, nil
		}).
		AddEdge(engine.Start, "inc").AddEdge("inc", engine.End).
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		cancel context.CancelFunc
		done   chan error
	}
	runs := map[float64]run{}
	for _, n := range []float64{10, 20} {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		r := run{cancel, make(chan error, 1)}
		runs[n] = r
		go func() {
			_, err := g.Invoke(ctx, map[string]any{"n": n}, engine.OnThread("t"), engine.WithDurability(engine.DurabilityExit))
			r.done <- err
		}()
	}
	for range 2 {
		select {
		case <-arrived:
		case <-time.After(20 * giveUpBound):
			t.Fatal("the runs' nodes did not start")
		}
	}
	p.freeze()
	close(release[10])
	if err := within(t, "the first run's commit", chanOf(p.holding)); err != nil {
		t.Fatal(err)
	}
	runs[20].cancel()
	close(release[20])
	if err := within(t, "the cancelled second run", runs[20].done); !errors.Is(err, context.Canceled) {
		t.Fatalf("the second run, cancelled: %v; want its cancellation", err)
	}
	runs[10].cancel()
	if err := within(t, "the cancelled first run", runs[10].done); !errors.Is(err, postgres.ErrCommitUnknown) {
		t.Fatalf("the first run, cancelled: %v; want ErrCommitUnknown for its checkpoint", err)
	}

	p.thaw()
	ctx := context.Background()
	if err := within(t, "Flush once the server answers", flushedOnceHeard(s)); err != nil {
		t.Fatalf("Flush once the server answers: %v", err)
	}
	all, err := s.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, x := range all {
		if seen[x.Checkpoint.ID] {
			t.Fatalf("checkpoint %s is stored twice", x.Checkpoint.ID)
		}
		seen[x.Checkpoint.ID] = true
		if n := x.Checkpoint.ChannelValues["n"]; n == 21.0 || n == 20.0 {
			t.Fatalf("checkpoint %s holds the cancelled second run's n = %v: its save was given up on", x.Checkpoint.ID, n)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
}
