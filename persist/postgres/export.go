package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/persist"
)

// Export writes every checkpoint of a thread, in all namespaces, with its
// pending writes, in persist's export format (persist.WriteExport), so that
// persist.Store.Import reads it and the other way round. Like
// persist.Store.Export it carries a checkpoint whose parent is not stored
// and the writes against ids that are not, so both stores write a thread
// as the same document. fingerprint is
// recorded in it; "" records the thread's stored fingerprint. It reads one
// consistent snapshot (a repeatable-read transaction).
//
// Errors: persist.ErrThreadNotFound, persist.ErrInvalidID (ids that are not
// UTF-8), persist.ErrClosed, persist.ErrCorrupt, or w's error.
func (s *Store) Export(ctx context.Context, threadID string, w io.Writer, fingerprint string) error {
	if err := s.readable(ctx, threadID); err != nil {
		return err
	}
	// The snapshot is read (again, on a fresh connection, if the first
	// broke) before anything is written to w.
	doc, err := readAgain(ctx, s, func() (*persist.ThreadDoc, error) { return s.exportDoc(ctx, threadID, fingerprint) })
	if err != nil {
		return err
	}
	if len(doc.Checkpoints) == 0 {
		return fmt.Errorf("%w: %q", persist.ErrThreadNotFound, threadID)
	}
	return persist.WriteExport(w, doc)
}

// exportDoc reads threadID's checkpoints in one repeatable-read
// transaction.
func (s *Store) exportDoc(ctx context.Context, threadID, fingerprint string) (*persist.ThreadDoc, error) {
	var doc *persist.ThreadDoc
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		doc, err = s.readDoc(ctx, tx, threadID, fingerprint)
		return err
	})
	return doc, err
}

// readDoc reads threadID's checkpoints in tx.
func (s *Store) readDoc(ctx context.Context, tx pgx.Tx, threadID, fingerprint string) (*persist.ThreadDoc, error) {
	doc := &persist.ThreadDoc{Thread: threadID, Fingerprint: fingerprint}
	err := func() error {
		if doc.Fingerprint == "" {
			if err := tx.QueryRow(ctx, s.sql.fingerprint, bs(threadID)).Scan(&doc.Fingerprint); err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		rows, err := tx.Query(ctx, s.sql.candidatesAll, bs(threadID), nil, nil)
		if err != nil {
			return err
		}
		type nsID struct{ ns, id string }
		byNS := map[string][]string{}
		var order []nsID
		for rows.Next() {
			var ns, id, rec []byte
			if err := rows.Scan(&ns, &id, &rec); err != nil {
				rows.Close()
				return err
			}
			byNS[string(ns)] = append(byNS[string(ns)], string(id))
			order = append(order, nsID{string(ns), string(id)})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		loads := map[string]*loaded{}
		for ns, ids := range byNS {
			if loads[ns], err = s.load(ctx, tx, threadID, ns, ids, nil); err != nil {
				return err
			}
		}
		// Oldest first, namespace by namespace, as the bbolt store writes.
		slices.SortFunc(order, func(a, b nsID) int {
			if a.ns != b.ns {
				return strings.Compare(a.ns, b.ns)
			}
			return strings.Compare(a.id, b.id)
		})
		for _, k := range order {
			ns, id := k.ns, k.id
			l := loads[ns]
			tup, err := l.tuple(threadID, ns, id)
			if err != nil {
				return err
			}
			dc := persist.DocCheckpoint{NS: ns, Parent: tup.ParentID, Checkpoint: tup.Checkpoint, Metadata: tup.Metadata}
			for _, w := range l.writes[id] {
				dc.Writes = append(dc.Writes, persist.DocWrite{Task: w.task, Slot: w.slot, Channel: w.channel, Value: w.enc})
			}
			doc.Checkpoints = append(doc.Checkpoints, dc)
		}
		doc.Orphans, err = s.orphanWrites(ctx, tx, threadID)
		return err
	}()
	return doc, err
}

// orphanWrites reads threadID's writes against checkpoint ids it does not
// hold, by namespace and id, each id's in task then slot order.
func (s *Store) orphanWrites(ctx context.Context, tx pgx.Tx, threadID string) ([]persist.DocOrphan, error) {
	rows, err := tx.Query(ctx, s.sql.orphanWrites, bs(threadID))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []persist.DocOrphan
	for rows.Next() {
		var ns, cp, task, ch, value []byte
		var slot int64
		if err := rows.Scan(&ns, &cp, &task, &slot, &ch, &value); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].NS != string(ns) || out[n-1].Checkpoint != string(cp) {
			out = append(out, persist.DocOrphan{NS: string(ns), Checkpoint: string(cp)})
		}
		o := &out[len(out)-1]
		o.Writes = append(o.Writes, persist.DocWrite{Task: string(task), Slot: slot, Channel: string(ch), Value: value})
	}
	return out, rows.Err()
}

// Import reads a thread in persist's export format and stores it under the
// thread id it names (or o.Thread), which it returns. The input is validated before
// anything is written, and it is written in one transaction: on error the
// database is unchanged.
//
// Errors: persist.ErrImportTooLarge, persist.ErrBadImport,
// persist.ErrThreadExists (unless o.Overwrite), persist.ErrClosed, the
// reader's or the server's error.
func (s *Store) Import(ctx context.Context, r io.Reader, o persist.ImportOptions) (string, error) {
	doc, err := persist.ReadExport(r, o.MaxBytes)
	if err != nil {
		return "", err
	}
	if o.Thread != "" {
		if err := persist.CheckThreadID(o.Thread); err != nil {
			return "", err
		}
		doc.Thread = o.Thread
	}
	return doc.Thread, s.ImportDoc(ctx, doc, o)
}

// ImportDoc stores a thread read with persist.ReadExport, replacing a
// thread of the same id when o.Overwrite says so (and
// persist.CheckReplace allows), in one transaction.
func (s *Store) ImportDoc(ctx context.Context, doc *persist.ThreadDoc, o persist.ImportOptions) error {
	thread := doc.Thread
	if err := s.writable(ctx, thread); err != nil {
		return err
	}
	if err := s.commit(ctx, thread, false); err != nil {
		return err
	}
	// A server that cannot be reached is waited for: the transaction
	// runs whole or not at all.
	err := reconnectingErr(ctx, s, func() error { return s.importTx(ctx, doc, o) })
	s.forget(thread)
	return s.lostWrite(err)
}

// importTx is ImportDoc's transaction.
func (s *Store) importTx(ctx context.Context, doc *persist.ThreadDoc, o persist.ImportOptions) error {
	thread := doc.Thread
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var seq int64
		if err := tx.QueryRow(ctx, s.sql.claim, bs(thread), int64(-1), s.writer).Scan(&seq); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+pgx.Identifier{s.schema}.Sanitize()+`.checkpoints WHERE thread = $1)`, bs(thread)).Scan(&exists); err != nil {
			return err
		}
		if exists && !o.Overwrite {
			return fmt.Errorf("%w: %q", persist.ErrThreadExists, thread)
		}
		if exists && !o.Discard {
			// Read in this transaction, after claim locked the thread's
			// row: every writer claims it before it commits, so nothing
			// is added to the thread between this read and the replace.
			// (A writer that has not yet committed when the claim is
			// taken waits for it, and then fails as a writer whose
			// thread another process advanced.)
			have, err := s.readDoc(ctx, tx, thread, "")
			if err != nil {
				return err
			}
			if err := persist.CheckReplace(have, doc, o); err != nil {
				return err
			}
		}
		if err := s.deleteThread(ctx, tx, thread); err != nil {
			return err
		}
		b := &pgx.Batch{}
		// By namespace and id: parents come first. A checkpoint whose
		// parent the thread does not hold finds no head and is stored
		// whole, with its parent id, as Put stores it.
		heads := map[string]*head{}
		for _, dc := range doc.Checkpoints {
			// A value the document holds that no store can keep is
			// the document's fault, named where it is.
			meta, err := encodeMeta(dc.Metadata)
			if err != nil {
				return fmt.Errorf("%w: checkpoint %q: %v", persist.ErrBadImport, dc.Checkpoint.ID, err)
			}
			o, h, err := buildPut(dc.NS, dc.Checkpoint, meta, dc.Metadata, dc.Parent, heads[dc.NS+"\x00"+dc.Parent], nil)
			if err != nil {
				return fmt.Errorf("%w: checkpoint %q: %v", persist.ErrBadImport, dc.Checkpoint.ID, err)
			}
			heads[dc.NS+"\x00"+dc.Checkpoint.ID] = h
			s.queueOp(b, thread, o)
			s.queueDocWrites(b, thread, dc.NS, dc.Checkpoint.ID, dc.Writes)
		}
		// Writes against ids the thread does not hold are rows as any:
		// a later Put of the id adopts them.
		for _, o := range doc.Orphans {
			s.queueDocWrites(b, thread, o.NS, o.Checkpoint, o.Writes)
		}
		if doc.Fingerprint != "" {
			b.Queue(s.sql.setFP, bs(thread), doc.Fingerprint)
		}
		b.Queue(s.sql.claim, bs(thread), int64(-1), s.writer)
		return tx.SendBatch(ctx, b).Close()
	})
}

// queueDocWrites queues the writes of a document against checkpoint cp of
// namespace ns, one statement per task, in their slots.
func (s *Store) queueDocWrites(b *pgx.Batch, thread, ns, cp string, writes []persist.DocWrite) {
	w := &op{ns: ns, cp: cp}
	for _, dw := range writes {
		if w.task != dw.Task && len(w.writes) > 0 {
			s.queueOp(b, thread, w)
			w = &op{ns: ns, cp: cp}
		}
		w.task = dw.Task
		w.writes = append(w.writes, taskWrite{dw.Slot, dw.Channel, dw.Value})
	}
	if len(w.writes) > 0 {
		s.queueOp(b, thread, w)
	}
}
