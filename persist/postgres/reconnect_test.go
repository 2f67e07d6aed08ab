package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist/postgres"
)

// A server that restarts while a run's node works (a failover, a
// restart for an upgrade) costs the run nothing: the task's writes and
// the checkpoint wait for the server to come back and are stored then,
// so the run ends as it would have and its node ran once; a read made
// while the server is away returns once it is back.
func TestStore_WaitsForAServerThatComesBack(t *testing.T) {
	var hold atomic.Bool
	working, release := make(chan struct{}, 1), make(chan struct{})
	var runs atomic.Int32
	node := func(_ context.Context, in any) (any, error) {
		if hold.Load() {
			runs.Add(1)
			working <- struct{}{}
			<-release
		}
		return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
	}
	s, g, p := openThroughProxyWith(t, postgres.Options{Reconnect: 20 * time.Second}, node)
	ctx := context.Background()

	hold.Store(true)
	type result struct {
		res *engine.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := g.Invoke(ctx, map[string]any{"n": 10.0}, engine.OnThread("t"))
		done <- result{res, err}
	}()
	<-working
	p.stop() // the server goes away while the node works
	close(release)
	read := make(chan error, 1)
	go func() {
		_, err := s.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
		read <- err
	}()
	time.Sleep(700 * time.Millisecond) // the task ended meanwhile: its writes wait
	select {
	case r := <-done:
		t.Fatalf("the run ended while the server was away: %v, %v", r.res.Status, r.err)
	case err := <-read:
		t.Fatalf("a read ended while the server was away: %v", err)
	default:
	}
	p.start(t)
	r := <-done
	if r.err != nil || r.res.Status != engine.StatusDone || r.res.Values["n"] != 11.0 {
		t.Fatalf("the run: %v %v %v, want done with n = 11", r.res.Status, r.res.Values, r.err)
	}
	if err := <-read; err != nil {
		t.Fatalf("the read made while the server was away: %v", err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the node ran %d times, want once", n)
	}
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil || tup == nil || tup.Checkpoint.ChannelValues["n"] != 11.0 {
		t.Fatalf("the stored latest checkpoint: %v, %v; want n = 11", tup, err)
	}
}

// A server that does not come back within Reconnect is ErrUnreachable,
// saying how long the store waited; Reconnect < 0 does not wait, and a
// caller's context ends the wait.
func TestStore_ReconnectGivesUp(t *testing.T) {
	ctx := context.Background()
	s, _, p := openThroughProxyWith(t, postgres.Options{Reconnect: 400 * time.Millisecond}, nil)
	p.stop()
	start := time.Now()
	_, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
	waited := time.Since(start)
	if !errors.Is(err, postgres.ErrUnreachable) || !strings.Contains(err.Error(), "waited 400ms for it to come back") {
		t.Fatalf("GetTuple with the server gone: %v, want ErrUnreachable saying it waited 400ms", err)
	}
	if waited < 400*time.Millisecond {
		t.Errorf("GetTuple gave up after %v, before Reconnect's 400ms", waited)
	}

	s2, _, p2 := openThroughProxyWith(t, postgres.Options{Reconnect: time.Hour}, nil)
	p2.stop()
	// The deadline starts once the server is gone: a slow open must not
	// spend it, or GetTuple finds its context ended before it waits.
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = s2.GetTuple(cctx, engine.Config{ThreadID: "t"})
	if !errors.Is(err, postgres.ErrUnreachable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("GetTuple whose context ended while it waited: %v, want ErrUnreachable and the context's error", err)
	}

	s3, _, p3 := openThroughProxy(t) // Reconnect: -1
	p3.stop()
	_, err = s3.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if !errors.Is(err, postgres.ErrUnreachable) || strings.Contains(err.Error(), "waited") {
		t.Fatalf("GetTuple with Reconnect < 0: %v, want ErrUnreachable at once", err)
	}
}

// A server that stops answering with its connections open (frozen, or cut
// off without a reset) holds Close up no longer than the connect timeout.
// The pool pinged a connection that sat idle before handing it out, and
// that ping ran on for up to a minute after the read that asked was
// cancelled; then closing each connection waited up to 15 seconds for the
// server: a debugger's process stayed alive long after its screen had gone.
func TestStore_FrozenServerDoesNotHoldClose(t *testing.T) {
	s, _, p := openThroughProxyWith(t, postgres.Options{Reconnect: -1, ConnectTimeout: 500 * time.Millisecond}, nil)
	time.Sleep(1100 * time.Millisecond) // the pool pings connections idle over a second
	p.freeze()
	ctx, cancel := context.WithCancel(context.Background()) // cancelled, as the debugger's on quit: no deadline
	time.AfterFunc(200*time.Millisecond, cancel)
	if _, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"}); err == nil {
		t.Fatal("a read from a frozen server succeeded")
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(10 * time.Second): // 20 times the connect timeout; pgx's own bounds are 15s and a minute
		t.Fatal("Close still waits on the frozen server after 10s, with a connect timeout of 500ms")
	}
}
