package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/superstep/superstep/engine"
)

// Group commit. Threads that want their writes committed at the same time
// share one transaction: one statement claims all of them and stores all
// their rows (sendGroup), so what a superstep costs the server is its
// rows, not a transaction, a round trip and a WAL flush of its own.
//
// A thread that wants a commit joins the open group. When no group is
// being sent, the first thread to join sends the group itself, at once: a
// lone thread waits for no one. While fewer than Options.ConcurrentCommits
// groups are being sent, the open group is sent as soon as it holds its
// share of the crowd (see mayStart); otherwise it fills until a group
// being sent ends, which wakes one of the open group's waiters to send it;
// the others sleep until its commit ends, so each thread wakes once per
// commit. A thread is in one group at a time, so a thread's commits stay
// in order.

// defaultConcurrentCommits is how many groups one store sends at once
// unless Options says otherwise. Two keep the server busy with one group
// while the next is built and answered; more split the threads waiting at
// once into smaller groups, which cost more CPU per superstep.
const defaultConcurrentCommits = 2

// uniqueViolation is the SQLSTATE of a row stored twice.
const uniqueViolation = "23505"

// maxGroup bounds the threads of one group, and so its statement's size.
const maxGroup = 256

// maxSpareQueues bounds the queues of idle threads kept for reuse.
const maxSpareQueues = 64

// A group is the threads one commit sends together.
type group struct {
	members []*member
	sealed  bool          // taken for sending: it takes no more threads
	lead    chan struct{} // holds a token when one of the waiters should send it
	led     bool          // the token was given
	done    chan struct{} // closed when its commit has ended
}

// A member is one thread of a group, and the ops the group took of it.
type member struct {
	thread   string
	q        *threadQueue
	observed int64 // the thread's sequence this store last saw, or -1
	ops      []*op
	seq      int64 // the sequence the commit gave the thread
	claimed  bool  // the group's statement claimed it (seq is set)
	err      error
}

func newGroup() *group {
	return &group{lead: make(chan struct{}, 1), done: make(chan struct{})}
}

// want puts thread in the open group unless it is in a group already.
// s.mu is held.
func (s *Store) want(thread string, q *threadQueue) *group {
	if q.in == nil {
		q.in = s.open
		m := &q.first.member
		if q.first.joined {
			m = new(member)
		}
		q.first.joined = true
		*m = member{thread: thread, q: q}
		s.open.members = append(s.open.members, m)
	}
	return q.in
}

// await returns once o is committed, with its outcome, sending the group
// that holds it when that is its turn. ctx ends the wait, not a commit
// under way: o is then still committed, by a later group.
//
// bound is for the caller that made o (a write) or Close: when ctx ends,
// the wait goes on until o is committed or the server stops answering
// (see watch), which returns a *CommitUnknownError; a wait that started
// with w, a watch already started, ends when w gives up. A write the
// engine makes whatever becomes of its run (a task's writes: ctx never
// ends, engine.RunContext) is bound the same way once the run's context
// ends. A caller that might stop waiting sends the group on a goroutine
// of its own, which finishes the commit whatever the caller does.
func (s *Store) await(ctx context.Context, thread string, o *op, bound bool, w *watch) error {
	done := ctx.Done()
	var run context.Context // the run a never-ending ctx was detached from
	if done == nil && bound {
		if run = engine.RunContext(ctx); run != nil {
			done = run.Done()
		}
	}
	var silent <-chan struct{}
	if w != nil {
		silent = w.silent
	}
	s.mu.Lock()
	for !o.committed {
		if o.unknown != nil && (bound || w != nil) && s.silent {
			// Given up on, and nothing heard from the server since:
			// not waited for again. Once it answered, o is waited for
			// (and sent, if it waited behind) as any write.
			err := o.unknown
			s.mu.Unlock()
			return err
		}
		var wait, lead chan struct{}
		switch q := s.queues[thread]; {
		case o.g != nil: // being sent
			wait = o.g.done
		case q.in != nil && q.in.sealed:
			// The thread's earlier ops are being sent; o goes next.
			q.again = true
			wait = q.in.done
		default:
			g := s.want(thread, q)
			if s.mayStart(g) {
				s.seal(g)
				if done == nil && silent == nil {
					s.mu.Unlock()
					s.sendGroup(g)
					s.mu.Lock()
				} else {
					go s.sendGroup(g)
				}
				continue
			}
			// One waiter takes the token and sends the group; the
			// others wake when its commit ends.
			wait, lead = g.done, g.lead
		}
		s.mu.Unlock()
		select {
		case <-wait:
		case <-lead:
		case <-done:
			if !bound {
				return ctx.Err()
			}
			// The caller gave up on the write, not the write on the
			// server: wait while the server answers.
			done = nil
			if w == nil {
				w = s.startWatch()
				defer w.stop()
				silent = w.silent
			}
		case <-silent:
			if run != nil {
				return s.unknown(thread, o, context.Cause(run))
			}
			return s.unknown(thread, o, ctx.Err())
		}
		s.mu.Lock()
	}
	err := o.err
	s.mu.Unlock()
	return err
}

// seal takes g, the open group, for sending, with the ops its threads have
// queued; a new group opens. s.mu is held.
func (s *Store) seal(g *group) {
	g.sealed = true
	s.crowd = max(s.flying+len(g.members)+s.away, s.crowd-(s.crowd+7)/8)
	s.inFlight++
	s.open = newGroup()
	if len(g.members) > maxGroup {
		for _, m := range g.members[maxGroup:] {
			m.q.in = s.open
		}
		s.open.members = append(s.open.members, g.members[maxGroup:]...)
		g.members = g.members[:maxGroup:maxGroup]
	}
	s.flying += len(g.members)
	s.sent++
	s.sentMembers += int64(len(g.members))
	s.signalOpen()
	for _, m := range g.members {
		m.ops, m.q.ops = m.q.ops, nil
		for _, o := range m.ops {
			o.g = g
		}
		m.observed = -1
		if seq, ok := s.observed[m.thread]; ok {
			m.observed = seq
		}
	}
}

// mayStart reports whether the open group g may be sent now: at once when
// no group is being sent, and while fewer than s.maxInFlight are, once it
// holds its share of the crowd, the threads that recently committed at
// once: at a seal, those in the groups being sent and sealed, and those
// away, whose commit ended and that have not queued since (a thread
// between two supersteps). Sending it smaller would split the same
// threads into more, smaller groups, and a group costs the server a
// statement, a commit and a WAL flush whatever its size: with 32 threads
// and two commits under way, sending at once made three groups of about
// 11 threads instead of two of 16, for about a third more server CPU per
// superstep; a crowd without the threads away (which at a seal are the
// ones the group ended last still makes ready) still made groups of 12.
// The open group waits at most until the groups being sent end. s.mu is
// held.
func (s *Store) mayStart(g *group) bool {
	switch {
	case s.inFlight == 0:
		return true
	case s.inFlight >= s.maxInFlight:
		return false
	}
	return len(g.members)*s.maxInFlight >= s.crowd
}

// signalOpen wakes one of the open group's waiters to send it when it has
// threads and may be sent (a waiter that comes later finds the token).
// s.mu is held.
func (s *Store) signalOpen() {
	if g := s.open; len(g.members) > 0 && !g.led && s.mayStart(g) {
		g.led = true
		g.lead <- struct{}{}
	}
}

// sendGroup commits a sealed group and records each thread's outcome.
func (s *Store) sendGroup(g *group) {
	// The commit must not be cut short by one caller's context: the ops
	// belong to several callers.
	ctx := context.Background()
	var grouped, alone []*member
	create := 0
	for _, m := range g.members {
		if groupable(m.ops) {
			grouped = append(grouped, m)
			if m.observed < 0 {
				create = 1 // a thread this store has not seen may be new
			}
		} else {
			alone = append(alone, m)
		}
	}
	if len(grouped) > 0 {
		err := s.sendGrouped(ctx, 0, create, grouped)
		if pgCode(err) == uniqueViolation {
			// A row of the group is stored already (a fork's blob, a
			// write saved again, a checkpoint replaced): the conflict
			// rules decide, and a thread that may replace a checkpoint
			// goes alone.
			var safe []*member
			for _, m := range grouped {
				if mayReplace(m.ops) {
					alone = append(alone, m)
				} else {
					safe = append(safe, m)
				}
			}
			grouped, err = safe, nil
			if len(safe) > 0 {
				err = s.sendGrouped(ctx, 1, create, safe)
			}
		}
		for _, m := range grouped {
			if !m.claimed || err != nil {
				// Its claim found no row to advance or was refused, or
				// the statement failed: the thread's own transaction
				// creates the row, names the other writer, or gives the
				// thread its own error, failing no other thread.
				alone = append(alone, m)
			}
		}
	}
	if len(alone) > 0 {
		var wg sync.WaitGroup // allocated only here
		for _, m := range alone {
			wg.Go(func() { m.seq, m.err = s.sendThread(ctx, m.thread, m.observed, m.ops) })
		}
		wg.Wait()
	}
	s.mu.Lock()
	s.ended(g)
	s.mu.Unlock()
	close(g.done)
}

// ended records the outcome of g's commit for each of its threads, and
// wakes a waiter of the open group if it may now be sent. s.mu is held.
func (s *Store) ended(g *group) {
	left := 0
	for _, m := range g.members {
		if s.settle(m) {
			left++
		}
	}
	// Those that left are between supersteps, most soon back: the crowd
	// counts them (see mayStart) until they queue again, and forgets
	// those that left before the group that ended before this one.
	s.away, s.left = left+min(s.away, s.left), left
	s.silent = false // the server answered, or the connection failed
	s.inFlight--
	s.flying -= len(g.members)
	s.signalOpen()
}

// settle records a member's outcome: its ops are committed, and the thread
// leaves the group (for the next one when it queued more meanwhile). It
// reports whether the thread has nothing more queued. s.mu is held.
func (s *Store) settle(m *member) (idle bool) {
	if m.err == nil {
		s.observed[m.thread] = m.seq
	} else {
		// What the cache says about this thread may not be stored.
		for k := range s.heads {
			if k.thread == m.thread {
				delete(s.heads, k)
			}
		}
	}
	for _, o := range m.ops {
		o.err, o.committed = m.err, true
		s.held -= o.size
	}
	q := m.q
	q.in = nil
	switch {
	case len(q.ops) == 0:
		delete(s.queues, m.thread)
		idle = true
		// A thread's queue is made again at its next superstep: keep it
		// for reuse. Nothing refers to it any more but its group's
		// member, read no more once the group's commit has ended (this
		// runs under s.mu before the waiters learn of it).
		if len(s.spare) < maxSpareQueues {
			*q = threadQueue{}
			s.spare = append(s.spare, q)
		}
	case q.again:
		s.want(m.thread, q)
	}
	q.again = false
	return idle
}

// groupable reports whether a thread's ops can go in a group's statement:
// no two may write the same slot of a task, which one INSERT
// … ON CONFLICT DO UPDATE cannot. (A task's special writes, with negative
// slots, and its regular ones are two ops that never share a slot.) A
// checkpoint that may replace a stored one goes in a group on trial: see
// mayReplace.
func groupable(ops []*op) bool {
	for i, o := range ops {
		if o.put != nil {
			continue
		}
		for _, p := range ops[:i] {
			if p.put == nil && p.ns == o.ns && p.cp == o.cp && p.task == o.task && (p.writes[0].slot < 0) == (o.writes[0].slot < 0) {
				return false
			}
		}
	}
	return true
}

// mayReplace reports whether ops hold a checkpoint that may replace a
// stored one. Such a thread goes in a group's plain statement, which
// stores the checkpoint when it is new and fails when it is stored; it
// then goes alone (sendThread), whose transaction first rewrites the
// children stored as deltas of it.
func mayReplace(ops []*op) bool {
	for _, o := range ops {
		if o.put != nil && o.put.mayExist {
			return true
		}
	}
	return false
}

// groupStmtNames are the names of the group statements
// (statements.group), prepared on each connection.
var groupStmtNames = [2][2][2]string{
	{
		{"superstep_group_nowrites", "superstep_group"},
		{"superstep_group_create_nowrites", "superstep_group_create"},
	},
	{
		{"superstep_group_safe_nowrites", "superstep_group_safe"},
		{"superstep_group_safe_create_nowrites", "superstep_group_safe_create"},
	},
}

// sendGrouped claims the threads of ms and stores the rows of those
// claimed, in one statement: statements.group[safe][create][writes]. A
// member claimed has claimed set and its new sequence in seq; one left out
// was stored nothing. Both are meaningful only when it returns no error.
//
// The statement's arrays are encoded here, straight into PostgreSQL's
// binary array format in buffers reused from group to group, and so are
// the messages that run it (see execGroup): through pgx's parameter
// encoding they cost a tenth of a superstep's CPU in this process, mostly
// boxing each element and buffers it drops after each query.
func (s *Store) sendGrouped(ctx context.Context, safe, create int, ms []*member) error {
	// Rows are locked in thread order, so two stores' groups that share
	// threads cannot deadlock.
	slices.SortFunc(ms, func(a, b *member) int { return strings.Compare(a.thread, b.thread) })
	a := s.params.get()
	defer s.params.put(a)
	a.reset()
	a.col[pWriter].text(s.writer)
	for _, m := range ms {
		a.col[pThreads].text(m.thread)
		a.col[pObserved].int8(m.observed)
		for _, o := range m.ops {
			if o.put == nil {
				if o.folded {
					continue // stored by the checkpoint after it
				}
				for _, w := range o.writes {
					a.col[pWThread].text(m.thread)
					a.col[pWNS].text(o.ns)
					a.col[pWCP].text(o.cp)
					a.col[pWTask].text(o.task)
					a.col[pWSlot].int8(w.slot)
					a.col[pWChan].text(w.channel)
					a.col[pWValue].bytea(w.value)
				}
				continue
			}
			p := o.put
			for _, bl := range p.blobs {
				a.col[pBThread].text(m.thread)
				a.col[pBNS].text(o.ns)
				a.col[pBChan].text(bl.channel)
				a.col[pBVer].int8(bl.ref.Version)
				a.col[pBHash].int8(bl.ref.Hash)
				a.col[pBRoot].int8(bl.ref.Root)
				if bl.depth > 0 { // appends to base
					a.col[pBBaseVer].int8(bl.base.Version)
					a.col[pBBaseHash].int8(bl.base.Hash)
				} else {
					a.col[pBBaseVer].null()
					a.col[pBBaseHash].null()
				}
				a.col[pBDepth].int4(int32(bl.depth))
				a.col[pBHas].bool(bl.has)
				a.col[pBData].bytea(bl.data)
			}
			a.col[pCThread].text(m.thread)
			a.col[pCNS].text(o.ns)
			a.col[pCID].text(p.id)
			if p.parent == "" {
				a.col[pCParent].null()
			} else {
				a.col[pCParent].text(p.parent)
			}
			a.col[pCBase].text(p.base)
			a.col[pCDepth].int4(int32(p.depth))
			a.col[pCSource].text(p.source)
			a.col[pCStep].int4(int32(p.step))
			a.col[pCRec].bytea(p.rec)
		}
	}
	return s.runGroup(ctx, safe, create, a, ms)
}

// runGroup runs statements.group[safe][create][writes] with a's
// parameters for the members ms (sorted by thread), writes set when a has
// task writes to store as rows, and marks those claimed (see execGroup).
func (s *Store) runGroup(ctx context.Context, safe, create int, a *groupParams, ms []*member) error {
	conn, err := reconnecting(ctx, s, func() (*pgxpool.Conn, error) { return s.pool.Acquire(ctx) })
	if err != nil {
		return s.lost(err)
	}
	defer conn.Release()
	writes := 0
	if a.hasWrites() {
		writes = 1
	}
	name := groupStmtNames[safe][create][writes]
	if _, err := conn.Conn().Prepare(ctx, name, s.sql.group[safe][create][writes]); err != nil {
		return err
	}
	return execGroup(ctx, conn.Conn().PgConn(), a.messages(name, writes == 1), ms)
}

// execGroup sends msgs, the messages that run a group's statement, on an
// idle connection and reads the claimed threads it returns, until the
// server is ready again: each is marked in ms, the group's members sorted
// by thread (found by binary search, so an answer allocates nothing).
//
// It writes the messages itself, not through pgconn, which would copy them
// into a buffer it regrows from 1 KB and drops after every query: that was
// a quarter of the bytes a superstep allocated. The server reads every
// message before it answers much, so writing them whole cannot deadlock.
// A connection that fails midway is closed, and the pool drops it.
func execGroup(ctx context.Context, pc *pgconn.PgConn, msgs []byte, ms []*member) error {
	for _, m := range ms {
		m.claimed, m.seq = false, 0
	}
	// pgconn may be reading in the background or hold read data: direct
	// use of the connection must wait for that (nearly always a check).
	if err := pc.SyncConn(ctx); err != nil {
		pc.Close(ctx)
		return err
	}
	if _, err := pc.Conn().Write(msgs); err != nil {
		pc.Close(ctx)
		return err
	}
	var failed error
	for {
		msg, err := pc.ReceiveMessage(ctx)
		if err != nil {
			pc.Close(ctx)
			if failed != nil {
				return failed // the server's error before it hung up says why
			}
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if len(m.Values) != 2 || len(m.Values[1]) != 8 {
				failed = fmt.Errorf("group commit: unexpected row %q", m.Values)
				continue
			}
			i, ok := slices.BinarySearchFunc(ms, m.Values[0], func(x *member, thread []byte) int {
				// Comparisons of a converted []byte allocate nothing.
				switch {
				case x.thread < string(thread):
					return -1
				case x.thread == string(thread):
					return 0
				}
				return 1
			})
			if !ok || ms[i].claimed {
				failed = fmt.Errorf("group commit: unexpected thread %q", m.Values[0])
				continue
			}
			ms[i].claimed, ms[i].seq = true, int64(binary.BigEndian.Uint64(m.Values[1]))
		case *pgproto3.ErrorResponse:
			failed = pgconn.ErrorResponseToPgError(m)
		case *pgproto3.ReadyForQuery:
			return failed
		}
	}
}
