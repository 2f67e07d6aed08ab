package postgres

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Group commit. Threads that want their writes committed at the same time
// share one transaction: one statement claims all of them and stores all
// their rows (sendGroup), so what a superstep costs the server is its
// rows, not a transaction, a round trip and a WAL flush of its own.
//
// A thread that wants a commit joins the open group. When fewer than
// Options.ConcurrentCommits groups are being sent, the first thread to join sends the
// group itself, at once: a lone thread waits for no one. Otherwise the
// group fills until a group being sent ends, which wakes the open group's
// waiters, and one of them sends it. A thread is in one group at a time,
// so a thread's commits stay in order.

// defaultConcurrentCommits is how many groups one store sends at once
// unless Options says otherwise. Two keep the server busy with one group
// while the next is built and answered; more split the threads waiting at
// once into smaller groups, which cost more CPU per superstep.
const defaultConcurrentCommits = 2

// uniqueViolation is the SQLSTATE of a row stored twice.
const uniqueViolation = "23505"

// maxGroup bounds the threads of one group, and so its statement's size.
const maxGroup = 256

// A group is the threads one commit sends together.
type group struct {
	members []*member
	sealed  bool          // taken for sending: it takes no more threads
	lead    chan struct{} // closed when one of the waiters should send it
	led     bool          // lead is closed
	done    chan struct{} // closed when its commit has ended
}

// A member is one thread of a group, and the ops the group took of it.
type member struct {
	thread   string
	q        *threadQueue
	observed int64 // the thread's sequence this store last saw, or -1
	ops      []*op
	seq      int64 // the sequence the commit gave the thread
	err      error
}

func newGroup() *group {
	return &group{lead: make(chan struct{}), done: make(chan struct{})}
}

// want puts thread in the open group unless it is in a group already.
// s.mu is held.
func (s *Store) want(thread string, q *threadQueue) *group {
	if q.in == nil {
		q.in = s.open
		s.open.members = append(s.open.members, &member{thread: thread, q: q})
	}
	return q.in
}

// await returns once o is committed, with its outcome, sending the group
// that holds it when that is its turn. ctx ends the wait, not a commit
// under way: o is then still committed, by a later group.
func (s *Store) await(ctx context.Context, thread string, o *op) error {
	s.mu.Lock()
	for !o.committed {
		var wait chan struct{}
		switch q := s.queues[thread]; {
		case o.g != nil: // being sent
			wait = o.g.done
		case q.in != nil && q.in.sealed:
			// The thread's earlier ops are being sent; o goes next.
			q.again = true
			wait = q.in.done
		default:
			g := s.want(thread, q)
			if s.inFlight < s.maxInFlight {
				s.seal(g)
				s.mu.Unlock()
				s.sendGroup(g)
				s.mu.Lock()
				continue
			}
			wait = g.lead
		}
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
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
	s.inFlight++
	s.open = newGroup()
	if len(g.members) > maxGroup {
		for _, m := range g.members[maxGroup:] {
			m.q.in = s.open
		}
		s.open.members = append(s.open.members, g.members[maxGroup:]...)
		g.members = g.members[:maxGroup:maxGroup]
		s.signalOpen()
	}
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

// signalOpen wakes the open group's waiters when it has threads and may be
// sent. s.mu is held.
func (s *Store) signalOpen() {
	if g := s.open; len(g.members) > 0 && !g.led && s.inFlight < s.maxInFlight {
		g.led = true
		close(g.lead)
	}
}

// sendGroup commits a sealed group and records each thread's outcome.
func (s *Store) sendGroup(g *group) {
	// The commit must not be cut short by one caller's context: the ops
	// belong to several callers.
	ctx := context.Background()
	var grouped, alone []*member
	for _, m := range g.members {
		if groupable(m.ops) {
			grouped = append(grouped, m)
		} else {
			alone = append(alone, m)
		}
	}
	if len(grouped) > 0 {
		claimed, err := s.sendGrouped(ctx, s.sql.group, grouped)
		if pgCode(err) == uniqueViolation {
			// A row of the group is stored already (a fork's blob, a
			// write saved again): the conflict rules decide.
			claimed, err = s.sendGrouped(ctx, s.sql.groupSafe, grouped)
		}
		for _, m := range grouped {
			if seq, ok := claimed[m.thread]; ok && err == nil {
				m.seq = seq
			} else {
				// Its claim found no row to advance or was refused, or
				// the statement failed: the thread's own transaction
				// creates the row, names the other writer, or gives the
				// thread its own error, failing no other thread.
				alone = append(alone, m)
			}
		}
	}
	var wg sync.WaitGroup
	for _, m := range alone {
		wg.Go(func() { m.seq, m.err = s.sendThread(ctx, m.thread, m.observed, m.ops) })
	}
	wg.Wait()
	s.mu.Lock()
	for _, m := range g.members {
		s.settle(m)
	}
	s.inFlight--
	s.signalOpen()
	s.mu.Unlock()
	close(g.done)
}

// settle records a member's outcome: its ops are committed, and the thread
// leaves the group (for the next one when it queued more meanwhile).
// s.mu is held.
func (s *Store) settle(m *member) {
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
	}
	q := m.q
	q.in = nil
	switch {
	case len(q.ops) == 0:
		delete(s.queues, m.thread)
	case q.again:
		s.want(m.thread, q)
	}
	q.again = false
}

// groupable reports whether a thread's ops can go in a group's statement:
// none replaces a stored checkpoint or numbers null-task writes after the
// stored ones (those read what is stored), and no two may write the same
// slot of a task, which one INSERT … ON CONFLICT DO UPDATE cannot. (A
// task's special writes, with negative slots, and its regular ones are
// two ops that never share a slot.)
func groupable(ops []*op) bool {
	for i, o := range ops {
		if o.nullRun || o.put != nil && o.put.mayExist {
			return false
		}
		if o.put != nil {
			continue
		}
		for _, p := range ops[:i] {
			if p.put == nil && p.ns == o.ns && p.cp == o.cp && p.task == o.task && (p.slots[0] < 0) == (o.slots[0] < 0) {
				return false
			}
		}
	}
	return true
}

// groupArgs are the columns of a group's statement (statements.group).
// pgtype.FlatArray spares pgx's reflection over slices it has no plan for.
type (
	byteaArray = pgtype.FlatArray[[]byte]
	groupArgs  struct {
		threads  byteaArray
		observed []int64
		// writes
		wThread, wNS, wCP, wTask, wChan, wValue byteaArray
		wSlot                                   []int64
		// blobs
		bThread, bNS, bChan, bData byteaArray
		bVer, bHash, bRoot         []int64
		bBase                      pgtype.FlatArray[pgtype.Int8] // base_version, base_hash
		bBaseHash                  pgtype.FlatArray[pgtype.Int8]
		bDepth                     []int32
		bHas                       pgtype.FlatArray[bool]
		// checkpoints
		cThread, cNS, cID, cParent, cBase, cRec byteaArray
		cDepth, cStep                           []int32
		cSource                                 []string
	}
)

// sendGrouped claims the threads of ms and stores the rows of those
// claimed, in one statement. It returns the new sequence of each thread
// claimed; a thread left out was stored nothing.
func (s *Store) sendGrouped(ctx context.Context, stmt string, ms []*member) (map[string]int64, error) {
	// Rows are locked in thread order, so two stores' groups that share
	// threads cannot deadlock.
	slices.SortFunc(ms, func(a, b *member) int { return strings.Compare(a.thread, b.thread) })
	var a groupArgs
	for _, m := range ms {
		th := bs(m.thread)
		a.threads = append(a.threads, th)
		a.observed = append(a.observed, m.observed)
		for _, o := range m.ops {
			ns := bs(o.ns)
			if o.put == nil {
				cp, task := bs(o.cp), bs(o.task)
				for i := range o.slots {
					a.wThread, a.wNS, a.wCP, a.wTask = append(a.wThread, th), append(a.wNS, ns), append(a.wCP, cp), append(a.wTask, task)
					a.wSlot, a.wChan, a.wValue = append(a.wSlot, o.slots[i]), append(a.wChan, o.chans[i]), append(a.wValue, o.values[i])
				}
				continue
			}
			p := o.put
			for _, bl := range p.blobs {
				a.bThread, a.bNS, a.bChan = append(a.bThread, th), append(a.bNS, ns), append(a.bChan, bs(bl.channel))
				a.bVer, a.bHash, a.bRoot = append(a.bVer, bl.ref.Version), append(a.bHash, bl.ref.Hash), append(a.bRoot, bl.ref.Root)
				var bv, bh pgtype.Int8
				if bl.base != nil {
					bv, bh = pgtype.Int8{Int64: bl.base.Version, Valid: true}, pgtype.Int8{Int64: bl.base.Hash, Valid: true}
				}
				a.bBase, a.bBaseHash = append(a.bBase, bv), append(a.bBaseHash, bh)
				a.bDepth, a.bHas, a.bData = append(a.bDepth, int32(bl.depth)), append(a.bHas, bl.has), append(a.bData, bl.data)
			}
			a.cThread, a.cNS, a.cID, a.cParent = append(a.cThread, th), append(a.cNS, ns), append(a.cID, bs(p.id)), append(a.cParent, nullable(p.parent))
			a.cBase, a.cDepth, a.cSource = append(a.cBase, bs(p.base)), append(a.cDepth, int32(p.depth)), append(a.cSource, p.source)
			a.cStep, a.cRec = append(a.cStep, int32(p.step)), append(a.cRec, p.rec)
		}
	}
	rows, err := s.pool.Query(ctx, stmt, a.threads, a.observed, s.writer,
		a.wThread, a.wNS, a.wCP, a.wTask, a.wSlot, a.wChan, a.wValue,
		a.bThread, a.bNS, a.bChan, a.bVer, a.bHash, a.bRoot, a.bBase, a.bBaseHash, a.bDepth, a.bHas, a.bData,
		a.cThread, a.cNS, a.cID, a.cParent, a.cBase, a.cDepth, a.cSource, a.cStep, a.cRec)
	if err != nil {
		return nil, err
	}
	claimed := make(map[string]int64, len(ms))
	var th []byte
	var seq int64
	_, err = pgx.ForEachRow(rows, []any{&th, &seq}, func() error {
		claimed[string(th)] = seq
		return nil
	})
	if err != nil {
		return nil, err
	}
	return claimed, nil
}
