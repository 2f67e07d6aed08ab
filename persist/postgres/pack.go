package postgres

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
)

// A superstep gives every channel it updates the same new version
// (engine/algo.go applyWrites: next; LangGraph.js
// libs/langgraph-core/src/pregel/algo.ts:396, 414 and 430, one
// getNextVersion(maxVersion) for all of them; the trigger channels it
// consumes share the version before, algo.ts:327). The small values a
// checkpoint stores at one version share one blobs row, a pack, instead
// of a row each: a row costs the server a heap insert, a B-tree insert
// and their WAL records, the larger part of what storing a value costs.
//
// A pack is the row (thread, ns, '', version, hash): no channel is named
// '' (persist.CheckName), so packs and single values never share a key, and one
// range scan of channel '' reads the packs of a version range, as one of
// a channel reads its single values. A packed value's ref holds the
// bitwise complement of the pack's hash, which is negative (hashBlob's
// are not), so a ref says where its value is; the refs of records and of
// appended lists' bases are stored as before.
//
// Only values of at most packMax bytes are packed, and task writes
// (packWrites) of at most packMax bytes in all: reading a list's chain
// scans the packs of its versions, other channels' values and writes
// included, and the bound keeps that a small multiple of the chain itself.

// packMax is the largest stored value a pack holds.
const packMax = 1024

// packed reports whether r names a value in a pack.
func (r ref) packed() bool { return r.Hash < 0 }

// packChannel is the channel column of a pack row.
const packChannel = ""

// packBlobs makes the rows of a checkpoint's new values: the small values
// that share a version become one pack per version, the others rows of
// their own (sealed), and it points the channels' refs in st at them.
// It reorders and reuses blobs.
//
// With fold, the pack of the lowest version in fold's range also holds
// fold's writes (a one-value run becomes a pack for them), and it reports
// whether one did: none does when no small value has a version in the
// range, and the writes are then stored as rows (see foldSpan).
func packBlobs(blobs []blob, st *cpState, fold *packWrites) (out []blob, folded bool) {
	small := 0
	for i := range blobs {
		if packable(&blobs[i]) {
			small++
		}
	}
	if small < 2 && fold == nil {
		for i := range blobs {
			blobs[i].seal()
			st.setRef(blobs[i].channel, blobs[i].ref)
		}
		return blobs, false
	}
	// Small values first, by version, then channel: a version's run is
	// one pack, whose bytes (and so hash) do not depend on map order.
	slices.SortFunc(blobs, func(a, b blob) int {
		pa, pb := packable(&a), packable(&b)
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.ref.Version, b.ref.Version), strings.Compare(a.channel, b.channel))
	})
	// A run becomes one row, written at or before the run's start.
	w := 0
	for i := 0; i < len(blobs); {
		j := i + 1
		for i < small && j < small && blobs[j].ref.Version == blobs[i].ref.Version {
			j++
		}
		var with *packWrites
		if !folded && fold != nil && i < small && fold.lo < blobs[i].ref.Version && blobs[i].ref.Version <= fold.hi {
			with, folded = fold, true
		}
		if j-i == 1 && with == nil {
			blobs[i].seal()
			st.setRef(blobs[i].channel, blobs[i].ref)
			blobs[w] = blobs[i]
		} else {
			pk := newPack(blobs[i:j], with)
			for _, b := range blobs[i:j] {
				st.setRef(b.channel, ref{Version: pk.ref.Version, Hash: ^pk.ref.Hash, Root: b.ref.Root})
			}
			blobs[w] = pk
		}
		w++
		i = j
	}
	clear(blobs[w:])
	return blobs[:w], folded
}

func packable(b *blob) bool { return 1+len(b.payload) <= packMax }

// newPack encodes values of one version, sorted by channel, as a pack:
// after the format byte, with writes (format blobPackWrites) the
// checkpoint and task they belong to and the number of writes, then each
// write's slot, channel and encoded value; then the number of values and,
// for each value its channel, a flags byte (1: has a value), its chain's
// root, its depth and, when it appends (depth > 0), the version and hash
// of its base, then its stored bytes (kind and payload, as a row of its
// own holds them); the integers as varints, the strings and bytes after
// their length.
func newPack(vals []blob, with *packWrites) blob {
	format := byte(blobPack)
	if with != nil {
		format = blobPackWrites
	}
	// Encoded on the stack, then copied whole: sized from its parts'
	// bounds, a pack's buffer came out nearly twice its bytes (a
	// superstep's largest allocation).
	var buf [512]byte
	data := append(buf[:0], format)
	if with != nil {
		data = appendBytes(data, with.checkpoint)
		data = appendBytes(data, with.task)
		data = binary.AppendUvarint(data, uint64(len(with.writes)))
		for _, w := range with.writes {
			data = binary.AppendVarint(data, w.slot)
			data = appendBytes(data, w.channel)
			data = appendBytes(data, w.value)
		}
	}
	data = binary.AppendUvarint(data, uint64(len(vals)))
	for _, v := range vals {
		data = appendBytes(data, v.channel)
		var flags byte
		if v.has {
			flags = 1
		}
		data = append(data, flags)
		data = binary.AppendVarint(data, v.ref.Root)
		data = binary.AppendUvarint(data, uint64(v.depth))
		if v.depth > 0 {
			data = binary.AppendVarint(data, v.base.Version)
			data = binary.AppendVarint(data, v.base.Hash)
		}
		data = binary.AppendUvarint(data, uint64(1+len(v.payload)))
		data = append(data, v.kind)
		data = append(data, v.payload...)
	}
	kept := bytes.Clone(data)
	ver := vals[0].ref.Version
	return blob{channel: packChannel, ref: ref{Version: ver, Hash: hashBlob(kept, true), Root: ver}, has: true, data: kept}
}

// appendBytes appends b after its length.
func appendBytes[T string | []byte](data []byte, b T) []byte {
	data = binary.AppendUvarint(data, uint64(len(b)))
	return append(data, b...)
}

// packEntry is one value of a pack as read back.
type packEntry struct {
	channel string
	root    int64
	base    *ref
	depth   int
	has     bool
	data    []byte
}

// packWant is a channel whose values a read wants from packs: those of
// versions lo to hi.
type packWant struct {
	channel string
	lo, hi  int64
}

// packWrites are the regular writes of one task at a checkpoint, held in
// the pack of one of its children (schema 5): a superstep's last task's
// writes, which the engine defers to the commit of the checkpoint that
// follows (engine.WriteDeferrer), cost no row of their own there. They
// are found from their checkpoint: in a pack of a version in (lo, hi],
// the versions just above the checkpoint's highest (foldSpan).
type packWrites struct {
	checkpoint, task string
	writes           []taskWrite
	lo, hi           int64 // writing: the versions whose pack may hold them; read: the pack's version
	hash             int64 // read: the pack's hash
}

// foldSpan is how far above its checkpoint's highest channel version a
// pack may hold the checkpoint's writes. The superstep that follows a
// checkpoint gives the channels it updates the version after the highest
// of the checkpoint's versions (engine/algo.go applyWrites: next =
// maxV + 1; LangGraph.js libs/langgraph-core/src/pregel/algo.ts:321 and
// 396, getNextVersion(maxVersion)), or the one after that when it
// consumed trigger channels first (algo.ts:327 and 370): two versions. A
// child whose small values are at other versions does not hold the
// writes; they are stored as rows.
const foldSpan = 2

// foldRange is the versions whose pack may hold the writes of the
// checkpoint whose state is st.
func foldRange(st *cpState) (lo, hi int64) {
	for _, r := range st.refs {
		lo = max(lo, r.ref.Version)
	}
	return lo, lo + foldSpan
}

// decodePack appends to dst the values of a pack stored at version ver
// that want asks for (all of them when want is nil), and returns the
// writes it holds if folds asks for them: when the pack's version is in
// the range (lo, hi] folds gives their checkpoint (always when folds is
// nil). The whole pack is checked either way.
func decodePack(dst []packEntry, ver int64, data []byte, want map[string]packWant, folds map[string]span) ([]packEntry, *packWrites, error) {
	if len(data) == 0 || (data[0] != blobPack && data[0] != blobPackWrites) {
		return nil, nil, corruptf("pack at version %d: not a pack", ver)
	}
	bad := func() ([]packEntry, *packWrites, error) {
		return nil, nil, corruptf("pack at version %d is damaged", ver)
	}
	r := packReader{rest: data[1:]}
	var pw *packWrites
	if data[0] == blobPackWrites {
		var ok bool
		if pw, ok = r.writes(ver, folds); !ok {
			return bad()
		}
	}
	count, ok := r.uvarint()
	if !ok || count == 0 || count > uint64(len(r.rest)) {
		return bad()
	}
	out := dst
	for range count {
		e, keep, ok := r.entry(ver, want)
		if !ok {
			return bad()
		}
		if keep {
			out = append(out, e)
		}
	}
	if len(r.rest) > 0 {
		return bad()
	}
	return out, pw, nil
}

// packReader reads a pack's fields in order from rest, what is left of
// it; each read reports false when the pack ends early or is malformed.
type packReader struct{ rest []byte }

func (r *packReader) uvarint() (uint64, bool) {
	v, n := binary.Uvarint(r.rest)
	if n <= 0 {
		return 0, false
	}
	r.rest = r.rest[n:]
	return v, true
}

func (r *packReader) varint() (int64, bool) {
	v, n := binary.Varint(r.rest)
	if n <= 0 {
		return 0, false
	}
	r.rest = r.rest[n:]
	return v, true
}

// bytes reads a length and that many bytes, capped so appending to them
// cannot overwrite the rest.
func (r *packReader) bytes() ([]byte, bool) {
	n, ok := r.uvarint()
	if !ok || n > uint64(len(r.rest)) {
		return nil, false
	}
	b := r.rest[:n:n]
	r.rest = r.rest[n:]
	return b, true
}

// writes reads the task writes a pack of version ver holds: nil when
// folds asks for those of no checkpoint it names in a range holding ver
// (always kept when folds is nil); they are checked either way.
func (r *packReader) writes(ver int64, folds map[string]span) (*packWrites, bool) {
	cp, ok1 := r.bytes()
	task, ok2 := r.bytes()
	n, ok3 := r.uvarint()
	if !ok1 || !ok2 || !ok3 || len(cp) == 0 || n == 0 || n > uint64(len(r.rest)) {
		return nil, false
	}
	var pw *packWrites
	// Only a checkpoint's own range holds its writes: a pack of
	// another fork at other versions may name it too.
	if f, ok := folds[string(cp)]; folds == nil || ok && f.lo < ver && ver <= f.hi {
		pw = &packWrites{checkpoint: string(cp), task: string(task), writes: make([]taskWrite, 0, n), lo: ver, hi: ver}
	}
	for range n {
		slot, ok := r.varint()
		if !ok || slot < 0 {
			return nil, false
		}
		ch, ok := r.bytes()
		if !ok || len(ch) == 0 {
			return nil, false
		}
		val, ok := r.bytes()
		if !ok {
			return nil, false
		}
		if pw != nil {
			pw.writes = append(pw.writes, taskWrite{slot, string(ch), val})
		}
	}
	return pw, true
}

// entry reads a pack's next value, and whether want asks for it at the
// pack's version ver (keep; all are when want is nil).
func (r *packReader) entry(ver int64, want map[string]packWant) (e packEntry, keep, ok bool) {
	ch, ok := r.bytes()
	if !ok || len(ch) == 0 || len(r.rest) == 0 {
		return e, false, false
	}
	keep = want == nil
	if keep {
		e.channel = string(ch)
	} else if w, ok := want[string(ch)]; ok && w.lo <= ver && ver <= w.hi {
		e.channel, keep = w.channel, true
	}
	e.has = r.rest[0]&1 != 0
	r.rest = r.rest[1:]
	var depth uint64
	if e.root, ok = r.varint(); !ok {
		return e, false, false
	}
	if depth, ok = r.uvarint(); !ok || depth > 1<<30 {
		return e, false, false
	}
	e.depth = int(depth)
	if e.depth > 0 {
		b := ref{Root: e.root}
		if b.Version, ok = r.varint(); !ok {
			return e, false, false
		}
		if b.Hash, ok = r.varint(); !ok {
			return e, false, false
		}
		if keep {
			e.base = &b
		}
	}
	if e.data, ok = r.bytes(); !ok {
		return e, false, false
	}
	return e, keep, true
}
