package postgres_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// parallelRun starts a run of thread "t" on s of a graph whose two
// nodes, a and b, run in one superstep; each writes its own key. Both
// wait until hold, called once both run, returns: the test stops the
// server's commits there. It returns once both nodes returned and held
// yields (a commit of their writes waits on the server), with the run's
// cancel and its outcome.
func parallelRun(t *testing.T, s *postgres.Store, hold func(), held chan error) (context.CancelFunc, chan error) {
	t.Helper()
	arrived, release := make(chan struct{}, 2), make(chan struct{})
	node := func(key string) engine.NodeFunc {
		return func(context.Context, any) (any, error) {
			arrived <- struct{}{}
			<-release
			return engine.Update{{Key: key + "_out", Value: 1.0}}, nil
		}
	}
	g, err := engine.NewStateGraph(engine.LastValueKey("a_out"), engine.LastValueKey("b_out")).
		AddNode("a", node("a")).AddNode("b", node("b")).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").
		AddEdge("a", engine.End).AddEdge("b", engine.End).
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		_, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
		done <- err
	}()
	for range 2 {
		if err := within(t, "the nodes' start", chanOf(arrived)); err != nil {
			t.Fatal(err)
		}
	}
	hold()
	close(release)
	if err := within(t, "the nodes' commit", held); err != nil {
		t.Fatal(err)
	}
	return cancel, done
}

// chanOf is a channel that yields nil once c yields.
func chanOf(c <-chan struct{}) chan error {
	out := make(chan error, 1)
	go func() { <-c; out <- nil }()
	return out
}

// taskWrites returns, by task id, the writes stored for the tasks at
// checkpoint id of thread "t", read by a fresh store (not through the
// proxy).
func taskWrites(t *testing.T, s *postgres.Store, id string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	r := open(t, withParam(serverURL, "schema", s.Schema()), postgres.Options{ReadOnly: true})
	tup, err := r.GetTuple(ctx, engine.Config{ThreadID: "t", CheckpointID: id})
	if err != nil || tup == nil {
		t.Fatalf("GetTuple %s: %v, %v", id, tup, err)
	}
	got := map[string][]string{}
	for _, w := range tup.PendingWrites {
		got[w.TaskID] = append(got[w.TaskID], w.Channel)
	}
	return got
}

// A run cancelled (Ctrl-C) while its parallel tasks' writes wait on a
// server that stopped answering returns within about the connect
// timeout, with an error naming the tasks' writes in flight and saying
// they may or may not be saved. The engine saves a task's writes with a
// context the run's cancellation does not end (they are saved while the
// server answers); the store learns of the cancellation from it. Once the
// server answers, each write is stored at most once.
func TestStore_CancelledRunDoesNotWaitForFrozenTaskWrites(t *testing.T) {
	s, p := storeThroughProxy(t, postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound})
	t.Cleanup(p.thaw)
	cancel, done := parallelRun(t, s, p.freeze, chanOf(p.holding))
	cancel()
	err := within(t, "the cancelled run", done)

	ue := cancelledRunUnknown(t, err)
	tasks := map[string]bool{}
	var cp string
	for _, w := range append(ue.Writes, ue.Behind...) {
		if w.Task == "" {
			t.Errorf("in flight: %+v, want only task writes (no checkpoint was put)", ue.Writes)
			continue
		}
		tasks[w.Task], cp = true, w.Checkpoint
	}
	if ue.Thread != "t" || !ue.Sent || len(tasks) != 2 {
		t.Fatalf("error names thread %q and writes %+v sent (%v), %+v behind; want thread t and both tasks' writes", ue.Thread, ue.Writes, ue.Sent, ue.Behind)
	}
	msg := err.Error()
	for _, want := range []string{`thread "t"`, "the writes of task ", "at checkpoint " + cp, "may or may not be saved", "read the thread"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message %q is more than one line", msg)
	}

	// Once the server answers, the commit in flight ends, and Flush sends
	// what waited behind it: until the store hears from the server, it
	// says again that they may or may not be saved, without waiting.
	p.thaw()
	if err := within(t, "Flush once the server answers", flushedOnceHeard(s)); err != nil {
		t.Fatalf("Flush once the server answers: %v", err)
	}
	got := taskWrites(t, s, cp)
	for task := range tasks {
		if len(got[task]) != 1 {
			t.Errorf("task %s named in flight has writes %v stored; want its one write, stored once", task, got[task])
		}
	}
}

// flushedOnceHeard runs s.Flush on a goroutine, again while it returns
// ErrCommitUnknown (the store has not heard from the server since it gave
// up on it): its first other outcome.
func flushedOnceHeard(s *postgres.Store) chan error {
	ch := make(chan error, 1)
	go func() {
		for {
			err := s.Flush()
			if !errors.Is(err, postgres.ErrCommitUnknown) {
				ch <- err
				return
			}
			time.Sleep(giveUpBound / 20)
		}
	}()
	return ch
}

// flushed runs s.Flush on a goroutine: its outcome.
func flushed(s *postgres.Store) chan error {
	ch := make(chan error, 1)
	go func() { ch <- s.Flush() }()
	return ch
}

// Flush waits for a commit while the server answers, and gives up on a
// frozen one within about the connect timeout, with a *CommitUnknownError
// naming what was in flight. Once the server answers, the thread reads
// whole.
func TestStore_FlushGivesUpOnAFrozenServer(t *testing.T) {
	s, _, p := openThroughProxyWith(t, postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound, Durability: persist.DurabilityExit}, nil)
	t.Cleanup(p.thaw)
	p.freeze() // the run's writes are buffered: Flush sends them
	err := within(t, "Flush", flushed(s))
	var ue *postgres.CommitUnknownError
	if !errors.As(err, &ue) || ue.Thread != "t" || ue.Cause != nil || !ue.Sent || len(ue.Writes) == 0 {
		t.Fatalf("Flush: %v; want a *CommitUnknownError for thread t's writes sent, with no cause", err)
	}
	if !strings.Contains(err.Error(), "may or may not be saved") {
		t.Errorf("Flush: %q, want it to say the writes may or may not be saved", err)
	}
	p.thaw()
	readBack(t, s)
}

// A server that is slow to commit but answers is waited for after the run
// is cancelled: its tasks' writes are saved, not given up on, and the run
// reports its cancellation, not that they may or may not be saved. The
// commit waits on a lock another session holds, so new connections are
// answered while it does; the lock is released only once the store probed
// the server twice (each probe is a new connection through the proxy).
func TestStore_CancelledRunWaitsForASlowServer(t *testing.T) {
	s, p := storeThroughProxy(t, postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound})
	ctx := context.Background()
	locker, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	lock := func() {
		if _, err := tx.Exec(ctx, "LOCK TABLE "+pgx.Identifier{s.Schema(), "threads"}.Sanitize()+" IN EXCLUSIVE MODE"); err != nil {
			t.Fatal(err)
		}
	}
	cancel, done := parallelRun(t, s, lock, waitingOnLock(t, appName(t)))
	accepted := make(chan struct{}, 1)
	p.mu.Lock()
	p.accepted = accepted
	p.mu.Unlock()
	cancel()
	for range 2 {
		select {
		case <-accepted:
		case err := <-done:
			t.Fatalf("the cancelled run returned %v while its commit waited on a server that answers", err)
		case <-time.After(20 * giveUpBound):
			t.Fatalf("the store did not probe the server within %v of the run's cancel", 20*giveUpBound)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	err = within(t, "the cancelled run", done)
	if errors.Is(err, postgres.ErrCommitUnknown) || !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled run on a slow server: %v; want it cancelled, its writes waited for", err)
	}
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil || tup == nil {
		t.Fatalf("GetTuple: %v, %v", tup, err)
	}
	got := taskWrites(t, s, tup.Checkpoint.ID)
	var chans []string
	for _, cs := range got {
		chans = append(chans, cs...)
	}
	slices.Sort(chans)
	if !slices.Equal(chans, []string{"a_out", "b_out"}) {
		t.Fatalf("writes stored at %s: %v; want each task's one write", tup.Checkpoint.ID, got)
	}
}

// waitingOnLock yields once a session of the server named app waits on a
// lock.
func waitingOnLock(t *testing.T, app string) chan error {
	t.Helper()
	ch := make(chan error, 1)
	go func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, serverURL)
		if err != nil {
			ch <- err
			return
		}
		defer conn.Close(ctx)
		for {
			var n int
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", app).Scan(&n); err != nil {
				ch <- err
				return
			}
			if n > 0 {
				ch <- nil
				return
			}
			time.Sleep(giveUpBound / 20)
		}
	}()
	return ch
}

// A check of a server that stopped answering ends with its context (the
// command's Ctrl-C), as any read does; Check alone would read until TCP
// gave up, minutes later. Once the server answers, the check passes.
func TestStore_CheckEndsWithItsContextOnAFrozenServer(t *testing.T) {
	s, _, p := openThroughProxyWith(t, postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound}, nil)
	t.Cleanup(p.thaw)
	p.freeze()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.CheckContext(ctx) }()
	<-p.holding // the check's first read is held by the frozen server
	cancel()
	if err := within(t, "CheckContext", done); !errors.Is(err, context.Canceled) {
		t.Fatalf("CheckContext: %v, want the cancellation", err)
	}
	p.thaw()
	if err := s.Check(); err != nil {
		t.Fatalf("Check once the server answers: %v", err)
	}
}
