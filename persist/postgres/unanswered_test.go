package postgres_test

import (
	"context"
	"errors"
	"os"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// giveUpBound is the connect timeout of these tests, and so the time a
// store waits for a frozen server once its caller gave up; 20 times it is
// where a test calls the wait unbounded (pgx's own bounds are 15s and
// more, TCP's many minutes).
const giveUpBound = 500 * time.Millisecond

// frozenMidCommit opens a store through a proxy, and starts a run of
// thread "t" (n = 1 → 2) whose node freezes the proxy: the superstep's
// commit (its checkpoint, with the node's writes) is sent to a server
// that does not answer. It returns once the commit waits in the proxy,
// with the run's cancel and its outcome.
func frozenMidCommit(t *testing.T, opts postgres.Options) (*postgres.Store, *engine.Graph, *breakingProxy, context.CancelFunc, chan error) {
	t.Helper()
	var proxy atomic.Pointer[breakingProxy]
	var freeze atomic.Bool
	node := func(_ context.Context, in any) (any, error) {
		if freeze.Load() {
			proxy.Load().freeze()
		}
		return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
	}
	s, g, p := openThroughProxyWith(t, opts, node)
	proxy.Store(p)
	t.Cleanup(p.thaw)
	freeze.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		_, err := g.Invoke(ctx, map[string]any{"n": 1.0}, engine.OnThread("t"))
		done <- err
	}()
	select {
	case <-p.holding:
	case <-time.After(20 * giveUpBound):
		t.Fatal("no commit reached the frozen server")
	}
	freeze.Store(false)
	return s, g, p, cancel, done
}

// within returns what ch yields, failing the test when it yields nothing
// within 20 times giveUpBound: the wait it ends is unbounded.
func within(t *testing.T, what string, ch chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(20 * giveUpBound):
		pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
		t.Fatalf("%s still waits on the frozen server after %v, with a connect timeout of %v", what, 20*giveUpBound, giveUpBound)
		return nil
	}
}

// A run cancelled (Ctrl-C) while its superstep's commit waits on a server
// that stopped answering returns within the connect timeout, with an
// error that names the thread and what was in flight and says it may or
// may not be saved: never saved, never lost. The commit itself goes on:
// once the server answers, a read of the thread waits for it and finds
// the checkpoint stored once, and the thread goes on from it.
func TestStore_CancelledRunDoesNotWaitForAFrozenServer(t *testing.T) {
	s, g, p, cancel, done := frozenMidCommit(t, postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound})
	cancel()
	err := within(t, "the cancelled run", done)

	ue := cancelledRunUnknown(t, err)
	if ue.Thread != "t" || !ue.Sent || ue.Waited != giveUpBound || ue.Addr != p.l.Addr().String() {
		t.Errorf("error fields: thread %q, sent %v, waited %v, addr %q; want thread t, sent, %v, %s", ue.Thread, ue.Sent, ue.Waited, ue.Addr, giveUpBound, p.l.Addr())
	}
	var cp string
	tasks := 0
	for _, w := range ue.Writes {
		if w.Task == "" {
			cp = w.Checkpoint
		} else {
			tasks++
		}
	}
	if cp == "" || tasks != 1 {
		t.Fatalf("in flight: %+v, want the checkpoint and the writes of the task before it", ue.Writes)
	}
	msg := err.Error()
	for _, want := range []string{`thread "t"`, "checkpoint " + cp, "did not answer", "within 500ms", "may or may not be saved", "read the thread"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message %q is more than one line", msg)
	}

	p.thaw()
	ctx := context.Background()
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil || tup == nil {
		t.Fatalf("GetTuple once the server answers: %v, %v", tup, err)
	}
	if tup.Checkpoint.ID != cp || tup.Checkpoint.ChannelValues["n"] != 2.0 {
		t.Fatalf("latest checkpoint %s with n = %v; want the one in flight, %s, with n = 2", tup.Checkpoint.ID, tup.Checkpoint.ChannelValues["n"], cp)
	}
	res, err := g.Invoke(ctx, map[string]any{"n": 10.0}, engine.OnThread("t"))
	if err != nil || res.Values["n"] != 11.0 {
		t.Fatalf("a run after the server came back: %v, %v", res, err)
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
	}
	if !seen[cp] || len(all) != 9 { // three runs of input, start and the node's step
		t.Fatalf("%d checkpoints (the one in flight stored: %v), want 9 with it", len(all), seen[cp])
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close after the commit was answered: %v", err)
	}
}

// Close after a run cancelled on a frozen server does not wait a second
// time: it returns the same error at once, and the writes are reported
// neither saved nor lost. A store opened once the server answers reads
// the thread whole, with or without the superstep in flight.
func TestStore_CloseAfterAGivenUpCommit(t *testing.T) {
	s, _, p, cancel, done := frozenMidCommit(t, postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound})
	cancel()
	runErr := within(t, "the cancelled run", done)
	if !errors.Is(runErr, postgres.ErrCommitUnknown) {
		t.Fatalf("the cancelled run: %v, want ErrCommitUnknown", runErr)
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	err := within(t, "Close", closed)
	var ue *postgres.CommitUnknownError
	if !errors.As(err, &ue) || errors.Is(err, context.Canceled) || !strings.Contains(runErr.Error(), err.Error()) {
		t.Fatalf("Close: %v; want the run's own *CommitUnknownError, without its cause (%v)", err, runErr)
	}
	p.thaw()
	readBack(t, s)
}

// Close waits for a commit in flight under async durability while the
// server answers, and gives up on a frozen one within the connect
// timeout, naming it, though no caller cancelled anything.
func TestStore_CloseGivesUpOnAFrozenServer(t *testing.T) {
	s, _, p, _, done := frozenMidCommit(t, postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound, Durability: persist.DurabilityAsync})
	if err := within(t, "the async run", done); err != nil {
		t.Fatalf("the async run: %v", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	err := within(t, "Close", closed)
	var ue *postgres.CommitUnknownError
	if !errors.As(err, &ue) || ue.Thread != "t" || ue.Cause != nil || len(ue.Writes) == 0 {
		t.Fatalf("Close: %v; want a *CommitUnknownError for thread t with no cause", err)
	}
	p.thaw()
	readBack(t, s)
}

// readBack opens s's database afresh, not through the proxy, and checks
// thread "t" reads whole and consistent (Check), its latest checkpoint
// the first run's (n = 1) or the one in flight (n = 2): the commit, sent
// again by no one, lands whole or not at all.
func readBack(t *testing.T, s *postgres.Store) {
	t.Helper()
	ctx := context.Background()
	r := open(t, withParam(serverURL, "schema", s.Schema()), postgres.Options{ReadOnly: true})
	tup, err := r.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil || tup == nil {
		t.Fatalf("GetTuple from a fresh store: %v, %v", tup, err)
	}
	if n := tup.Checkpoint.ChannelValues["n"]; n != 1.0 && n != 2.0 {
		t.Fatalf("latest n = %v, want 1 (the commit not stored) or 2 (stored)", n)
	}
	if err := r.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
}

// A server that is down (nothing listens) is not one that stopped
// answering: the commit never reached it and waits for it to come back,
// up to Options.Reconnect, as before; Close then says it is unreachable,
// not that the writes may be stored.
func TestStore_CloseWaitsReconnectForADownServer(t *testing.T) {
	s, _, p := openThroughProxyWith(t, postgres.Options{Reconnect: 3 * giveUpBound, ConnectTimeout: giveUpBound, Durability: persist.DurabilityExit}, nil)
	p.stop() // the first run's writes are buffered: Close sends them
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	err := within(t, "Close", closed)
	if !errors.Is(err, postgres.ErrUnreachable) || errors.Is(err, postgres.ErrCommitUnknown) || !strings.Contains(err.Error(), "waited 1.5s") {
		t.Fatalf("Close with the server down: %v; want ErrUnreachable after waiting Reconnect", err)
	}
}

// cancelledRunUnknown is err, a cancelled run's error, as the
// *CommitUnknownError a store that gave up on a frozen server returns; it
// matches ErrCommitUnknown and the cancellation too.
func cancelledRunUnknown(t *testing.T, err error) *postgres.CommitUnknownError {
	t.Helper()
	var ue *postgres.CommitUnknownError
	if !errors.As(err, &ue) || !errors.Is(err, postgres.ErrCommitUnknown) {
		t.Fatalf("the cancelled run: %v, want a *CommitUnknownError", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled run: %v, want it to match context.Canceled too", err)
	}
	return ue
}
