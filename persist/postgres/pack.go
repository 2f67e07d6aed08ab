package postgres

import (
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
// '' (checkID), so packs and single values never share a key, and one
// range scan of channel '' reads the packs of a version range, as one of
// a channel reads its single values. A packed value's ref holds the
// bitwise complement of the pack's hash, which is negative (hashBlob's
// are not), so a ref says where its value is; the refs of records and of
// appended lists' bases are stored as before.
//
// Only values of at most packMax bytes are packed: reading a list's chain
// scans the packs of its versions, other channels' values included, and
// the bound keeps that a small multiple of the chain itself.

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
func packBlobs(blobs []blob, st *cpState) []blob {
	small := 0
	for i := range blobs {
		if packable(&blobs[i]) {
			small++
		}
	}
	if small < 2 {
		for i := range blobs {
			blobs[i].seal()
			st.setRef(blobs[i].channel, blobs[i].ref)
		}
		return blobs
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
		if j-i == 1 {
			blobs[i].seal()
			st.setRef(blobs[i].channel, blobs[i].ref)
			blobs[w] = blobs[i]
		} else {
			pk := newPack(blobs[i:j])
			for _, b := range blobs[i:j] {
				st.setRef(b.channel, ref{Version: pk.ref.Version, Hash: ^pk.ref.Hash, Root: b.ref.Root})
			}
			blobs[w] = pk
		}
		w++
		i = j
	}
	clear(blobs[w:])
	return blobs[:w]
}

func packable(b *blob) bool { return 1+len(b.payload) <= packMax }

// newPack encodes values of one version, sorted by channel, as a pack:
// after the format byte and the number of values, for each value its channel, a flags byte (1: has
// a value), its chain's root, its depth and, when it appends (depth > 0),
// the version and hash of its base, then its stored bytes (kind and
// payload, as a row of its own holds them); the integers
// as varints, the strings and bytes after their length.
func newPack(vals []blob) blob {
	size := 1
	for _, v := range vals {
		size += len(v.channel) + 1 + len(v.payload) + 5*binary.MaxVarintLen64
	}
	data := make([]byte, 1, size)
	data[0] = blobPack
	data = binary.AppendUvarint(data, uint64(len(vals)))
	for _, v := range vals {
		data = binary.AppendUvarint(data, uint64(len(v.channel)))
		data = append(data, v.channel...)
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
	ver := vals[0].ref.Version
	return blob{channel: packChannel, ref: ref{Version: ver, Hash: hashBlob(data, true), Root: ver}, has: true, data: data}
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

// decodePack appends to dst the values of a pack stored at version ver
// that want asks for (all of them when want is nil). The whole pack is
// checked either way.
func decodePack(dst []packEntry, ver int64, data []byte, want map[string]packWant) ([]packEntry, error) {
	if len(data) == 0 || data[0] != blobPack {
		return nil, corruptf("pack at version %d: not a pack", ver)
	}
	rest := data[1:]
	bad := func() ([]packEntry, error) { return nil, corruptf("pack at version %d is damaged", ver) }
	uvarint := func() (uint64, bool) {
		v, n := binary.Uvarint(rest)
		if n <= 0 {
			return 0, false
		}
		rest = rest[n:]
		return v, true
	}
	varint := func() (int64, bool) {
		v, n := binary.Varint(rest)
		if n <= 0 {
			return 0, false
		}
		rest = rest[n:]
		return v, true
	}
	bytes := func() ([]byte, bool) {
		n, ok := uvarint()
		if !ok || n > uint64(len(rest)) {
			return nil, false
		}
		b := rest[:n:n]
		rest = rest[n:]
		return b, true
	}
	count, ok := uvarint()
	if !ok || count == 0 || count > uint64(len(rest)) {
		return bad()
	}
	out := dst
	for range count {
		var e packEntry
		ch, ok := bytes()
		if !ok || len(ch) == 0 || len(rest) == 0 {
			return bad()
		}
		keep := want == nil
		if keep {
			e.channel = string(ch)
		} else if w, ok := want[string(ch)]; ok && w.lo <= ver && ver <= w.hi {
			e.channel, keep = w.channel, true
		}
		e.has = rest[0]&1 != 0
		rest = rest[1:]
		var depth uint64
		if e.root, ok = varint(); !ok {
			return bad()
		}
		if depth, ok = uvarint(); !ok || depth > 1<<30 {
			return bad()
		}
		e.depth = int(depth)
		if e.depth > 0 {
			b := ref{Root: e.root}
			if b.Version, ok = varint(); !ok {
				return bad()
			}
			if b.Hash, ok = varint(); !ok {
				return bad()
			}
			if keep {
				e.base = &b
			}
		}
		if e.data, ok = bytes(); !ok {
			return bad()
		}
		if keep {
			out = append(out, e)
		}
	}
	if len(rest) > 0 {
		return bad()
	}
	return out, nil
}
