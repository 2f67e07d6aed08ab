package persist

import (
	"encoding/binary"
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkLayoutPages measures what the bucket layout alone costs bbolt,
// without the store's or the engine's code: it replays the records one
// superstep of the counting loop of BenchmarkThreadsSync writes (a
// checkpoint record, two values, two pending writes, a child edge, the
// thread's updated time; sizes as the store writes them) for many threads
// at once, ten threads' supersteps to a commit (as sync durability batches
// them at 32 threads), without fsync.
//
//   - nested: the store's layout 2, a bucket per thread, one per namespace
//     in it, and cp, blob, w and kids in that.
//   - prefixed: the four record buckets of a namespace merged into one,
//     each kind's keys behind a kind byte (so each kind keeps its range).
//   - cpfirst: like prefixed, but checkpoint records, pending writes and
//     child edges share one range ordered by checkpoint id first; values
//     keep their own range, ordered by channel.
//   - ordered (the store's layout 3 since it was measured here, see
//     ordered.go): like cpfirst, the root namespace's records in the
//     thread's bucket itself, and values keyed (version, channel, seq):
//     a superstep gives the channels it changes versions above every
//     existing one (engine/algo.go applyWrites), so new values sort last
//     too, and records keep naming their values by (version, seq).
//   - clustered: a bucket per thread whose keys start with the checkpoint
//     id, values included (a value keyed by the checkpoint that stored
//     it), so a superstep's records are adjacent and land on the bucket's
//     last page; no child index (a record names its parent).
//   - shared: clustered, with every thread in one bucket keyed by the
//     thread first: a thread's records stay together for reads, and no
//     bucket per thread (its root, its header) is rewritten. Measured
//     2026-12-03: 1.9 writes a superstep at 20 steps, 2.6 at 200 (the
//     one big bucket is deeper), against clustered's 2.6 and 2.9 and
//     log's 1.3 and 1.4; through BenchmarkLayoutSync at 32 threads it
//     was no faster than ordered within this machine's noise.
//   - log: every thread's records in one bucket, keyed by checkpoint id
//     first (ids are time-ordered across threads), then the thread, the
//     kind and the rest, values keyed by the checkpoint that stored them;
//     a thread's head and updated time in a bucket of heads. A commit's
//     supersteps, whatever their threads, append to the same last pages;
//     the pending writes and child edge land beside the parent, which the
//     commit before wrote.
//   - segments: the log in segments of segmentSupersteps supersteps, each
//     moved into clustered thread buckets by the superstep that fills it
//     (layoutSegments): a commit appends to shared pages as the log's
//     do, and a thread's bucket is rewritten once a segment rather than
//     once a superstep; only the newest segment's supersteps are read
//     the log's way.
//
// It reports pages written per superstep and the CPU time per superstep
// of the whole process; run it under callgrind for exact instruction
// counts. It measures candidate layouts that cluster a superstep's
// records, not the store.
func BenchmarkLayoutPages(b *testing.B) {
	for _, steps := range []int{20, 200} {
		for _, l := range []string{"nested", "prefixed", "cpfirst", "ordered", "clustered", "shared", "log", "segments"} {
			b.Run(fmt.Sprintf("%s/steps=%d", l, steps), func(b *testing.B) { benchLayout(b, l, steps) })
		}
	}
}

func benchLayout(b *testing.B, layout string, steps int) {
	const threads, perCommit = 32, 10
	db := openLayoutDB(b, true)
	var seq uint64
	record := make([]byte, 280)
	small := make([]byte, 13)
	cpuBefore, pagesBefore := cpuTime(), pagesWritten(db)
	supersteps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		last := make([]string, threads) // each thread's newest checkpoint
		step := make([]int, threads)
		for done := 0; done < threads*(steps+1); {
			err := db.Update(func(tx *bolt.Tx) error {
				for n := 0; n < perCommit && done < threads*(steps+1); n++ {
					t := done % threads
					thread := []byte(fmt.Sprint("t", i, "-", t))
					seq++
					id := layoutID(seq)
					if err := layoutPut(tx, layout, thread, last[t], id, step[t], record, small); err != nil {
						return err
					}
					last[t] = id
					step[t]++
					done++
					supersteps++
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	cpu := cpuTime() - cpuBefore
	b.ReportMetric(float64(pagesWritten(db)-pagesBefore)/float64(supersteps), "writes/superstep")
	b.ReportMetric(float64(cpu.Microseconds())/float64(supersteps), "cpu-µs/superstep")
}

// layoutPut writes one superstep's records in layout: the new checkpoint
// id of thread, whose previous checkpoint is parent ("" for the first)
// and which is its step'th.
func layoutPut(tx *bolt.Tx, layout string, thread []byte, parent, id string, step int, record, small []byte) error {
	switch layout {
	case "log":
		return layoutLog(tx, thread, parent, id, step, record, small)
	case "clustered":
		return layoutClustered(tx, thread, parent, id, step, record, small)
	case "shared":
		return layoutShared(tx, thread, parent, id, step, record, small)
	case "segments":
		return layoutSegments(tx, thread, parent, id, step, record, small)
	case "nested":
		return layoutNested(tx, thread, parent, id, step, record, small)
	default:
		return layoutPrefixed(tx, thread, parent, id, step, record, small, layout)
	}
}

func layoutNested(tx *bolt.Tx, thread []byte, parent, id string, step int, record, small []byte) error {
	tb, err := tx.Bucket(bucketThreads).CreateBucketIfNotExists(thread)
	if err != nil {
		return err
	}
	nb := tb.Bucket(nsBucketName(""))
	if nb == nil {
		if nb, err = tb.CreateBucket(nsBucketName("")); err != nil {
			return err
		}
		for _, name := range nsBucketNames {
			if _, err := nb.CreateBucket(name); err != nil {
				return err
			}
		}
	}
	cps, blobs, writes, kids := nb.Bucket(bucketCheckpoints), nb.Bucket(bucketBlobs), nb.Bucket(bucketWrites), nb.Bucket(bucketChildren)
	for _, bk := range []*bolt.Bucket{cps, blobs, writes, kids} {
		bk.FillPercent = fillPercent
	}
	if parent != "" {
		// The superstep's task wrote against the parent, then the new
		// checkpoint and its parent edge.
		for slot := range int64(2) {
			if err := writes.Put(writeKey(parent, "9f811562-8306-a46e-6773-0986ebacd63b", slot), small); err != nil {
				return err
			}
		}
		if err := kids.Put(childKey(parent, id), small[:4]); err != nil {
			return err
		}
	}
	for ch := range 2 {
		if err := blobs.Put(blobKey(fmt.Sprint("channel", ch), int64(step+1), 0), small); err != nil {
			return err
		}
	}
	if err := cps.Put(checkpointKey(id), record); err != nil {
		return err
	}
	return tb.Put(keyUpdated, binary.BigEndian.AppendUint64(nil, uint64(step)))
}

func layoutClustered(tx *bolt.Tx, thread []byte, parent, id string, step int, record, small []byte) error {
	tb, err := tx.Bucket(bucketThreads).CreateBucketIfNotExists(thread)
	if err != nil {
		return err
	}
	tb.FillPercent = fillPercent
	if parent != "" {
		for slot := range int64(2) {
			k := appendInt(appendString(append(appendString(nil, parent), 'w'), "9f811562-8306-a46e-6773-0986ebacd63b"), slot)
			if err := tb.Put(k, small); err != nil {
				return err
			}
		}
	}
	for ch := range 2 {
		if err := tb.Put(appendString(append(appendString(nil, id), 'b'), fmt.Sprint("channel", ch)), small); err != nil {
			return err
		}
	}
	if err := tb.Put(append(appendString(nil, id), 'c'), record); err != nil {
		return err
	}
	return tb.Put([]byte("\xffupdated"), binary.BigEndian.AppendUint64(nil, uint64(step)))
}

// layoutShared is the clustered layout with every thread in one bucket,
// "shared": a key is the thread, then the checkpoint id, the kind and the
// rest, the thread's updated time after its records. A thread's records
// stay together, as in its own bucket, but there is no bucket per thread
// to rewrite (its root page, its header in the threads bucket): threads
// share the branch pages, and short threads share leaves.
func layoutShared(tx *bolt.Tx, thread []byte, parent, id string, step int, record, small []byte) error {
	sb := tx.Bucket([]byte("shared"))
	sb.FillPercent = fillPercent
	key := func(cp string, kind byte, rest ...string) []byte {
		k := append(appendString(appendString(nil, string(thread)), cp), kind)
		for _, r := range rest {
			k = appendString(k, r)
		}
		return k
	}
	if parent != "" {
		for slot := range int64(2) {
			if err := sb.Put(appendInt(key(parent, 'w', "9f811562-8306-a46e-6773-0986ebacd63b"), slot), small); err != nil {
				return err
			}
		}
	}
	for ch := range 2 {
		if err := sb.Put(key(id, 'b', fmt.Sprint("channel", ch)), small); err != nil {
			return err
		}
	}
	if err := sb.Put(key(id, 'c'), record); err != nil {
		return err
	}
	return sb.Put(append(appendString(nil, string(thread)), "\xffupdated"...), binary.BigEndian.AppendUint64(nil, uint64(step)))
}

func layoutLog(tx *bolt.Tx, thread []byte, parent, id string, step int, record, small []byte) error {
	lb := tx.Bucket([]byte("log"))
	lb.FillPercent = fillPercent
	key := func(cp string, kind byte, rest ...string) []byte {
		k := append(appendString(appendString(nil, cp), string(thread)), kind)
		for _, r := range rest {
			k = appendString(k, r)
		}
		return k
	}
	if parent != "" {
		for slot := range int64(2) {
			if err := lb.Put(appendInt(key(parent, 'w', "9f811562-8306-a46e-6773-0986ebacd63b"), slot), small); err != nil {
				return err
			}
		}
		if err := lb.Put(key(parent, 'k', id), small[:4]); err != nil {
			return err
		}
	}
	for ch := range 2 {
		if err := lb.Put(key(id, 'b', fmt.Sprint("channel", ch)), small); err != nil {
			return err
		}
	}
	if err := lb.Put(key(id, 'c'), record); err != nil {
		return err
	}
	// The thread's head and updated time.
	return tx.Bucket([]byte("heads")).Put(thread, append([]byte(id), binary.BigEndian.AppendUint64(nil, uint64(step))...))
}

func layoutPrefixed(tx *bolt.Tx, thread []byte, parent, id string, step int, record, small []byte, layout string) error {
	tb, err := tx.Bucket(bucketThreads).CreateBucketIfNotExists(thread)
	if err != nil {
		return err
	}
	nb := tb
	updated := keyUpdated
	if layout == "ordered" {
		// The root namespace's records sit in the thread's bucket, its
		// own keys after them.
		updated = []byte("\xffupdated")
	} else if nb, err = tb.CreateBucketIfNotExists(nsBucketName("")); err != nil {
		return err
	}
	nb.FillPercent = fillPercent
	key := func(kind byte, k []byte) []byte { return append([]byte{kind}, k...) }
	if layout != "prefixed" {
		key = func(kind byte, k []byte) []byte {
			if kind == 'b' {
				return append([]byte{kind}, k...)
			}
			return append([]byte{'r'}, k...) // cp, w, kids: checkpoint id first
		}
	}
	if parent != "" {
		for slot := range int64(2) {
			if err := nb.Put(key('w', writeKey(parent, "9f811562-8306-a46e-6773-0986ebacd63b", slot)), small); err != nil {
				return err
			}
		}
		if err := nb.Put(key('k', childKey(parent, id)), small[:4]); err != nil {
			return err
		}
	}
	for ch := range 2 {
		k := blobKey(fmt.Sprint("channel", ch), int64(step+1), 0)
		if layout == "ordered" {
			k = appendUint(appendString(appendInt(nil, int64(step+1)), fmt.Sprint("channel", ch)), 0)
		}
		if err := nb.Put(key('b', k), small); err != nil {
			return err
		}
	}
	if err := nb.Put(key('c', checkpointKey(id)), record); err != nil {
		return err
	}
	return tb.Put(updated, binary.BigEndian.AppendUint64(nil, uint64(step)))
}

// segmentSupersteps is how many supersteps the segments model appends to
// a segment before it moves the segment into the threads' buckets.
const segmentSupersteps = 512

// layoutSegments is a log with batched compaction: each superstep is
// appended as in layoutLog, but to the newest segment, a bucket of its
// own under "segs", so that a commit's supersteps, whatever their
// threads, share the segment's last pages. The superstep that fills a
// segment moves the segment's records into the threads' buckets, laid
// out as layoutClustered lays them out (a thread's records together,
// ordered by checkpoint id), and drops the segment. A thread's bucket is
// then rewritten once a segment, for all the supersteps the segment
// holds of it, instead of once a superstep; reads of a thread's older
// history stay as cheap as the clustered layout's, and only the newest
// segment is read by point lookups, as the log is.
func layoutSegments(tx *bolt.Tx, thread []byte, parent, id string, step int, record, small []byte) error {
	segs := tx.Bucket([]byte("segs"))
	segs.FillPercent = fillPercent
	var cur, count uint64
	if v := segs.Get([]byte("cur")); v != nil {
		cur, count = binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])
	}
	name := binary.BigEndian.AppendUint64([]byte("s"), cur)
	sb, err := segs.CreateBucketIfNotExists(name)
	if err != nil {
		return err
	}
	sb.FillPercent = fillPercent
	key := func(cp string, kind byte, rest []byte) []byte {
		return append(append(appendString(appendString(nil, cp), string(thread)), kind), rest...)
	}
	if parent != "" {
		for slot := range int64(2) {
			if err := sb.Put(key(parent, 'w', appendInt(appendString(nil, "9f811562-8306-a46e-6773-0986ebacd63b"), slot)), small); err != nil {
				return err
			}
		}
		if err := sb.Put(key(parent, 'k', appendString(nil, id)), small[:4]); err != nil {
			return err
		}
	}
	for ch := range 2 {
		if err := sb.Put(key(id, 'b', appendString(nil, fmt.Sprint("channel", ch))), small); err != nil {
			return err
		}
	}
	if err := sb.Put(key(id, 'c', nil), record); err != nil {
		return err
	}
	if err := tx.Bucket([]byte("heads")).Put(thread, append([]byte(id), binary.BigEndian.AppendUint64(nil, uint64(step))...)); err != nil {
		return err
	}
	count++
	if count == segmentSupersteps {
		if err := compactSegment(tx, sb); err != nil {
			return err
		}
		if err := segs.DeleteBucket(name); err != nil {
			return err
		}
		cur, count = cur+1, 0
	}
	return segs.Put([]byte("cur"), binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, cur), count))
}

// compactSegment moves a segment's records into their threads' buckets,
// keyed by checkpoint id, the kind and the rest, as layoutClustered keys
// them (without child edges: a record names its parent).
func compactSegment(tx *bolt.Tx, sb *bolt.Bucket) error {
	threads := tx.Bucket(bucketThreads)
	buckets := map[string]*bolt.Bucket{}
	c := sb.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		cp, rest, err := readString(k)
		if err != nil {
			return err
		}
		thread, rest, err := readString(rest)
		if err != nil {
			return err
		}
		if len(rest) == 0 || rest[0] == 'k' {
			continue
		}
		tb := buckets[thread]
		if tb == nil {
			if tb, err = threads.CreateBucketIfNotExists([]byte(thread)); err != nil {
				return err
			}
			tb.FillPercent = fillPercent
			buckets[thread] = tb
		}
		if err := tb.Put(append(appendString(nil, cp), rest...), v); err != nil {
			return err
		}
	}
	for _, tb := range buckets {
		if err := tb.Put([]byte("\xffupdated"), make([]byte, 8)); err != nil {
			return err
		}
	}
	return nil
}
