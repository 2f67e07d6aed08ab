package persist

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"maps"
	"time"

	"github.com/superstep/superstep/engine"
)

// Every stored value starts with a format byte, so a later layout can be
// told apart (and an older build can refuse it clearly) record by record.
const (
	recordFormat byte = 1 // checkpoint records: JSON after the byte
	blobFormat   byte = 1 // channel values: kind byte, header, JSON
	writeFormat  byte = 1 // pending writes: channel, then JSON
)

// fullEvery is how often (in checkpoints along a parent chain) a full image
// of a checkpoint's versions is stored instead of a delta. It bounds the
// records decoded to rebuild one (fullEvery-1 deltas at most).
const fullEvery = 64

// An append-only list is stored as the elements added to its previous
// version (an append blob) until the elements appended since its last full
// image outweigh that image; then it is stored whole again. So the bytes
// written for a growing list are O(what was appended) per superstep, their
// sum stays within a small multiple of the list's final size, and reading
// a value costs O(its size): the chain's suffixes together are no bigger
// than its full image.
//
// maxChain bounds how many checkpoint records a rebuild follows before it
// decides the chain is corrupt (it could otherwise loop on a damaged
// file). Append chains need no such bound: each link goes to a strictly
// lower version, which readBlob checks.
const maxChain = 1024

// cpRecord is the stored form of a checkpoint, without channel values.
//
// Its versions are a delta from its parent's so a record does not
// grow with the channels and nodes the thread has touched; every fullEvery
// records along a chain, and whenever the parent is unknown, the record is
// a full image.
type cpRecord struct {
	V      int       `json:"v"`
	TS     time.Time `json:"ts"`
	Parent string    `json:"parent,omitempty"`
	// Delta says Versions and Seen are a delta of the parent's record;
	// otherwise they are a full image.
	Delta bool `json:"delta,omitempty"`
	// Depth counts the deltas since the last full image.
	Depth int `json:"depth,omitempty"`
	// Versions holds each channel's version (in a delta: the changed ones),
	// Seqs the blob sequence where it is not 0, Dropped the channels the
	// delta removes.
	Versions map[string]int64  `json:"cv,omitempty"`
	Seqs     map[string]uint64 `json:"cs,omitempty"`
	Dropped  []string          `json:"cvx,omitempty"`
	// Seen holds versions_seen per node (in a delta: the nodes whose map
	// changed, whole), SeenDropped the nodes the delta removes.
	Seen        map[string]map[string]int64 `json:"vs,omitempty"`
	SeenDropped []string                    `json:"vsx,omitempty"`
	// Updated keeps nil ("unknown") apart from empty: no omitempty.
	Updated []string `json:"upd"`
	Meta    mdRecord `json:"md"`
}

type mdRecord struct {
	Source  string                     `json:"source"`
	Step    int                        `json:"step"`
	Parents map[string]string          `json:"parents"`
	Extra   map[string]json.RawMessage `json:"extra"`
}

// chanRef locates a channel's value: its version and blob sequence.
type chanRef struct {
	Version int64
	Seq     uint64
}

// cpState is a checkpoint's rebuilt versions. States may be shared (a memo
// hands the same one to several children): treat them as immutable.
type cpState struct {
	refs  map[string]chanRef
	seen  map[string]map[string]int64
	depth int
}

func encodeRecord(r *cpRecord) ([]byte, error) {
	if out, ok := appendRecordJSON(append(make([]byte, 0, 256), recordFormat), r); ok {
		return out, nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append([]byte{recordFormat}, b...), nil
}

// decodeRecord parses a stored checkpoint record. It copies everything out
// of data, which may belong to a transaction.
func decodeRecord(data []byte) (*cpRecord, error) {
	return decodeRecordNames(data, nil)
}

// decodeRecordNames is decodeRecord sharing the channel and node names of
// the records it decodes through names (nil: none shared).
func decodeRecordNames(data []byte, names map[string]string) (*cpRecord, error) {
	if len(data) == 0 {
		return nil, corruptf("empty checkpoint record")
	}
	if data[0] != recordFormat {
		return nil, unknownFormat("checkpoint record", data[0])
	}
	var r cpRecord
	if parseRecord(data[1:], &r, names) {
		return &r, nil
	}
	if err := decodeRecordJSON(data[1:], &r); err != nil {
		return nil, corruptf("checkpoint record: %v", err)
	}
	return &r, nil
}

// decodeHead parses the parent, step and source of a stored checkpoint
// record.
func decodeHead(data []byte, names map[string]string) (engine.CheckpointHead, error) {
	r, err := decodeRecordNames(data, names)
	if err != nil {
		return engine.CheckpointHead{}, err
	}
	return engine.CheckpointHead{ParentID: r.Parent, Step: r.Meta.Step, Source: knownSource(r.Meta.Source)}, nil
}

// knownSource returns the engine's constant for one of its sources, so the
// heads of a long thread share four strings instead of holding a copy each.
func knownSource(s string) string {
	for _, k := range [...]string{engine.SourceLoop, engine.SourceInput, engine.SourceUpdate, engine.SourceFork} {
		if s == k {
			return k
		}
	}
	return s
}

// encodeMetadata turns md into its stored form; Extra values go through the
// engine's value codec.
func encodeMetadata(md engine.Metadata) (mdRecord, error) {
	out := mdRecord{Source: md.Source, Step: md.Step, Parents: md.Parents}
	if md.Extra != nil {
		out.Extra = make(map[string]json.RawMessage, len(md.Extra))
		for k, v := range md.Extra {
			b, err := engine.EncodeValue(v)
			if err != nil {
				return mdRecord{}, err
			}
			out.Extra[k] = b
		}
	}
	return out, nil
}

func decodeMetadata(r mdRecord) (engine.Metadata, error) {
	md := engine.Metadata{Source: r.Source, Step: r.Step, Parents: maps.Clone(r.Parents)}
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

// fullState returns the state a full-image record describes.
func (r *cpRecord) fullState() *cpState {
	st := &cpState{refs: make(map[string]chanRef, len(r.Versions)), seen: make(map[string]map[string]int64, len(r.Seen))}
	for ch, v := range r.Versions {
		st.refs[ch] = chanRef{v, r.Seqs[ch]}
	}
	maps.Copy(st.seen, r.Seen)
	return st
}

// applyDelta returns base changed by r's delta. It copies base's maps, so
// base stays valid for others who hold it.
func (r *cpRecord) applyDelta(base *cpState) *cpState {
	st := &cpState{refs: maps.Clone(base.refs), seen: maps.Clone(base.seen), depth: r.Depth}
	for _, ch := range r.Dropped {
		delete(st.refs, ch)
	}
	for ch, v := range r.Versions {
		st.refs[ch] = chanRef{v, r.Seqs[ch]}
	}
	for _, n := range r.SeenDropped {
		delete(st.seen, n)
	}
	maps.Copy(st.seen, r.Seen)
	return st
}

// setVersions fills r's versions from st: a full image when base is nil,
// otherwise the delta from base.
func (r *cpRecord) setVersions(st, base *cpState) {
	r.Versions, r.Seqs, r.Dropped, r.Seen, r.SeenDropped = nil, nil, nil, nil, nil
	put := func(ch string, ref chanRef) {
		if r.Versions == nil {
			r.Versions = map[string]int64{}
		}
		r.Versions[ch] = ref.Version
		if ref.Seq != 0 {
			if r.Seqs == nil {
				r.Seqs = map[string]uint64{}
			}
			r.Seqs[ch] = ref.Seq
		}
	}
	if base == nil {
		for ch, ref := range st.refs {
			put(ch, ref)
		}
		if len(st.seen) > 0 {
			r.Seen = maps.Clone(st.seen)
		}
		return
	}
	for ch, ref := range st.refs {
		if old, ok := base.refs[ch]; !ok || old != ref {
			put(ch, ref)
		}
	}
	for ch := range base.refs {
		if _, ok := st.refs[ch]; !ok {
			r.Dropped = append(r.Dropped, ch)
		}
	}
	for n, m := range st.seen {
		if old, ok := base.seen[n]; !ok || !maps.Equal(old, m) {
			if r.Seen == nil {
				r.Seen = map[string]map[string]int64{}
			}
			r.Seen[n] = m
		}
	}
	for n := range base.seen {
		if _, ok := st.seen[n]; !ok {
			r.SeenDropped = append(r.SeenDropped, n)
		}
	}
}

// loadState rebuilds the versions of checkpoint id from its record chain.
// rec is the record of id itself. memo, when not nil, caches states by id
// across calls within one transaction (List rebuilds many neighbours).
func loadState(cps *records, id string, rec *cpRecord, memo map[string]*cpState) (*cpState, error) {
	var chain []*cpRecord // chain[0] is rec; later entries are older bases
	var base *cpState
	cur := rec
	for {
		if !cur.Delta {
			base = cur.fullState()
			chain = append(chain, nil) // cur is consumed as the base
			break
		}
		chain = append(chain, cur)
		if st := memo[cur.Parent]; st != nil {
			base = st
			break
		}
		if len(chain) > maxChain {
			return nil, corruptf("checkpoint %q: delta chain longer than %d", id, maxChain)
		}
		if cur.Parent == "" {
			return nil, corruptf("checkpoint %q: a delta without a parent", id)
		}
		data, err := cps.Get(checkpointKey(cur.Parent))
		if err != nil {
			return nil, err
		}
		if data == nil {
			return nil, corruptf("checkpoint %q: delta base %q is missing", id, cur.Parent)
		}
		next, err := decodeRecord(data)
		if err != nil {
			return nil, err
		}
		cur = next
	}
	st := base
	for i := len(chain) - 1; i >= 0; i-- {
		if chain[i] != nil {
			st = chain[i].applyDelta(st)
		}
	}
	if memo != nil {
		memo[id] = st
	}
	return st, nil
}

// Blob kinds.
const (
	blobEmpty  byte = 0 // the channel has a version but no value
	blobFull   byte = 1 // JSON of the whole value
	blobAppend byte = 2 // a list: the previous version's list plus elements
	// blobAppendSized is blobAppend that also records the size of its
	// chain's full image and of the suffixes since, so the next append can
	// decide without reading the chain. It is what Put writes; parseBlob
	// reports both kinds as blobAppend.
	blobAppendSized byte = 3
)

// encodeFullBlob stores a whole value (enc == nil, has == false: empty).
func encodeFullBlob(enc []byte, has bool) []byte {
	if !has {
		return []byte{blobFormat, blobEmpty}
	}
	out := make([]byte, 0, 2+len(enc))
	return append(append(out, blobFormat, blobFull), enc...)
}

// encodeAppendBlob stores a list as the list at prev plus a suffix: the
// bytes ",e1,e2" that follow the previous list's last element. sz is the
// chain's sizes with this suffix counted.
func encodeAppendBlob(prev chanRef, sz chainSize, suffix []byte) []byte {
	out := make([]byte, 0, 2+5*binary.MaxVarintLen64+len(suffix))
	out = append(out, blobFormat, blobAppendSized)
	out = binary.AppendVarint(out, prev.Version)
	out = binary.AppendUvarint(out, prev.Seq)
	out = binary.AppendUvarint(out, uint64(sz.depth))
	out = binary.AppendUvarint(out, uint64(sz.base))
	out = binary.AppendUvarint(out, uint64(sz.appended))
	return append(out, suffix...)
}

// chainSize describes the append chain a stored list value ends: how many
// appends since its full image (depth), that image's size (base) and the
// bytes appended since (appended). base < 0: unknown (a blob an older
// build wrote), so the next version is stored whole.
type chainSize struct {
	depth, base, appended int
}

// extend returns the chain's sizes with a suffix of n bytes appended, and
// whether appending is still worth it: while the suffixes weigh no more
// than the full image, a reader joins at most twice the image's bytes.
func (c chainSize) extend(n int) (chainSize, bool) {
	next := chainSize{depth: c.depth + 1, base: c.base, appended: c.appended + n}
	return next, c.base >= 0 && next.appended <= c.base
}

// blobHeader is a parsed blob without its payload copied.
type blobHeader struct {
	kind    byte // blobEmpty, blobFull or blobAppend (either append kind)
	prev    chanRef
	size    chainSize
	payload []byte // aliases the stored bytes
}

func parseBlob(data []byte) (blobHeader, error) {
	if len(data) < 2 {
		return blobHeader{}, corruptf("short value record")
	}
	if data[0] != blobFormat {
		return blobHeader{}, unknownFormat("value record", data[0])
	}
	h := blobHeader{kind: data[1], payload: data[2:]}
	switch h.kind {
	case blobEmpty:
		if len(h.payload) != 0 {
			return blobHeader{}, corruptf("empty value record has a payload")
		}
	case blobFull:
		h.size = chainSize{base: len(h.payload)}
	case blobAppend, blobAppendSized:
		p := h.payload
		v, n := binary.Varint(p)
		if n <= 0 {
			return blobHeader{}, corruptf("append record: bad previous version")
		}
		p = p[n:]
		seq, n := binary.Uvarint(p)
		if n <= 0 {
			return blobHeader{}, corruptf("append record: bad previous sequence")
		}
		p = p[n:]
		h.prev = chanRef{v, seq}
		var sz [3]uint64
		fields := 1
		if h.kind == blobAppendSized {
			fields = 3
		}
		for i := range fields {
			if sz[i], n = binary.Uvarint(p); n <= 0 || sz[i] > 1<<48 {
				return blobHeader{}, corruptf("append record: bad chain size")
			}
			p = p[n:]
		}
		h.size = chainSize{depth: int(sz[0]), base: int(sz[1]), appended: int(sz[2])}
		if h.kind == blobAppend {
			h.size.base = -1
		}
		if len(p) < 2 || p[0] != ',' {
			return blobHeader{}, corruptf("append record: bad suffix")
		}
		h.kind, h.payload = blobAppend, p
	default:
		return blobHeader{}, unknownFormat("value record kind", h.kind)
	}
	return h, nil
}

// blobValue is a channel value read back: its JSON (a fresh copy), whether
// the channel has a value at all, the append chain it ends, and whether
// the blob exists.
type blobValue struct {
	enc   []byte
	has   bool
	size  chainSize
	found bool
}

// readBlob returns channel's value at ref, following an append chain back
// to its full image. A missing blob is found == false, not an error.
func readBlob(blobs *records, channel string, ref chanRef) (blobValue, error) {
	var suffixes [][]byte // aliases of stored bytes, newest first
	var out blobValue
	cur := ref
	for {
		data, err := blobs.Get(blobKey(channel, cur.Version, cur.Seq))
		if err != nil {
			return blobValue{}, err
		}
		if data == nil {
			if len(suffixes) == 0 {
				return blobValue{}, nil
			}
			return blobValue{}, corruptf("channel %q: value %d/%d of an append chain is missing", channel, cur.Version, cur.Seq)
		}
		h, err := parseBlob(data)
		if err != nil {
			return blobValue{}, err
		}
		if len(suffixes) == 0 {
			out.size = h.size
		}
		switch h.kind {
		case blobEmpty:
			if len(suffixes) > 0 {
				return blobValue{}, corruptf("channel %q: append chain ends in an empty value", channel)
			}
			return blobValue{found: true}, nil
		case blobAppend:
			if h.prev.Version >= cur.Version {
				// Versions only grow, so a chain that does not go down
				// is damaged (and might loop).
				return blobValue{}, corruptf("channel %q: value %d/%d appends to version %d, not an older one", channel, cur.Version, cur.Seq, h.prev.Version)
			}
			suffixes = append(suffixes, h.payload)
			cur = h.prev
			continue
		}
		// A full value ends the chain.
		out.found, out.has = true, true
		full := h.payload
		if len(suffixes) == 0 {
			out.enc = bytes.Clone(full)
			return out, nil
		}
		if len(full) < 2 || full[0] != '[' || full[len(full)-1] != ']' {
			return blobValue{}, corruptf("channel %q: append chain does not start from a list", channel)
		}
		size := len(full)
		for _, s := range suffixes {
			size += len(s)
		}
		enc := make([]byte, 0, size)
		enc = append(enc, full[:len(full)-1]...)
		for i := len(suffixes) - 1; i >= 0; i-- {
			enc = append(enc, suffixes[i]...)
		}
		out.enc = append(enc, ']')
		return out, nil
	}
}

// appendSuffix is engine.AppendedElements in the form this store keeps
// an append: the bytes that follow prev's last element (",e1,..."), so
// that a list is its full copy's bytes without "]" and its appends'
// suffixes. A list that was empty ("[]") has no element to follow, and
// is stored whole.
func appendSuffix(prev, next []byte) ([]byte, bool) {
	if len(prev) < 3 {
		return nil, false
	}
	if _, ok := engine.AppendedElements(prev, next); !ok {
		return nil, false
	}
	return next[len(prev)-1 : len(next)-1], true
}

// splitWrite parses a stored pending write into its channel and the JSON
// of its value, which aliases data.
func splitWrite(data []byte) (channel string, enc []byte, err error) {
	if len(data) == 0 {
		return "", nil, corruptf("empty write record")
	}
	if data[0] != writeFormat {
		return "", nil, unknownFormat("write record", data[0])
	}
	n, k := binary.Uvarint(data[1:])
	if k <= 0 || n > uint64(len(data)-1-k) {
		return "", nil, corruptf("write record: bad channel length")
	}
	p := data[1+k:]
	return string(p[:n]), p[n:], nil
}

// decodeWrite parses a stored pending write and decodes its value.
func decodeWrite(data []byte) (channel string, value any, err error) {
	channel, enc, err := splitWrite(data)
	if err != nil {
		return "", nil, err
	}
	if value, err = engine.DecodeValue(enc); err != nil {
		return "", nil, corruptf("write record for %q: %v", channel, err)
	}
	return channel, value, nil
}

func encodeWrite(channel string, enc []byte) []byte {
	out := make([]byte, 0, 1+binary.MaxVarintLen64+len(channel)+len(enc))
	out = append(out, writeFormat)
	out = binary.AppendUvarint(out, uint64(len(channel)))
	out = append(out, channel...)
	return append(out, enc...)
}
