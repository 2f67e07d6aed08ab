package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// StoredVersions counts the stored values of a channel in a thread's root
// namespace, in rows of their own and in packs: all of them, the full
// copies among them, and those in packs.
func StoredVersions(ctx context.Context, s *Store, thread, channel string) (all, full, packed int, err error) {
	rows, err := s.pool.Query(ctx, "SELECT channel, version, data FROM "+pgx.Identifier{s.schema, "blobs"}.Sanitize()+" WHERE thread = $1 AND ns = '' AND channel IN ($2, '')", bs(thread), bs(channel))
	if err != nil {
		return 0, 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var ch, data []byte
		var ver int64
		if err := rows.Scan(&ch, &ver, &data); err != nil {
			return 0, 0, 0, err
		}
		if string(ch) == channel {
			all++
			if data[0] == blobFull {
				full++
			}
			continue
		}
		entries, _, err := decodePack(nil, ver, data, nil, nil)
		if err != nil {
			return 0, 0, 0, err
		}
		for _, e := range entries {
			if e.channel == channel {
				all, packed = all+1, packed+1
				if e.data[0] == blobFull {
					full++
				}
			}
		}
	}
	return all, full, packed, rows.Err()
}

// GroupsSent returns how many group commits s has sent and how many
// threads they held.
func GroupsSent(s *Store) (groups, threads int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent, s.sentMembers
}

// RunGroupOfOne runs the group statement (safe or not, the create
// variant) for one new thread with one blob and one checkpoint row, and
// with one task write row when writes is set; it returns the sequence the
// statement gave the thread (0 if it did not claim it) and the rows then
// stored in writes, blobs and checkpoints.
func RunGroupOfOne(ctx context.Context, s *Store, thread string, safe, writes bool) (seq int64, rows [3]int, err error) {
	a, ms := groupOf(s, []string{thread}, []int64{-1}, writes)
	safeAt := 0
	if safe {
		safeAt = 1
	}
	if err := s.runGroup(ctx, safeAt, 1, a, ms); err != nil {
		return 0, rows, err
	}
	if rows, err = RowCounts(ctx, s, thread); err != nil {
		return 0, rows, err
	}
	if ms[0].claimed {
		seq = ms[0].seq
	}
	return seq, rows, nil
}

// RunGroup runs the plain group statement (the create variant when
// create is set) for threads, each with the sequence this store last saw
// of it (observed, -1: never) and one blob and one checkpoint row, and
// returns the statement's error.
func RunGroup(ctx context.Context, s *Store, threads []string, observed []int64, create bool) error {
	a, ms := groupOf(s, threads, observed, false)
	createAt := 0
	if create {
		createAt = 1
	}
	return s.runGroup(ctx, 0, createAt, a, ms)
}

// groupOf is a group's parameters and members for threads (sorted), each
// with its observed sequence, a blob, a checkpoint cp2 (child of cp1) and,
// with writes, a task write at cp1.
func groupOf(s *Store, threads []string, observed []int64, writes bool) (*groupParams, []*member) {
	a := new(groupParams)
	a.reset()
	a.col[pWriter].text(s.writer)
	ms := make([]*member, len(threads))
	for i, thread := range threads {
		ms[i] = &member{thread: thread, observed: observed[i]}
		a.col[pThreads].text(thread)
		a.col[pObserved].int8(observed[i])
		if writes {
			for j, v := range []string{thread, "", "cp1", "task"} {
				a.col[pWThread+j].text(v)
			}
			a.col[pWSlot].int8(0)
			a.col[pWChan].text("count")
			a.col[pWValue].bytea([]byte("1"))
		}
		for j, v := range []string{thread, "", "count"} {
			a.col[pBThread+j].text(v)
		}
		a.col[pBVer].int8(1)
		a.col[pBHash].int8(2)
		a.col[pBRoot].int8(3)
		a.col[pBBaseVer].null()
		a.col[pBBaseHash].null()
		a.col[pBDepth].int4(0)
		a.col[pBHas].bool(true)
		a.col[pBData].bytea([]byte("v"))
		for j, v := range []string{thread, "", "cp2"} {
			a.col[pCThread+j].text(v)
		}
		a.col[pCParent].text("cp1")
		a.col[pCBase].text("cp2")
		a.col[pCDepth].int4(0)
		a.col[pCSource].text("loop")
		a.col[pCStep].int4(1)
		a.col[pCRec].bytea([]byte("r"))
	}
	return a, ms
}

// ThreadSeq returns thread's claim sequence, as a read observes it.
func ThreadSeq(ctx context.Context, s *Store, thread string) (seq int64, err error) {
	q := "SELECT seq FROM " + pgx.Identifier{s.schema, "threads"}.Sanitize() + " WHERE thread = $1"
	err = s.pool.QueryRow(ctx, q, bs(thread)).Scan(&seq)
	return seq, err
}

// RowCounts returns the rows of thread in writes, blobs, checkpoints and
// threads.
func RowCounts(ctx context.Context, s *Store, thread string) (rows [3]int, err error) {
	for i, table := range []string{"writes", "blobs", "checkpoints"} {
		q := "SELECT count(*) FROM " + pgx.Identifier{s.schema, table}.Sanitize() + " WHERE thread = $1"
		if err := s.pool.QueryRow(ctx, q, bs(thread)).Scan(&rows[i]); err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// ReadStatements returns the statements a read looks checkpoints and
// writes up by id with ($1 thread, $2 namespace, $3 the ids), by name, and
// the store's schema.
func ReadStatements(s *Store) (stmts map[string]string, schema string) {
	return map[string]string{"chain": s.sql.chain, "chainByParent": s.sql.chainByParent, "writes": s.sql.writes}, s.schema
}
