package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/superstep/superstep/engine"
)

// A commit once sent cannot be taken back: giving up on it leaves its fate
// unknown, so a write waits for its commit's answer. A server that stopped
// answering with its connections open (frozen by SIGSTOP, cut off by a
// route that drops packets without a reset) never gives one, and TCP
// itself gives up only after many minutes. This file bounds that wait for
// a caller that no longer wants the write's outcome (its context ended: a
// run cancelled by Ctrl-C, a service shutting down) and for Close: the
// wait goes on while the server answers, so a slow commit is still waited
// for, and ends once the server leaves a new connection unanswered. The
// caller then gets a *CommitUnknownError naming what was in flight; the
// commit itself goes on in the background and settles as any commit does
// when (if) the server answers, so nothing is sent twice.

// CommitUnknownError is a write whose commit the server did not answer:
// the caller stopped waiting for it (its context ended, or Close), and the
// server then left a new connection unanswered within
// Options.ConnectTimeout. The writes it names may or may not be stored:
// once the server answers again, reading the thread says which (the
// command line's history and show). A commit that did get its answer is
// never reported so. It matches ErrCommitUnknown and Cause.
type CommitUnknownError struct {
	// Addr is the server's address.
	Addr string
	// Thread is the thread whose writes were in flight.
	Thread string
	// Writes are the checkpoints and tasks' writes in flight, in the
	// order they were made.
	Writes []UnknownWrite
	// Sent: the commit had been sent to the server. When false, the
	// writes were queued behind commits sent and not answered: they are
	// sent after those if the store stays open.
	Sent bool
	// Behind are the thread's writes queued behind the commit when Sent,
	// in the order they were made: not sent yet, they are sent after it if
	// the store stays open (a read of the thread sends them), so they too
	// may or may not be stored.
	Behind []UnknownWrite
	// Waited is the bound the store waited for an answer
	// (Options.ConnectTimeout).
	Waited time.Duration
	// Cause is the caller's context's error, nil when Close gave up.
	Cause error
}

// UnknownWrite is one write of a commit whose outcome is unknown: a
// checkpoint (Task is empty), or a task's pending writes at Checkpoint.
type UnknownWrite struct {
	// NS is the checkpoint namespace, empty for the root graph.
	NS string
	// Checkpoint is the checkpoint's id, or the id of the checkpoint the
	// task's writes belong to.
	Checkpoint string
	// Task is the id of the task whose writes these are; empty for the
	// checkpoint itself.
	Task string
}

// Error names the server, the thread and each write in flight, says that
// they may or may not be stored, and how to find out. It is one line.
func (e *CommitUnknownError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "postgres %s: thread %q: ", e.Addr, e.Thread)
	list := writeList(e.Writes)
	if e.Sent {
		fmt.Fprintf(&b, "the server did not answer the commit of %s within %v", list, e.Waited)
		if len(e.Behind) > 0 {
			fmt.Fprintf(&b, ", and %s wait behind it", writeList(e.Behind))
		}
	} else {
		fmt.Fprintf(&b, "the server did not answer within %v the commits sent before %s, which wait behind them", e.Waited, list)
	}
	b.WriteString("; they may or may not be saved: once the server answers again, read the thread to see which")
	return b.String()
}

// writeList names ws, separated by commas.
func writeList(ws []UnknownWrite) string {
	what := make([]string, len(ws))
	for i, w := range ws {
		if w.Task == "" {
			what[i] = fmt.Sprintf("checkpoint %s%s", w.Checkpoint, nsNote(w.NS))
		} else {
			what[i] = fmt.Sprintf("the writes of task %s at checkpoint %s%s", w.Task, w.Checkpoint, nsNote(w.NS))
		}
	}
	return strings.Join(what, ", ")
}

// nsNote names a checkpoint namespace after a checkpoint's id, "" for the
// root graph's.
func nsNote(ns string) string {
	if ns == "" {
		return ""
	}
	return fmt.Sprintf(" (namespace %q)", ns)
}

// Is reports whether target is ErrCommitUnknown.
func (e *CommitUnknownError) Is(target error) bool { return target == ErrCommitUnknown }

// Unwrap returns Cause.
func (e *CommitUnknownError) Unwrap() error { return e.Cause }

// watch tells a wait for a commit when to give up: once the server
// leaves a new connection unanswered. It probes after half the connect
// timeout, for the other half, and again while the server answers, so a
// frozen server is given up on about Options.ConnectTimeout after the
// watch starts, and a slow one is waited for as long as it answers.
type watch struct {
	s      *Store
	silent chan struct{} // closed when the server did not answer a probe
	quit   chan struct{} // closed by stop
	once   sync.Once
}

// startWatch starts a watch. A store that gave up on the server already,
// and has heard nothing from it since, gives up again at once: a Close
// after a cancelled run does not wait a second time.
func (s *Store) startWatch() *watch {
	w := &watch{s: s, silent: make(chan struct{}), quit: make(chan struct{})}
	s.mu.Lock()
	silent := s.silent
	s.mu.Unlock()
	if silent {
		close(w.silent)
		return w
	}
	go w.run()
	return w
}

func (w *watch) run() {
	half := w.s.connectTimeout / 2
	for {
		t := time.NewTimer(half)
		select {
		case <-w.quit:
			t.Stop()
			return
		case <-t.C:
		}
		if w.s.probe(half) == probeSilent {
			w.s.mu.Lock()
			w.s.silent = true
			w.s.mu.Unlock()
			close(w.silent)
			return
		}
	}
}

// stop ends the watch's probes.
func (w *watch) stop() { w.once.Do(func() { close(w.quit) }) }

// Outcomes of a probe.
const (
	probeAnswered = iota
	probeRefused  // nothing listens: the server is down, not frozen
	probeSilent   // no answer within the bound
)

// probe opens a new connection to the server, outside the pool (whose
// connections may all be held by commits waiting on it), and reports
// whether the server answered within d. A refusal is the dead server's
// case, which Options.Reconnect bounds: the commit waiting then never
// reached the server, or broke, and is being sent again. An error the
// server sent (a refused login) is an answer.
func (s *Store) probe(d time.Duration) int {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cfg := s.pool.Config().ConnConfig.Config
	cfg.ConnectTimeout = d
	pc, err := pgconn.ConnectConfig(ctx, &cfg)
	if err == nil {
		pc.Close(ctx)
		s.heard()
		return probeAnswered
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		s.heard()
		return probeAnswered
	}
	if errors.Is(classify(err, s.addr, "", "", s.schema), ErrUnreachable) && !errors.Is(err, context.DeadlineExceeded) && !isTimeout(err) {
		return probeRefused
	}
	return probeSilent
}

// heard records that the server answered: the next watch probes again.
func (s *Store) heard() {
	s.mu.Lock()
	s.silent = false
	s.mu.Unlock()
}

// isTimeout reports whether err is a network timeout.
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

// errUnanswered is the cause whileAnswered cancels a request with.
var errUnanswered = errors.New("the server left a new connection unanswered")

// whileAnswered runs req, a request other than a commit (a read a write
// needs first, a graph's record), with the context to send it with on
// behalf of ctx. A context that can end is req's own: the request ends
// with it. One the engine made not to end (engine.RunContext: a task's
// writes, or an engine.DurabilityExit run's save once it ended) ends, as a wait
// for a commit does (await), once the run's context ended and then the
// server left a new connection unanswered for Options.ConnectTimeout
// (watch): the request is abandoned, and its error is ErrUnreachable
// saying what (what's words: "reading …, which was not saved"), with
// the run's cause. While the server answers, req runs to its end, so the
// save of a cancelled run is made. Before the run ended, req is waited
// for however long it takes, as a write is while its caller wants it.
func whileAnswered[T any](ctx context.Context, s *Store, what func() string, req func(context.Context) (T, error)) (T, error) {
	run := engine.RunContext(ctx)
	if ctx.Done() != nil || run == nil {
		return req(ctx)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	quit := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-quit:
			return
		case <-run.Done():
		}
		w := s.startWatch()
		defer w.stop()
		select {
		case <-quit:
		case <-w.silent:
			cancel(errUnanswered)
		}
	}()
	v, err := req(rctx)
	close(quit)
	<-watched // it ends at once: nothing of the request outlives it
	if err != nil && errors.Is(context.Cause(rctx), errUnanswered) {
		return v, fmt.Errorf("postgres %s: %w: no answer within %v while %s (%w)", s.addr, ErrUnreachable, s.connectTimeout, what(), context.Cause(run))
	}
	return v, err
}

// unknown is the error of a wait for o, a write of thread, given up on:
// it names the thread's writes in flight (those of the group being sent,
// and those queued behind it) or, when o was not sent yet, those queued
// up to o; each of them is marked with it (op.unknown), so a wait for
// another of them (a task's writes deferred to the checkpoint's commit, a
// parallel task's queued behind) does not wait again, and reports the
// same writes. cause is the caller's context's error, if any. If o's
// commit ended meanwhile, its outcome is returned.
func (s *Store) unknown(thread string, o *op, cause error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o.committed {
		return o.err
	}
	e := &CommitUnknownError{Addr: s.addr, Thread: thread, Waited: s.connectTimeout, Cause: cause}
	var ops, behind []*op
	if o.g != nil {
		e.Sent = true
		for _, m := range o.g.members {
			if m.thread == thread {
				ops = m.ops
			}
		}
		if q := s.queues[thread]; q != nil {
			behind = q.ops
		}
	} else if q := s.queues[thread]; q != nil {
		for i, x := range q.ops {
			if x == o {
				ops = q.ops[:i+1]
				break
			}
		}
	}
	if len(ops) == 0 {
		ops = []*op{o}
	}
	e.Writes = unknownWrites(ops)
	e.Behind = unknownWrites(behind)
	// The others learn of it without the caller's cause: they did not
	// give up, the server did not answer.
	other := *e
	other.Cause = nil
	for _, x := range append(ops[:len(ops):len(ops)], behind...) {
		if x != o && x.unknown == nil {
			x.unknown = &other
		}
	}
	if o.unknown == nil {
		o.unknown = &other
	}
	return e
}

// unknownWrites names ops, checkpoints and tasks' writes, for a
// CommitUnknownError; nil for none.
func unknownWrites(ops []*op) []UnknownWrite {
	var ws []UnknownWrite
	for _, x := range ops {
		if x.put != nil {
			ws = append(ws, UnknownWrite{NS: x.ns, Checkpoint: x.put.id})
		} else {
			ws = append(ws, UnknownWrite{NS: x.ns, Checkpoint: x.cp, Task: x.task})
		}
	}
	return ws
}
