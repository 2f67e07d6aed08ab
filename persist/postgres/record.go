package postgres

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// Stored records start with a format byte; an unknown one is reported, not
// misread.
const (
	recordFormat = 1 // checkpoints.rec: JSON cpRecord
	blobFull     = 1 // blobs.data: the engine's encoding of the value
	blobAppend   = 2 // blobs.data: elements added to the base list, comma-separated
	blobPack     = 3 // blobs.data: small values of one version (pack.go)
	// blobs.data: a pack that also holds a task's writes at the parent
	// checkpoint (pack.go, packWrites; schema 5)
	blobPackWrites = 4
)

// fullEvery bounds delta chains: every 64th checkpoint record of a branch
// is a full image of its versions and versions_seen.
const fullEvery = 64

// A list stored as added elements is stored whole again once the elements
// added since its last full copy outweigh that copy (as the bbolt store
// does): a superstep costs what it appended, the copies add up to a small
// multiple of the list's final size, and a read joins at most about twice
// the value.

// ref locates a channel's value: its version and the hash of the stored
// bytes (two branches of a fork may give a channel the same version with
// different values; the hash keeps them apart without a read), and the
// version of the full copy an appended list is built on (Version itself
// for a full copy), so one range scan reads a list's whole chain.
type ref struct {
	Version int64
	Hash    int64
	Root    int64
}

// cpState is a checkpoint's channel refs and versions_seen, rebuilt from
// its record and its ancestors'. States are shared and never modified.
type cpState struct {
	refs  []chanRef // sorted by channel
	seen  map[string]map[string]int64
	depth int
	base  string // the id of the full image the delta chain starts from
}

// chanRef is a channel's ref in a state. A state's refs are a slice
// sorted by channel, not a map: one allocation per checkpoint instead of
// a map's two, and the record encoder walks them in the order it writes.
type chanRef struct {
	channel string
	ref     ref
}

// find returns the index of channel ch in st's refs, or where it would
// go, and whether it is there.
func (st *cpState) find(ch string) (int, bool) {
	return slices.BinarySearchFunc(st.refs, ch, func(c chanRef, ch string) int { return strings.Compare(c.channel, ch) })
}

// setRef sets the ref of channel ch, which st has.
func (st *cpState) setRef(ch string, r ref) {
	i, _ := st.find(ch)
	st.refs[i].ref = r
}

func byChannel(a, b chanRef) int { return strings.Compare(a.channel, b.channel) }

// cpRecord is a checkpoint row's rec column. With Depth 0 it is a full
// image; otherwise Refs and Seen hold what changed since the parent and
// Del and SeenDel what the parent had and this one does not.
type cpRecord struct {
	V       int                         `json:"v"`
	TS      int64                       `json:"ts"` // unix nanoseconds, UTC
	Updated []string                    `json:"upd"`
	Meta    json.RawMessage             `json:"md"`
	Depth   int                         `json:"d"`
	Refs    map[string][3]int64         `json:"refs,omitempty"`
	Del     []string                    `json:"del,omitempty"`
	Seen    map[string]map[string]int64 `json:"seen,omitempty"`
	SeenDel []string                    `json:"sdel,omitempty"`
}

// metaRecord is the stored metadata; Extra values use the engine's codec.
type metaRecord struct {
	Source  string                     `json:"source"`
	Step    int                        `json:"step"`
	Parents map[string]string          `json:"parents"`
	Extra   map[string]json.RawMessage `json:"extra"`
}

// encodeMeta returns md's encoding.
func encodeMeta(md engine.Metadata) (json.RawMessage, error) {
	if md.Extra == nil {
		// One allocation: no record to build.
		return appendPlainMetaJSON(make([]byte, 0, 128), md.Source, md.Step, md.Parents), nil
	}
	r := metaRecord{Source: md.Source, Step: md.Step, Parents: md.Parents}
	r.Extra = make(map[string]json.RawMessage, len(md.Extra))
	for k, v := range md.Extra {
		b, err := engine.EncodeValue(v)
		if err != nil {
			return nil, fmt.Errorf("metadata %q: %w", k, err)
		}
		r.Extra[k] = b
	}
	return appendMetaJSON(nil, &r)
}

func decodeMeta(raw json.RawMessage) (engine.Metadata, error) {
	var r metaRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return engine.Metadata{}, corruptf("metadata: %v", err)
	}
	md := engine.Metadata{Source: r.Source, Step: r.Step, Parents: r.Parents}
	if r.Extra != nil {
		md.Extra = make(map[string]any, len(r.Extra))
		for k, raw := range r.Extra {
			v, err := engine.DecodeValue(raw)
			if err != nil {
				return engine.Metadata{}, corruptf("metadata %q: %v", k, err)
			}
			md.Extra[k] = v
		}
	}
	return md, nil
}

// seenEqual compares two versions_seen entries, keeping nil apart from an
// empty map (the engine may store either).
func seenEqual(a, b map[string]int64) bool {
	return (a == nil) == (b == nil) && maps.Equal(a, b)
}

func decodeRecord(data []byte) (*cpRecord, error) {
	var rec cpRecord
	if err := unmarshalRecord(data, &rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

// decodeHead reads a record's step and source, skipping its versions.
func decodeHead(data []byte) (engine.CheckpointHead, error) {
	var rec struct {
		Meta struct {
			Source string `json:"source"`
			Step   int    `json:"step"`
		} `json:"md"`
	}
	if err := unmarshalRecord(data, &rec); err != nil {
		return engine.CheckpointHead{}, err
	}
	return engine.CheckpointHead{Step: rec.Meta.Step, Source: rec.Meta.Source}, nil
}

// unmarshalRecord checks a stored record's format byte and decodes the
// JSON after it into v (a cpRecord, or a part of one).
func unmarshalRecord(data []byte, v any) error {
	if len(data) == 0 {
		return corruptf("empty checkpoint record")
	}
	if data[0] != recordFormat {
		return fmt.Errorf("%w: checkpoint record format %d", persist.ErrUnknownValueFormat, data[0])
	}
	if err := json.Unmarshal(data[1:], v); err != nil {
		return corruptf("checkpoint record: %v", err)
	}
	return nil
}

// apply returns the state rec describes on top of parent (nil for a full
// image).
func (rec *cpRecord) apply(parent *cpState) *cpState {
	st := &cpState{depth: rec.Depth}
	if rec.Depth == 0 || parent == nil {
		st.refs = make([]chanRef, 0, len(rec.Refs))
		st.seen = make(map[string]map[string]int64, len(rec.Seen))
	} else {
		// The parent's refs that neither changed nor were dropped.
		st.refs = make([]chanRef, 0, len(parent.refs)+len(rec.Refs))
		for _, c := range parent.refs {
			if _, changed := rec.Refs[c.channel]; !changed && !slices.Contains(rec.Del, c.channel) {
				st.refs = append(st.refs, c)
			}
		}
		st.seen = maps.Clone(parent.seen)
		for _, n := range rec.SeenDel {
			delete(st.seen, n)
		}
	}
	for ch, r := range rec.Refs {
		st.refs = append(st.refs, chanRef{ch, ref{Version: r[0], Hash: r[1], Root: r[2]}})
	}
	slices.SortFunc(st.refs, byChannel)
	maps.Copy(st.seen, rec.Seen)
	return st
}

func (rec *cpRecord) ts() time.Time { return time.Unix(0, rec.TS).UTC() }

// blob is one row of the blobs table as Put writes it, or a value that
// packBlobs puts in a pack: its kind (blobFull, blobAppend) and payload
// until then, and then the row's data (kind and payload) and ref.Hash.
type blob struct {
	channel string
	ref     ref
	base    ref  // the list this one appends to, when depth > 0
	depth   int  // appends since the last full copy
	has     bool // false: the channel has a version but no value
	kind    byte
	payload []byte
	data    []byte
}

// valueEnc is a channel value's encoding and the append chain it ends,
// kept by the store's cache so the next checkpoint can store only what
// was appended: depth appends since the full copy of base bytes, appended
// bytes since. enc is nil when the value was stored as appended elements
// (nobody needs it whole then).
type valueEnc struct {
	enc      []byte
	has      bool
	depth    int
	base     int
	appended int
}

// extend reports whether a suffix of n bytes may be appended to v's chain.
func (v *valueEnc) extend(n int) bool {
	return v != nil && v.has && v.appended+n <= v.base
}

// newBlob encodes channel's value at version ver. prev is the parent's
// value of the channel, if known: a list that only grew since then is
// stored as the added elements. tail, when not nil, is what the engine
// recorded the value appends to prev (engine.Checkpoint.AppendedTail): only
// it is encoded then. Without it (imports, other reducers' lists) the
// encodings are compared.
func newBlob(channel string, ver int64, val any, has bool, tail []any, prevRef *ref, prev *valueEnc) (blob, valueEnc, error) {
	b := blob{channel: channel, has: has}
	if has && len(tail) > 0 && prev != nil {
		enc, err := engine.EncodeValue(tail)
		if err != nil {
			return blob{}, valueEnc{}, fmt.Errorf("%w: channel %q: %w", persist.ErrInvalidCheckpoint, channel, err)
		}
		if suffix := enc[1 : len(enc)-1]; prev.extend(len(suffix)) {
			return appendBlob(b, ver, prevRef, prev, suffix), valueEnc{has: true, depth: prev.depth + 1, base: prev.base, appended: prev.appended + len(suffix)}, nil
		}
	}
	var enc []byte
	if has {
		var err error
		if enc, err = engine.EncodeValue(val); err != nil {
			return blob{}, valueEnc{}, fmt.Errorf("%w: channel %q: %w", persist.ErrInvalidCheckpoint, channel, err)
		}
	}
	if has && tail == nil && prev != nil && prev.enc != nil {
		if suffix, ok := engine.AppendedElements(prev.enc, enc); ok && prev.extend(len(suffix)) {
			return appendBlob(b, ver, prevRef, prev, suffix), valueEnc{enc: enc, has: true, depth: prev.depth + 1, base: prev.base, appended: prev.appended + len(suffix)}, nil
		}
	}
	b.kind, b.payload = blobFull, enc
	b.ref = ref{Version: ver, Root: ver}
	return b, valueEnc{enc: enc, has: has, base: len(enc)}, nil
}

// appendBlob fills b as the list at prevRef plus suffix.
func appendBlob(b blob, ver int64, prevRef *ref, prev *valueEnc, suffix []byte) blob {
	b.kind, b.payload = blobAppend, suffix
	b.base, b.depth = *prevRef, prev.depth+1
	b.ref = ref{Version: ver, Root: prevRef.Root}
	return b
}

// seal makes b a row of its own: its stored bytes and their hash.
func (b *blob) seal() {
	b.data = append(append(make([]byte, 0, 1+len(b.payload)), b.kind), b.payload...)
	b.ref.Hash = hashBlob(b.data, b.has)
}

// hashBlob is a blob's hash: FNV-1a (64 bits) of its bytes, followed by
// a zero byte when it has no value, shifted right by one (non-negative:
// easier to read in psql). Stored hashes are keys: it must not change
// (TestHashBlob checks it against hash/fnv). Written out rather than
// through hash/fnv's interface, and four bytes a round: every superstep
// hashes its pack.
func hashBlob(data []byte, has bool) int64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for len(data) >= 4 {
		h = (h ^ uint64(data[0])) * prime
		h = (h ^ uint64(data[1])) * prime
		h = (h ^ uint64(data[2])) * prime
		h = (h ^ uint64(data[3])) * prime
		data = data[4:]
	}
	for _, c := range data {
		h = (h ^ uint64(c)) * prime
	}
	if !has {
		h *= prime // a zero byte: h ^ 0 == h
	}
	return int64(h >> 1)
}

// joinAppends rebuilds a list from its full copy's encoding and the
// elements each append added, oldest first, in one allocation.
func joinAppends(base []byte, suffixes [][]byte) ([]byte, error) {
	if len(base) < 2 || base[0] != '[' || base[len(base)-1] != ']' {
		return nil, corruptf("append value: base is not a list")
	}
	size := len(base)
	for _, sfx := range suffixes {
		size += len(sfx) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, base[:len(base)-1]...)
	empty := len(base) == 2
	for _, sfx := range suffixes {
		if len(sfx) == 0 {
			continue
		}
		if !empty {
			out = append(out, ',')
		}
		out = append(out, sfx...)
		empty = false
	}
	return append(out, ']'), nil
}
