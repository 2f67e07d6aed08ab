package postgres

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// chainRow is one checkpoint row as loadChain reads it.
type chainRow struct {
	parent string
	rec    *cpRecord
}

// loadChain reads the records of ids and of the ancestors their deltas
// need, keyed by id.
func (s *Store) loadChain(ctx context.Context, db querier, thread, ns string, ids []string) (map[string]chainRow, error) {
	out := map[string]chainRow{}
	rows, err := db.Query(ctx, s.sql.chain, bs(thread), bs(ns), byteKeys(ids))
	if err == nil {
		err = scanChain(rows, out)
	}
	if err == nil {
		err = s.completeChain(ctx, db, thread, ns, ids, out)
	}
	return out, err
}

// completeChain reads the checkpoints that the chain query's id range
// missed (ids that are not time-ordered: a delta whose id sorts before
// its base's is outside the range, and so may be its ancestors) by
// following parent links.
func (s *Store) completeChain(ctx context.Context, db querier, thread, ns string, ids []string, out map[string]chainRow) error {
	var missing []string
	for _, id := range ids {
		cur, ok := out[id]
		if !ok {
			missing = append(missing, id)
			continue
		}
		for cur.rec.Depth > 0 {
			next, found := out[cur.parent]
			if !found {
				missing = append(missing, cur.parent)
				break
			}
			cur = next
		}
	}
	if len(missing) == 0 {
		return nil
	}
	rows, err := db.Query(ctx, s.sql.chainByParent, bs(thread), bs(ns), byteKeys(missing))
	if err != nil {
		return err
	}
	return scanChain(rows, out)
}

// byteKeys is ids as a bytea array.
func byteKeys(ids []string) [][]byte {
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = bs(id)
	}
	return keys
}

// scanChain reads checkpoint rows (id, parent, depth, rec) into out.
func scanChain(rows pgx.Rows, out map[string]chainRow) error {
	defer rows.Close()
	for rows.Next() {
		var id, parent, data []byte
		var depth int
		if err := rows.Scan(&id, &parent, &depth, &data); err != nil {
			return err
		}
		rec, err := decodeRecord(data)
		if err != nil {
			return err
		}
		if rec.Depth != depth {
			return corruptf("checkpoint %q: depth %d, record says %d", id, depth, rec.Depth)
		}
		out[string(id)] = chainRow{parent: string(parent), rec: rec}
	}
	return rows.Err()
}

// stateOf rebuilds a checkpoint's state from the records loadChain read.
func stateOf(id string, recs map[string]chainRow, memo map[string]*cpState) (*cpState, error) {
	if st := memo[id]; st != nil {
		return st, nil
	}
	row, ok := recs[id]
	if !ok {
		return nil, corruptf("checkpoint %q is missing", id)
	}
	var parent *cpState
	if row.rec.Depth > 0 {
		if row.parent == "" {
			return nil, corruptf("checkpoint %q is a delta without a parent", id)
		}
		var err error
		if parent, err = stateOf(row.parent, recs, memo); err != nil {
			return nil, err
		}
	}
	st := row.rec.apply(parent)
	st.base = id
	if parent != nil {
		st.base = parent.base
	}
	memo[id] = st
	return st, nil
}

// valueKey names one stored value.
type valueKey struct {
	channel string
	ref     ref
}

// span is the versions lo to hi.
type span struct{ lo, hi int64 }

// loadValues reads the values keys name, following appended lists to
// their full copy, and returns their encodings; and the task writes held
// in packs (packWrites) of the checkpoints folds names, each read from
// the packs of its versions lo+1 to hi (foldRange), by checkpoint.
func (s *Store) loadValues(ctx context.Context, db querier, thread, ns string, keys []valueKey, folds map[string]span) (map[valueKey]valueEnc, map[string][]*packWrites, error) {
	if len(keys) == 0 && len(folds) == 0 {
		return map[valueKey]valueEnc{}, nil, nil
	}
	q := newValueQuery(keys, folds)
	rows, err := db.Query(ctx, s.sql.values, bs(thread), bs(ns), q.chans, q.los, q.his)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	raw, folded, err := scanValues(rows, q.wanted, folds)
	if err != nil {
		return nil, nil, err
	}
	out, err := resolveValues(keys, raw)
	if err != nil {
		return nil, nil, err
	}
	return out, folded, nil
}

// valueQuery is what loadValues asks the values table for: a version
// range per channel (chans, los, his side by side), and the channels it
// wants from packs (wanted).
type valueQuery struct {
	chans  [][]byte
	los    []int64
	his    []int64
	wanted map[string]packWant
}

// newValueQuery covers every wanted value and the lists it appends to
// with one version range per channel; packs (channel "", packChannel) are read by
// version range too, one range per chain, since any value of a chain may
// be packed, and one per checkpoint whose writes a pack may hold.
// Overlapping and adjacent pack ranges are merged: a pack is read once,
// and a checkpoint's values and the writes above them in one range.
func newValueQuery(keys []valueKey, folds map[string]span) valueQuery {
	spans := map[string]span{}
	packSpans := make([]span, 0, len(keys)+len(folds))
	for _, k := range keys {
		sp, ok := spans[k.channel]
		if !ok {
			sp = span{k.ref.Root, k.ref.Version}
		}
		sp.lo, sp.hi = min(sp.lo, k.ref.Root), max(sp.hi, k.ref.Version)
		spans[k.channel] = sp
		packSpans = append(packSpans, span{k.ref.Root, k.ref.Version})
	}
	for _, f := range folds {
		packSpans = append(packSpans, span{f.lo + 1, f.hi})
	}
	q := valueQuery{wanted: make(map[string]packWant, len(spans))}
	for ch, sp := range spans {
		q.add(bs(ch), sp)
		q.wanted[ch] = packWant{ch, sp.lo, sp.hi}
	}
	slices.SortFunc(packSpans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	for i := 0; i < len(packSpans); {
		sp := packSpans[i]
		for i++; i < len(packSpans) && packSpans[i].lo <= sp.hi+1; i++ {
			sp.hi = max(sp.hi, packSpans[i].hi)
		}
		q.add(bs(packChannel), sp)
	}
	return q
}

func (q *valueQuery) add(ch []byte, sp span) {
	q.chans, q.los, q.his = append(q.chans, ch), append(q.los, sp.lo), append(q.his, sp.hi)
}

// storedValue is one value row as stored: a full copy, or what it appends
// to base.
type storedValue struct {
	base  *ref
	depth int
	has   bool
	data  []byte
}

// scanValues reads the values query's rows: each value row by its key,
// and each pack's wanted values (a chain stays in its channel and its
// version range) and the writes it holds of the checkpoints folds names.
func scanValues(rows pgx.Rows, wanted map[string]packWant, folds map[string]span) (map[valueKey]storedValue, map[string][]*packWrites, error) {
	raw := map[valueKey]storedValue{}
	var entries []packEntry
	var folded map[string][]*packWrites
	for rows.Next() {
		var ch, data []byte
		var k valueKey
		var bv, bh *int64
		var st storedValue
		if err := rows.Scan(&ch, &k.ref.Version, &k.ref.Hash, &k.ref.Root, &bv, &bh, &st.depth, &st.has, &data); err != nil {
			return nil, nil, err
		}
		if string(ch) == packChannel {
			var pw *packWrites
			var err error
			if entries, pw, err = decodePack(entries[:0], k.ref.Version, data, wanted, folds); err != nil {
				return nil, nil, err
			}
			if pw != nil {
				pw.hash = k.ref.Hash
				if folded == nil {
					folded = map[string][]*packWrites{}
				}
				folded[pw.checkpoint] = append(folded[pw.checkpoint], pw)
			}
			for _, e := range entries {
				at := ref{Version: k.ref.Version, Hash: ^k.ref.Hash, Root: e.root}
				raw[valueKey{e.channel, at}] = storedValue{base: e.base, depth: e.depth, has: e.has, data: e.data}
			}
			continue
		}
		k.channel = string(ch)
		if bv != nil && bh != nil {
			st.base = &ref{Version: *bv, Hash: *bh, Root: k.ref.Root}
		}
		st.data = data
		raw[k] = st
	}
	return raw, folded, rows.Err()
}

// resolveValues joins each wanted value: its chain's full copy plus the
// suffixes since, joined once. A chain stops early at a value already
// resolved, so wanted values of one chain, taken oldest first, cost what
// they add.
func resolveValues(keys []valueKey, raw map[valueKey]storedValue) (map[valueKey]valueEnc, error) {
	out := make(map[valueKey]valueEnc, len(keys))
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, func(a, b valueKey) int { return cmp.Compare(a.ref.Version, b.ref.Version) })
	for _, k := range sorted {
		if _, ok := out[k]; ok {
			continue
		}
		v, err := resolveValue(k, raw, out)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// resolveValue follows k's chain down to its full copy or to a value
// already in done, and joins the suffixes on the way.
func resolveValue(k valueKey, raw map[valueKey]storedValue, done map[valueKey]valueEnc) (valueEnc, error) {
	var suffixes [][]byte // newest first
	var sizes []int
	cur := k
	var v valueEnc
	for {
		if d, ok := done[cur]; ok {
			v = d
			break
		}
		st, ok := raw[cur]
		if !ok {
			return v, corruptf("value of %q at version %d is missing", cur.channel, cur.ref.Version)
		}
		if len(st.data) == 0 {
			return v, corruptf("value of %q at version %d is damaged", cur.channel, cur.ref.Version)
		}
		if st.data[0] == blobFull {
			v = valueEnc{enc: st.data[1:], has: st.has, base: len(st.data) - 1}
			break
		}
		if st.data[0] != blobAppend {
			return v, unknownFormat("value", st.data[0])
		}
		if st.base == nil {
			return v, corruptf("value of %q at version %d appends to nothing", cur.channel, cur.ref.Version)
		}
		if st.base.Version >= cur.ref.Version {
			// Versions only grow: a chain that does not go down is
			// damaged (and might loop).
			return v, corruptf("value of %q at version %d appends to version %d, not an older one", cur.channel, cur.ref.Version, st.base.Version)
		}
		suffixes = append(suffixes, st.data[1:])
		sizes = append(sizes, len(st.data)-1)
		cur = valueKey{cur.channel, *st.base}
	}
	if len(suffixes) > 0 {
		slices.Reverse(suffixes)
		enc, err := joinAppends(v.enc, suffixes)
		if err != nil {
			return v, err
		}
		for _, n := range sizes {
			v.appended += n
		}
		v.enc, v.has, v.depth = enc, true, v.depth+len(suffixes)
	}
	return v, nil
}

// storedWrite is a pending write with its slot and undecoded value.
type storedWrite struct {
	task, channel string
	slot          int64
	enc           []byte
}

// mergeWrites adds to a checkpoint's write rows, in task then slot order,
// the writes packs hold, and returns them in that order. A slot stored
// both in a row and in a pack is read from the pack: a pack holds a
// task's first writes at the checkpoint (Store.foldable), and the first
// stored of a regular write wins, as when both are rows (insWritesSQL;
// packs hold no special writes, which replace). Two packs holding one
// slot (two stores claiming to be one writer) are read by the lower
// version, then hash, so every read picks the same.
func mergeWrites(rows []storedWrite, packs []*packWrites) []storedWrite {
	if len(packs) == 0 {
		return rows
	}
	slices.SortFunc(packs, func(a, b *packWrites) int { return cmp.Or(cmp.Compare(a.lo, b.lo), cmp.Compare(a.hash, b.hash)) })
	type key struct {
		task string
		slot int64
	}
	seen := map[key]bool{}
	var fromPacks []storedWrite
	for _, p := range packs {
		for _, w := range p.writes {
			k := key{p.task, w.slot}
			if seen[k] {
				continue
			}
			seen[k] = true
			fromPacks = append(fromPacks, storedWrite{task: p.task, channel: w.channel, slot: w.slot, enc: w.value})
		}
	}
	out := fromPacks
	for _, r := range rows {
		if !seen[key{r.task, r.slot}] {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b storedWrite) int {
		return cmp.Or(strings.Compare(a.task, b.task), cmp.Compare(a.slot, b.slot))
	})
	return out
}

// scanWrites reads write rows (checkpoint, task, slot, channel, value), in
// task then slot order, by checkpoint.
func scanWrites(rows pgx.Rows) (map[string][]storedWrite, error) {
	defer rows.Close()
	out := map[string][]storedWrite{}
	for rows.Next() {
		var cp, task, ch []byte
		var w storedWrite
		if err := rows.Scan(&cp, &task, &w.slot, &ch, &w.enc); err != nil {
			return nil, err
		}
		w.task, w.channel = string(task), string(ch)
		out[string(cp)] = append(out[string(cp)], w)
	}
	return out, rows.Err()
}

// loaded is a namespace's checkpoints read back: in full, or outlined
// (keep not nil: only the values of the channels keep accepts).
type loaded struct {
	recs   map[string]chainRow
	states map[string]*cpState
	values map[valueKey]valueEnc
	writes map[string][]storedWrite
	keep   func(channel string) bool
}

// errNotStored is load's error for a checkpoint that is not stored.
var errNotStored = errors.New("checkpoint not stored")

// load reads checkpoints ids of a namespace with their values and writes.
// What it finds damaged may instead have been written by a newer schema
// since this store opened (a process upgraded and migrated the database
// while this one ran): that is then the error, not damage.
//
// keep, when not nil, says which channels' values to read (Outline's): the
// others are left out of the tuples, and their pending writes' values
// undecoded. nil reads every value.
func (s *Store) load(ctx context.Context, db querier, thread, ns string, ids []string, keep func(channel string) bool) (l *loaded, err error) {
	l, err = s.loadAs(ctx, db, thread, ns, ids, keep)
	if errors.Is(err, persist.ErrCorrupt) {
		if newer := s.newerSchema(ctx); newer != nil {
			return nil, newer
		}
	}
	return l, err
}

// newerSchema returns a *SchemaError if the database's schema is now newer
// than this package's, else nil (also when the version cannot be read: the
// caller's error stands).
func (s *Store) newerSchema(ctx context.Context) error {
	var found int
	q := pgx.Identifier{s.schema, "schema_version"}.Sanitize()
	if err := s.pool.QueryRow(ctx, "SELECT COALESCE(max(version), 0) FROM "+q).Scan(&found); err != nil || found <= SchemaVersion {
		return nil
	}
	return &SchemaError{Schema: s.schema, Found: found, Supported: SchemaVersion}
}

// loadAs is load without the schema check.
func (s *Store) loadAs(ctx context.Context, db querier, thread, ns string, ids []string, keep func(channel string) bool) (*loaded, error) {
	l := &loaded{states: map[string]*cpState{}, keep: keep}
	// The records and the writes in one round trip; the values they name
	// in a second.
	idKeys := byteKeys(ids)
	b := &pgx.Batch{}
	b.Queue(s.sql.chain, bs(thread), bs(ns), idKeys)
	b.Queue(s.sql.writes, bs(thread), bs(ns), idKeys)
	br := db.SendBatch(ctx, b)
	l.recs = map[string]chainRow{}
	rows, err := br.Query()
	if err == nil {
		err = scanChain(rows, l.recs)
	}
	if err == nil {
		rows, err = br.Query()
	}
	if err == nil {
		l.writes, err = scanWrites(rows)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.completeChain(ctx, db, thread, ns, ids, l.recs)
	}
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, ok := l.recs[id]; !ok {
			return nil, errNotStored
		}
	}
	need := map[valueKey]bool{}
	for _, id := range ids {
		st, err := stateOf(id, l.recs, l.states)
		if err != nil {
			return nil, err
		}
		for _, c := range st.refs {
			if keep == nil || keep(c.channel) {
				need[valueKey{c.channel, c.ref}] = true
			}
		}
	}
	keys := make([]valueKey, 0, len(need))
	for k := range need {
		keys = append(keys, k)
	}
	folds := make(map[string]span, len(ids))
	for _, id := range ids {
		lo, hi := foldRange(l.states[id])
		folds[id] = span{lo, hi}
	}
	var packed map[string][]*packWrites
	if l.values, packed, err = s.loadValues(ctx, db, thread, ns, keys, folds); err != nil {
		return nil, err
	}
	for id, pws := range packed {
		l.writes[id] = mergeWrites(l.writes[id], pws)
	}
	return l, nil
}

// tuple builds checkpoint id's tuple from what load read.
func (l *loaded) tuple(thread, ns, id string) (*engine.CheckpointTuple, error) {
	row := l.recs[id]
	st := l.states[id]
	cp := &engine.Checkpoint{
		V: row.rec.V, ID: id, TS: row.rec.ts(),
		ChannelValues:   make(map[string]any, len(st.refs)),
		ChannelVersions: make(map[string]engine.Version, len(st.refs)),
		VersionsSeen:    make(map[string]map[string]engine.Version, len(st.seen)),
		UpdatedChannels: row.rec.Updated,
	}
	for _, c := range st.refs {
		ch := c.channel
		cp.ChannelVersions[ch] = c.ref.Version
		v := l.values[valueKey{ch, c.ref}]
		if !v.has {
			continue
		}
		val, err := engine.DecodeValue(v.enc)
		if err != nil {
			return nil, corruptf("checkpoint %q: value of %q: %v", id, ch, err)
		}
		cp.ChannelValues[ch] = val
	}
	for n, m := range st.seen {
		// States are shared through the memo; the caller owns cp.
		var seen map[string]engine.Version
		if m != nil {
			seen = make(map[string]engine.Version, len(m))
			for k, v := range m {
				seen[k] = v
			}
		}
		cp.VersionsSeen[n] = seen
	}
	md, err := decodeMeta(row.rec.Meta)
	if err != nil {
		return nil, err
	}
	tup := &engine.CheckpointTuple{
		Config:     engine.Config{ThreadID: thread, CheckpointNS: ns, CheckpointID: id},
		Checkpoint: cp, Metadata: md, ParentID: row.parent,
	}
	for _, w := range l.writes[id] {
		pw := engine.PendingWrite{TaskID: w.task, Channel: w.channel}
		// An outline decodes what planning and the tree read: control
		// writes, the input's, and the kept channels' (engine.Outliner).
		if l.keep == nil || engine.IsControlWrite(w.channel) || w.task == engine.NullTaskID || l.keep(w.channel) {
			val, err := engine.DecodeValue(w.enc)
			if err != nil {
				return nil, corruptf("checkpoint %q: write of task %q to %q: %v", id, w.task, w.channel, err)
			}
			pw.Value = val
		}
		tup.PendingWrites = append(tup.PendingWrites, pw)
	}
	return tup, nil
}

// loadHead reads checkpoint id as a head: its state, its values'
// encodings, and the greatest id of its namespace. It returns nil when the
// checkpoint is not stored.
func (s *Store) loadHead(ctx context.Context, thread, ns, id string) (*head, error) {
	l, err := s.load(ctx, s.pool, thread, ns, []string{id}, nil)
	if errors.Is(err, errNotStored) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	st := l.states[id]
	h := &head{id: id, state: st, values: make([]valueEnc, len(st.refs))}
	for i, c := range st.refs {
		h.values[i] = l.values[valueKey{c.channel, c.ref}]
	}
	var latest []byte
	if err := s.pool.QueryRow(ctx, s.sql.latestID, bs(thread), bs(ns)).Scan(&latest); err != nil {
		return nil, s.lost(err)
	}
	h.maxID = string(latest)
	return h, nil
}

// GetTuple implements engine.Saver: the checkpoint cfg names, or the
// latest of its namespace, or nil and no error when there is none.
// Reading a thread's latest checkpoint is what later writes are checked
// against (see Put).
//
// A read whose connection broke runs once more on a fresh one, and one
// that cannot connect waits for the server (Options.Reconnect); then the
// error is ErrConnectionLost or ErrUnreachable.
func (s *Store) GetTuple(ctx context.Context, cfg engine.Config) (*engine.CheckpointTuple, error) {
	return readAgain(ctx, s, func() (*engine.CheckpointTuple, error) { return s.getTuple(ctx, cfg) })
}

func (s *Store) getTuple(ctx context.Context, cfg engine.Config) (*engine.CheckpointTuple, error) {
	if err := s.readable(ctx, cfg.ThreadID); err != nil {
		return nil, err
	}
	if cfg.ThreadID == "" {
		return nil, nil
	}
	// The thread's sequence is read before its data: a write in between
	// makes the data newer than what is observed, never older.
	var seq *int64
	var latest []byte
	if err := s.pool.QueryRow(ctx, s.sql.seqAndLatest, bs(cfg.ThreadID), bs(cfg.CheckpointNS)).Scan(&seq, &latest); err != nil {
		return nil, err
	}
	if seq == nil {
		seq = new(int64)
	}
	id := cfg.CheckpointID
	if id == "" {
		if latest == nil {
			s.observe(cfg.ThreadID, cfg.CheckpointNS, *seq)
			return nil, nil
		}
		id = string(latest)
	}
	l, err := s.load(ctx, s.pool, cfg.ThreadID, cfg.CheckpointNS, []string{id}, nil)
	if errors.Is(err, errNotStored) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.observe(cfg.ThreadID, cfg.CheckpointNS, *seq)
	return l.tuple(cfg.ThreadID, cfg.CheckpointNS, id)
}

// List implements engine.Saver: newest first (by id, then namespace),
// with Before, Limit and Filter applied. A broken connection is handled
// as GetTuple's.
func (s *Store) List(ctx context.Context, cfg engine.Config, opt engine.ListOptions) ([]*engine.CheckpointTuple, error) {
	return readAgain(ctx, s, func() ([]*engine.CheckpointTuple, error) { return s.list(ctx, cfg, opt, nil) })
}

// Outline implements engine.Outliner: the checkpoints List would list,
// with the values of only the channels keep accepts (nil: none) read and
// decoded, and of the pending writes those, the control writes and the
// input's. The debugger's tree and the CLI's history read a thread's
// outline a page at a time, so a long thread whose state is large costs
// its records, not every value of every checkpoint. A broken connection
// is handled as GetTuple's.
func (s *Store) Outline(ctx context.Context, cfg engine.Config, opt engine.ListOptions, keep func(channel string) bool) ([]*engine.CheckpointTuple, error) {
	if keep == nil {
		keep = func(string) bool { return false }
	}
	return readAgain(ctx, s, func() ([]*engine.CheckpointTuple, error) { return s.list(ctx, cfg, opt, keep) })
}

// list is List, or Outline when keep is not nil.
func (s *Store) list(ctx context.Context, cfg engine.Config, opt engine.ListOptions, keep func(string) bool) ([]*engine.CheckpointTuple, error) {
	if err := s.readable(ctx, cfg.ThreadID); err != nil {
		return nil, err
	}
	if cfg.ThreadID == "" {
		return nil, nil
	}
	stmt, args := s.sql.candidates, []any{bs(cfg.ThreadID), bs(cfg.CheckpointNS), nullable(cfg.CheckpointID), nullable(opt.Before)}
	if opt.AllNamespaces {
		stmt, args = s.sql.candidatesAll, []any{bs(cfg.ThreadID), nullable(cfg.CheckpointID), nullable(opt.Before)}
	}
	rows, err := s.pool.Query(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	type cand struct{ ns, id string }
	var cands []cand
	for rows.Next() {
		var ns, id, data []byte
		if err := rows.Scan(&ns, &id, &data); err != nil {
			rows.Close()
			return nil, err
		}
		if len(opt.Filter) > 0 {
			rec, err := decodeRecord(data)
			if err != nil {
				rows.Close()
				return nil, err
			}
			md, err := decodeMeta(rec.Meta)
			if err != nil {
				rows.Close()
				return nil, err
			}
			if !engine.MatchesFilter(md, opt.Filter) {
				continue
			}
		}
		cands = append(cands, cand{string(ns), string(id)})
		if opt.Limit > 0 && len(cands) >= opt.Limit {
			break
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	byNS := map[string][]string{}
	for _, c := range cands {
		byNS[c.ns] = append(byNS[c.ns], c.id)
	}
	loads := map[string]*loaded{}
	for ns, ids := range byNS {
		if loads[ns], err = s.load(ctx, s.pool, cfg.ThreadID, ns, ids, keep); err != nil {
			return nil, err
		}
	}
	out := make([]*engine.CheckpointTuple, len(cands))
	for i, c := range cands {
		if out[i], err = loads[c.ns].tuple(cfg.ThreadID, c.ns, c.id); err != nil {
			return nil, err
		}
	}
	return slices.Clip(out), nil
}

// Heads implements engine.HeadLister: the id, parent, step and source of
// every checkpoint of cfg's thread and namespace, newest first, read from
// the checkpoint records alone: no versions rebuilt, no value or pending
// write read, so the debugger draws a thread's tree from a query of its
// records. A broken connection is handled as GetTuple's.
func (s *Store) Heads(ctx context.Context, cfg engine.Config) ([]engine.CheckpointHead, error) {
	return readAgain(ctx, s, func() ([]engine.CheckpointHead, error) { return s.listHeads(ctx, cfg) })
}

func (s *Store) listHeads(ctx context.Context, cfg engine.Config) ([]engine.CheckpointHead, error) {
	if err := s.readable(ctx, cfg.ThreadID); err != nil || cfg.ThreadID == "" {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, s.sql.heads, bs(cfg.ThreadID), bs(cfg.CheckpointNS))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []engine.CheckpointHead
	for rows.Next() {
		var id, parent, data []byte
		if err := rows.Scan(&id, &parent, &data); err != nil {
			return nil, err
		}
		h, err := decodeHead(data)
		if err != nil {
			return nil, corruptf("checkpoint %q: %v", id, err)
		}
		h.ID, h.ParentID = string(id), string(parent)
		out = append(out, h)
	}
	return out, rows.Err()
}

// CheckpointIDs returns the ids of cfg's thread and namespace that start
// with prefix, in order, at most limit of them (limit <= 0: all). It reads
// ids only, so resolving an id prefix does not depend on the length of the
// thread's values. A broken connection is handled as GetTuple's.
func (s *Store) CheckpointIDs(ctx context.Context, cfg engine.Config, prefix string, limit int) ([]string, error) {
	return readAgain(ctx, s, func() ([]string, error) { return s.checkpointIDs(ctx, cfg, prefix, limit) })
}

func (s *Store) checkpointIDs(ctx context.Context, cfg engine.Config, prefix string, limit int) ([]string, error) {
	if err := s.readable(ctx, cfg.ThreadID); err != nil || cfg.ThreadID == "" {
		return nil, err
	}
	var max *int
	if limit > 0 {
		max = &limit
	}
	rows, err := s.pool.Query(ctx, s.sql.checkpointIDs, bs(cfg.ThreadID), bs(cfg.CheckpointNS), bs(prefix), max)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id []byte
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if !strings.HasPrefix(string(id), prefix) {
			break
		}
		out = append(out, string(id))
	}
	return out, rows.Err()
}
