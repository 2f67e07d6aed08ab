package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// Threads returns a summary of every thread, sorted by id, as
// persist.Store.Threads does: a thread whose latest record does not decode
// is listed with ThreadInfo.Err. A broken connection is handled as
// GetTuple's.
func (s *Store) Threads(ctx context.Context) ([]persist.ThreadInfo, error) {
	return readAgain(ctx, s, func() ([]persist.ThreadInfo, error) { return s.threads(ctx) })
}

func (s *Store) threads(ctx context.Context) ([]persist.ThreadInfo, error) {
	if err := s.readable(ctx, ""); err != nil {
		return nil, err
	}
	var status [][]byte
	for _, ch := range persist.StatusChannels() {
		status = append(status, bs(ch))
	}
	rows, err := s.pool.Query(ctx, s.sql.threads, status)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []persist.ThreadInfo
	for rows.Next() {
		var id, last, rec []byte
		var tasks, channels, vals [][]byte
		var info persist.ThreadInfo
		var updated time.Time
		if err := rows.Scan(&id, &info.Fingerprint, &updated, &info.Checkpoints, &info.Namespaces, &last, &rec, &tasks, &channels, &vals); err != nil {
			return nil, err
		}
		info.ID, info.Updated = string(id), updated
		if rec != nil {
			// A record or write that does not decode marks its thread
			// only (ThreadInfo.Err); the other threads are listed.
			info.Err = latestInfo(&info, string(last), rec, tasks, channels, vals)
		}
		out = append(out, info)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close() // its connection, before each thread's query takes one
	return out, s.plannedStatuses(ctx, out)
}

// latestInfo fills in what info says of the thread's latest root
// checkpoint, id: from its record rec, and from the task and channel of
// each write saved against it, with the values of those to
// persist.StatusChannels (nil for the others). As the bbolt store's, it
// sets nothing when the record does not decode, and no pending writes
// when one of those values does not.
func latestInfo(info *persist.ThreadInfo, id string, rec []byte, tasks, channels, vals [][]byte) error {
	r, err := decodeRecord(rec)
	if err != nil {
		return err
	}
	md, err := decodeMeta(r.Meta)
	if err != nil {
		return err
	}
	info.LastID, info.LastStep, info.LastSource, info.LastTS = id, md.Step, md.Source, r.ts()
	if len(channels) != len(tasks) || len(vals) != len(tasks) {
		return fmt.Errorf("threads: %d tasks, %d channels and %d values for the writes of checkpoint %q", len(tasks), len(channels), len(vals), id)
	}
	ws := make([]engine.PendingWrite, len(tasks))
	for i := range tasks {
		ws[i] = engine.PendingWrite{TaskID: string(tasks[i]), Channel: string(channels[i])}
		if vals[i] == nil {
			continue
		}
		if ws[i].Value, err = engine.DecodeValue(vals[i]); err != nil {
			return corruptf("checkpoint %q: write of task %q to %q: %v", id, ws[i].TaskID, ws[i].Channel, err)
		}
	}
	info.SetLatestWrites(ws)
	return nil
}

// SetFingerprint records the fingerprint of the graph that runs a thread.
// The thread need not have checkpoints yet.
func (s *Store) SetFingerprint(ctx context.Context, threadID, fp string) error {
	if err := s.writable(ctx, threadID); err != nil {
		return err
	}
	if err := persist.CheckName("thread id", threadID, persist.MaxIDLen, false); err != nil {
		return err
	}
	err := reconnectingErr(ctx, s, func() error {
		_, err := s.pool.Exec(ctx, s.sql.setFP, bs(threadID), fp)
		return err
	})
	return s.lostWrite(err)
}

// RecordGraph implements engine.GraphRecorder: it records record as the
// fingerprint of a thread that has none (a thread with one keeps it). It
// is stored when it returns: wait has nothing left to do.
//
// An engine.DurabilityExit run records its new thread's graph once the run
// ended, cancelled too, with a context that does not end: on a server
// that stopped answering, that is given up on as a commit is (see
// CommitUnknownError), with ErrUnreachable saying the record may or may
// not be stored.
func (s *Store) RecordGraph(ctx context.Context, threadID, record string) (wait func() error, err error) {
	if err := s.writable(ctx, threadID); err != nil {
		return nil, err
	}
	if err := persist.CheckName("thread id", threadID, persist.MaxIDLen, false); err != nil {
		return nil, err
	}
	what := func() string {
		return fmt.Sprintf("recording the graph of thread %q, which may or may not be stored", threadID)
	}
	_, err = whileAnswered(ctx, s, what, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, reconnectingErr(ctx, s, func() error {
			_, err := s.pool.Exec(ctx, s.sql.recordFP, bs(threadID), record)
			return err
		})
	})
	if err != nil {
		return nil, s.lostWrite(err)
	}
	return func() error { return nil }, nil
}

var _ engine.GraphRecorder = (*Store)(nil)

// Fingerprint returns the fingerprint recorded for a thread, or "". A
// broken connection is handled as GetTuple's.
func (s *Store) Fingerprint(ctx context.Context, threadID string) (string, error) {
	return readAgain(ctx, s, func() (string, error) { return s.fingerprint(ctx, threadID) })
}

func (s *Store) fingerprint(ctx context.Context, threadID string) (string, error) {
	if err := s.readable(ctx, threadID); err != nil {
		return "", err
	}
	var fp string
	err := s.pool.QueryRow(ctx, s.sql.fingerprint, bs(threadID)).Scan(&fp)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return fp, err
}

// maxCheckErrors bounds the problems Check reports.
const maxCheckErrors = 50

// Check verifies the stored threads: every checkpoint's record decodes and
// its delta chain reaches a full image, every value it names exists and
// decodes (appended lists included), every value row's bytes still have
// the hash they are stored under, and every saved write decodes. It
// returns nil, or persist.ErrCorrupt wrapping the problems found (at most
// 50). The server checks its own pages; this checks superstep's rows.
// It reads for as long as it takes: CheckContext ends with a context.
func (s *Store) Check() error { return s.CheckContext(context.Background()) }

// CheckContext is Check, ended by ctx: a check of a large database, or of
// a server that stopped answering, returns ctx's error once ctx ends (a
// command's Ctrl-C), with the problems found so far left unreported.
func (s *Store) CheckContext(ctx context.Context) error {
	if err := s.readable(ctx, ""); err != nil {
		return err
	}
	var errs []error
	report := func(err error) {
		if len(errs) < maxCheckErrors {
			errs = append(errs, err)
		}
	}
	threads, err := s.strings(ctx, s.sql.threadIDs)
	if err != nil {
		return s.lost(err)
	}
	for _, th := range threads {
		nss, err := s.strings(ctx, s.sql.namespaces, bs(th))
		if err != nil {
			return s.lost(err)
		}
		for _, ns := range nss {
			if err := s.checkNS(ctx, th, ns); err != nil {
				if lost := s.lost(err); lost != err {
					return lost // the server went away: not a problem of the rows
				}
				report(fmt.Errorf("%s: %w", persist.ThreadPlace(th, ns), err))
			}
		}
		if err := s.checkHashes(ctx, th, report); err != nil {
			return s.lost(err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", persist.ErrCorrupt, errors.Join(errs...))
}

// checkHashes reports each value row of thread whose bytes no longer have
// the hash they are stored under: a value changed in place that still
// decodes, which reads cannot tell from the value written (they do not
// hash what they read).
func (s *Store) checkHashes(ctx context.Context, thread string, report func(error)) error {
	rows, err := s.pool.Query(ctx, "SELECT ns, channel, version, hash, has, data FROM "+
		pgx.Identifier{s.schema, "blobs"}.Sanitize()+" WHERE thread = $1", bs(thread))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ns, channel, data []byte
		var version, hash int64
		var has bool
		if err := rows.Scan(&ns, &channel, &version, &hash, &has, &data); err != nil {
			return err
		}
		if got := hashBlob(data, has); got != hash {
			what := fmt.Sprintf("value of %q", channel)
			if string(channel) == packChannel {
				what = "pack"
			}
			report(fmt.Errorf("%s: %s at version %d fails its hash (stored under %d, its bytes hash to %d)",
				persist.ThreadPlace(thread, string(ns)), what, version, hash, got))
		}
	}
	return rows.Err()
}

// checkNS reads every checkpoint of a namespace back in full.
func (s *Store) checkNS(ctx context.Context, thread, ns string) error {
	tups, err := s.List(ctx, engine.Config{ThreadID: thread, CheckpointNS: ns}, engine.ListOptions{})
	if err != nil {
		return err
	}
	ids := make(map[string]bool, len(tups))
	for _, t := range tups {
		ids[t.Config.CheckpointID] = true
	}
	for _, t := range tups {
		if t.ParentID != "" && !ids[t.ParentID] {
			return fmt.Errorf("checkpoint %q: parent %q is missing", t.Config.CheckpointID, t.ParentID)
		}
	}
	return nil
}

// strings runs a query of one bytea column.
func (s *Store) strings(ctx context.Context, stmt string, args ...any) ([]string, error) {
	rows, err := s.pool.Query(ctx, stmt, args...)
	if err != nil {
		return nil, s.lost(err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var b []byte
		err := r.Scan(&b)
		return string(b), err
	})
}
