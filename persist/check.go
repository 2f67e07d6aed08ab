package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// maxCheckErrors bounds the problems Check reports.
const maxCheckErrors = 50

// Check verifies the file: its meta pages and page structure (walked
// without bbolt, so damage cannot crash it), then superstep's own: the
// buckets are the ones the layout has and hold nothing else, every record
// opens (its seal matches, see sealed.go), every stored value, record and
// write decodes, every checkpoint's versions rebuild, and every value they
// name exists. Its cost is linear in the file's size (values are checked
// where stored, not once per checkpoint that shares them). It is safe on a
// store that is being written: commits wait while it runs. It returns nil,
// or ErrCorrupt wrapping the problems found (at most 50). Errors:
// ErrClosed.
//
// A file of layout 1 has no seals: Check verifies its structure and
// decoding, but a damaged byte that still decodes goes unseen. Sealed
// says which kind a file is.
func (s *Store) Check() error {
	if s.closed.Load() {
		return ErrClosed
	}
	if s.w == nil {
		return s.check()
	}
	_ = s.w.flush() // a failed buffered write is reported by Flush and Close
	return s.w.paused(s.check)
}

// Sealed reports whether the file's records carry seals (layout 2 and
// later), so that Check sees any change to them. Errors: ErrClosed,
// ErrCorrupt.
func (s *Store) Sealed() (bool, error) {
	var sealed bool
	err := s.read(func(tx *bolt.Tx) error {
		sealed = sealedTx(tx)
		return nil
	})
	return sealed, err
}

// checkReport collects what Check finds, up to maxCheckErrors, and the
// digest of the records it met.
type checkReport struct {
	errs []error
	sum  digest
}

// bad records err, if not nil, and reports whether it was.
func (r *checkReport) bad(err error) bool {
	if err != nil && len(r.errs) < maxCheckErrors {
		r.errs = append(r.errs, err)
	}
	return err != nil
}

// check is Check while nothing commits.
func (s *Store) check() error {
	if err := verifyFile(s.path, true); err != nil {
		return err
	}
	var rep checkReport
	err := s.read(func(tx *bolt.Tx) error {
		checkTop(tx, &rep)
		threads := tx.Bucket(bucketThreads)
		if threads == nil {
			return nil
		}
		c := threads.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v != nil {
				rep.bad(corruptf("threads bucket: %q is a record, not a thread", k))
				continue
			}
			checkThread(threads.Bucket(k), string(k), &rep)
		}
		checkImporting(tx, &rep)
		if sealedTx(tx) && len(rep.errs) == 0 {
			checkDigest(tx, rep.sum, &rep)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(rep.errs) > 0 {
		return &damageList{rep.errs}
	}
	return nil
}

// checkTop checks the top level: the meta, threads, settings and importing
// buckets and nothing else, the meta bucket's keys and the settings'
// records. A
// damaged name turns a bucket into one the layout does not have, which is
// reported rather than skipped: its records would silently vanish.
func checkTop(tx *bolt.Tx, rep *checkReport) {
	c := tx.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		known := bytes.Equal(k, bucketMeta) || bytes.Equal(k, bucketThreads) || bytes.Equal(k, bucketSettings) || bytes.Equal(k, bucketImporting)
		if v != nil || !known {
			rep.bad(corruptf("the file has an unknown top-level entry %q", k))
		}
	}
	if tx.Bucket(bucketThreads) == nil {
		rep.bad(corruptf("threads bucket missing"))
	}
	if meta := tx.Bucket(bucketMeta); meta != nil {
		mc := meta.Cursor()
		for k, _ := mc.First(); k != nil; k, _ = mc.Next() {
			if !bytes.Equal(k, keyApp) && !bytes.Equal(k, keyLayout) && !bytes.Equal(k, keyLayoutSeal) && !bytes.Equal(k, keyDigest) {
				rep.bad(corruptf("meta bucket: unknown key %q", k))
			}
		}
		rep.bad(checkLayoutSeal(meta))
	}
	if b := tx.Bucket(bucketSettings); b != nil {
		settingRecords(b).scan(func([]byte, []byte) {}, rep)
	}
}

// checkImporting checks the threads of imports a process left unfinished
// when it died (importstage.go) as threads: their records are in the
// file's digest until the next import drops them.
func checkImporting(tx *bolt.Tx, rep *checkReport) {
	root := tx.Bucket(bucketImporting)
	if root == nil {
		return
	}
	c := root.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		ib := root.Bucket(k)
		if v != nil || ib == nil || len(k) != 8 {
			rep.bad(corruptf("importing bucket: %q is not an import", k))
			continue
		}
		ic := ib.Cursor()
		for t, tv := ic.First(); t != nil; t, tv = ic.Next() {
			if tv != nil || ib.Bucket(t) == nil {
				rep.bad(corruptf("import %x: %q is a record, not a thread", k, t))
				continue
			}
			checkThread(ib.Bucket(t), string(t), rep)
		}
	}
}

// checkThread checks one thread's bucket: its own keys, and each
// namespace.
//
// In the ordered layout (ordered.go) the thread's bucket also holds the
// root namespace's records, and a namespace's bucket holds records only:
// every key must be a record of one of the four kinds.
func checkThread(tb *bolt.Bucket, thread string, rep *checkReport) {
	ordered := layoutOf(tb.Tx()) >= orderedLayout
	c := tb.Cursor()
	keys := threadKeys(tb, thread)
	for k, v := c.First(); k != nil; k, v = c.Next() {
		where := fmt.Sprintf("thread %q", thread)
		switch {
		case v != nil && (bytes.Equal(k, keyFingerprint) || bytes.Equal(k, keyUpdated)):
			rep.sum.add(v, true)
			_, err := keys.open(k, v)
			rep.bad(err)
		case ordered && v != nil && len(k) > 0 && (k[0] == rangeValues || k[0] == rangeRecords):
			// The root namespace's: checked below, once their kind is
			// known.
			if _, ok := orderedKind(k); !ok {
				rep.bad(corruptf("%s: unknown key %q", where, k))
			}
		case v != nil:
			rep.bad(corruptf("%s: unknown key %q", where, k))
		case len(k) == 0 || k[0] != 'n' || (ordered && len(k) == 1):
			rep.bad(corruptf("%s: unknown bucket %q", where, k))
		default:
			ns := string(k[1:])
			b, err := nsIn(tb, thread, ns, false)
			if rep.bad(err) {
				continue
			}
			if ordered {
				checkOrderedKeys(tb.Bucket(k), thread, ns, rep)
			} else {
				checkNSBuckets(tb.Bucket(k), thread, ns, rep)
			}
			checkNS(b, thread, ns, rep)
		}
	}
	if ordered {
		checkNS(newNSBuckets([4]*bolt.Bucket{tb, tb, tb, tb}, thread, "", sealedTx(tb.Tx()), true), thread, "", rep)
	}
}

// checkNS checks namespace ns's records.
func checkNS(b *nsBuckets, thread, ns string, rep *checkReport) {
	for _, err := range b.check(&rep.sum) {
		var de *DamagedRecordError
		if !errors.As(err, &de) { // names its place itself
			err = fmt.Errorf("%s: %w", ThreadPlace(thread, ns), err)
		}
		rep.bad(err)
	}
}

// checkNSBuckets reports entries of a namespace's bucket other than its
// four record buckets.
func checkNSBuckets(nb *bolt.Bucket, thread, ns string, rep *checkReport) {
	c := nb.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		known := false
		for _, name := range nsBucketNames {
			known = known || bytes.Equal(k, name)
		}
		if v != nil || !known {
			rep.bad(corruptf("%s: unknown entry %q", ThreadPlace(thread, ns), k))
		}
	}
}

// scan opens every record and calls fn with those that open; the others
// go to rep. Every record counts in rep's digest.
func (r *records) scan(fn func(k, v []byte), rep *checkReport) {
	r.scanEach(fn, func(_ []byte, err error) { rep.bad(err) }, &rep.sum)
}

// scanEach is scan with the records that do not open handed to bad, with
// their keys.
func (r *records) scanEach(fn func(k, v []byte), bad func(k []byte, err error), sum *digest) {
	c := r.rawCursor()
	c.tolerant = true
	for k := c.first(); k != nil; k = c.next() {
		stored := c.at
		if stored != nil && r.sealed {
			sum.add(stored, true)
		}
		if v, err := r.open(k, stored); err != nil {
			bad(k, err)
		} else {
			fn(k, v)
		}
	}
}

// stateDamage is what breaks the state of one or more checkpoints: a
// damaged checkpoint record, a missing delta base. A checkpoint's state
// is its record's delta over its parent's, so the damage breaks every
// checkpoint built on it too, up to the next full image: Check reports
// it once, with how many those are, rather than once for each
// checkpoint that meets it (fifty identical lines for one record).
type stateDamage struct {
	err   error
	built int // the checkpoints after the first that it breaks
}

func (d *stateDamage) Error() string {
	switch d.built {
	case 0:
		return d.err.Error()
	case 1:
		return fmt.Sprintf("%v; the state of 1 checkpoint built on it cannot be read either", d.err)
	}
	return fmt.Sprintf("%v; the state of %d checkpoints built on it cannot be read either", d.err, d.built)
}

func (d *stateDamage) Unwrap() error { return d.err }

// stateDamages collects a namespace's stateDamage, in the order found.
type stateDamages struct {
	list   []*stateDamage
	byText map[string]*stateDamage
	// of is the damage each broken checkpoint's state meets.
	of map[string]*stateDamage
}

// add records that checkpoint id's state cannot be read for err. An
// error that says the same as one found before is that damage met again
// (a checkpoint whose delta chain reached the same damaged record before
// Check came to it), and counts as built on it. id is "" when its key is
// damaged too.
func (ds *stateDamages) add(id string, err error) {
	d := ds.byText[err.Error()]
	if d == nil {
		d = &stateDamage{err: err}
		ds.byText[err.Error()] = d
		ds.list = append(ds.list, d)
	} else {
		d.built++
	}
	if id != "" {
		ds.of[id] = d
	}
}

// builtOn reports whether rec, of checkpoint id, is a delta over a
// checkpoint whose state is broken, and then counts id as broken by the
// same damage: its own state cannot be read either, and reading it would
// only meet that damage again.
func (ds *stateDamages) builtOn(id string, rec *cpRecord) bool {
	d := ds.of[rec.Parent]
	if !rec.Delta || d == nil {
		return false
	}
	d.built++
	ds.of[id] = d
	return true
}

// check verifies one namespace and returns what is wrong with it. Its
// records are added to sum.
func (b *nsBuckets) check(sum *digest) []error {
	rep := checkReport{sum: *sum}
	defer func() { *sum = rep.sum }()
	bad := rep.bad
	b.blobs.scan(func(k, v []byte) {
		ch, ver, seq, err := parseBlobKey(k)
		if bad(err) {
			return
		}
		h, err := parseBlob(v)
		if bad(err) {
			return
		}
		switch h.kind {
		case blobFull:
			if !json.Valid(h.payload) {
				bad(corruptf("value of %q at %d/%d is not JSON", ch, ver, seq))
			}
		case blobAppend:
			if !b.blobs.Has(blobKey(ch, h.prev.Version, h.prev.Seq)) {
				bad(corruptf("value of %q at %d/%d appends to a missing value", ch, ver, seq))
			}
			list := append(append([]byte{'['}, h.payload[1:]...), ']')
			if !json.Valid(list) {
				bad(corruptf("value of %q at %d/%d: appended elements are not JSON", ch, ver, seq))
			}
		}
	}, &rep)
	memo := map[string]*cpState{}
	damaged := stateDamages{byText: map[string]*stateDamage{}, of: map[string]*stateDamage{}}
	b.cps.scanEach(func(k, v []byte) {
		id, err := parseCheckpointKey(k)
		if bad(err) {
			return
		}
		rec, err := decodeRecord(v)
		if err != nil {
			damaged.add(id, err)
			return
		}
		if _, err := decodeMetadata(rec.Meta); bad(err) {
			return
		}
		if damaged.builtOn(id, rec) {
			return
		}
		st, err := loadState(b.cps, id, rec, memo)
		if err != nil {
			damaged.add(id, err)
			return
		}
		for ch, ref := range st.refs {
			if !b.blobs.Has(blobKey(ch, ref.Version, ref.Seq)) {
				bad(corruptf("checkpoint %q: value of %q at version %d is missing", id, ch, ref.Version))
			}
		}
		// Parents sort before children (time-ordered ids), so the memo
		// only needs the states still to be used as bases.
		if len(memo) > 4*fullEvery {
			clear(memo)
		}
	}, func(k []byte, err error) {
		id, _ := parseCheckpointKey(k) // a key that does not parse is damage of its own
		damaged.add(id, err)
	}, &rep.sum)
	for _, d := range damaged.list {
		bad(d)
	}
	b.writes.scan(func(k, v []byte) {
		if _, _, _, err := parseWriteKey(k); bad(err) {
			return
		}
		ch, enc, err := splitWrite(v)
		if !bad(err) && !json.Valid(enc) {
			bad(corruptf("write to %q is not JSON", ch))
		}
	}, &rep)
	b.kids.scan(func(k, v []byte) {
		_, _, err := parseChildKey(k)
		if !bad(err) && len(v) != 0 {
			bad(corruptf("child index entry %x has a value", k))
		}
	}, &rep)
	return rep.errs
}

// checkDigest compares the digest of the records Check met with the one
// the file keeps (sealed.go): a difference with every record sound is a
// page rolled back to an older copy, or records lost with their page.
func checkDigest(tx *bolt.Tx, found digest, rep *checkReport) {
	kept, err := decodeDigest(tx.Bucket(bucketMeta).Get(keyDigest))
	if rep.bad(err) || kept == found {
		return
	}
	rep.bad(corruptf("the file holds %d records that do not add up to the digest of the %d it should hold: "+
		"part of the file was rolled back to an older copy of a page, or records were lost with theirs", found.n, kept.n))
}
