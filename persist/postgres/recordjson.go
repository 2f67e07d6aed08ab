package postgres

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/internal/jsonw"
)

// A checkpoint's record and metadata are encoded on every Put: these write
// the bytes encoding/json writes for them (package jsonw), without its
// reflection, which cost a tenth of a superstep's CPU in this process.
// Decoding stays with encoding/json.

// encodeNewRecord encodes the record of a checkpoint whose state is st,
// with its format byte, and returns it and its depth: a full image, or,
// when there is a parent and its delta chain is short enough, a delta of
// the parent's state. A full image holds every ref and versions_seen
// entry; a delta the refs and entries that are new or differ from the
// parent's, and the names of those the parent had and st has not. The
// bytes are json.Marshal of the cpRecord that says so (TestRecordJSON),
// with del and sdel sorted, written straight from the states: building
// the record's maps first was a tenth of the allocations of a superstep.
// The metadata is meta, or, when plain is not nil, plain's, which has no
// Extra, written straight into the record (encoding it apart first cost
// an allocation a superstep).
func encodeNewRecord(v int, ts int64, updated []string, meta json.RawMessage, plain *engine.Metadata, st, parent *cpState) ([]byte, int) {
	full := parent == nil || parent.depth+1 >= fullEvery
	depth := 0
	var prevRefs []chanRef
	var prevSeen map[string]map[string]int64
	if !full {
		depth = parent.depth + 1
		prevRefs, prevSeen = parent.refs, parent.seen
	}
	b := append(make([]byte, 0, 256), recordFormat)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(v), 10)
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, `,"upd":`...)
	b = jsonw.Strings(b, updated)
	b = append(b, `,"md":`...)
	if plain != nil {
		b = appendPlainMetaJSON(b, plain.Source, plain.Step, plain.Parents)
	} else if meta == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, meta...)
	}
	b = append(b, `,"d":`...)
	b = strconv.AppendInt(b, int64(depth), 10)
	b = appendRefs(b, st.refs, prevRefs, full)
	var buf [16]string // a superstep changes a few channels: no allocation
	b, keys := appendChanged(b, "seen", buf[:0], st.seen, prevSeen, full, seenEqual, jsonw.IntObject)
	b, _ = appendDropped(b, "sdel", keys, prevSeen, st.seen)
	return append(b, '}'), depth
}

// appendRefs appends a record's refs and del fields: the refs of cur that
// prev lacks or holds otherwise (all of them when full), and the channels
// prev has and cur has not; nothing for a field with none. Both lists are
// sorted by channel, so one walk finds both, in the order written.
func appendRefs(b []byte, cur, prev []chanRef, full bool) []byte {
	n, j := 0, 0
	for _, c := range cur {
		for j < len(prev) && prev[j].channel < c.channel {
			j++
		}
		if !full && j < len(prev) && prev[j] == c {
			continue
		}
		if n == 0 {
			b = append(b, `,"refs":{`...)
		} else {
			b = append(b, ',')
		}
		n++
		b = appendRef(append(jsonw.String(b, c.channel), ':'), c.ref)
	}
	if n > 0 {
		b = append(b, '}')
	}
	n, j = 0, 0
	for _, p := range prev {
		for j < len(cur) && cur[j].channel < p.channel {
			j++
		}
		if j < len(cur) && cur[j].channel == p.channel {
			continue
		}
		if n == 0 {
			b = append(b, `,"del":[`...)
		} else {
			b = append(b, ',')
		}
		n++
		b = jsonw.String(b, p.channel)
	}
	if n > 0 {
		b = append(b, ']')
	}
	return b
}

// appendChanged appends a record's object field name: the entries of cur
// that prev lacks or holds otherwise (all of them when full), keys
// sorted; nothing when there are none. keys is scratch space, returned
// for reuse.
func appendChanged[V any](b []byte, name string, keys []string, cur, prev map[string]V, full bool, same func(V, V) bool, value func([]byte, V) []byte) ([]byte, []string) {
	keys = keys[:0]
	for k, v := range cur {
		if p, ok := prev[k]; full || !ok || !same(p, v) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return b, keys
	}
	slices.Sort(keys)
	b = append(append(append(b, `,"`...), name...), `":{`...)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = value(append(jsonw.String(b, k), ':'), cur[k])
	}
	return append(b, '}'), keys
}

// appendDropped appends a record's list field name: the keys prev has and
// cur has not, sorted; nothing when there are none. keys is scratch
// space, returned for reuse.
func appendDropped[V any](b []byte, name string, keys []string, prev, cur map[string]V) ([]byte, []string) {
	keys = keys[:0]
	for k := range prev {
		if _, ok := cur[k]; !ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return b, keys
	}
	slices.Sort(keys)
	return jsonw.Strings(append(append(append(b, `,"`...), name...), `":`...), keys), keys
}

// appendMetaJSON appends json.Marshal(r).
func appendMetaJSON(b []byte, r *metaRecord) ([]byte, error) {
	if r.Extra != nil {
		// Extra's values are the engine's encodings, which encoding/json
		// checks and compacts: leave those to it.
		m, err := json.Marshal(r)
		return append(b, m...), err
	}
	return appendPlainMetaJSON(b, r.Source, r.Step, r.Parents), nil
}

// appendPlainMetaJSON appends json.Marshal of a metaRecord with no Extra,
// from its fields: a record built to be passed would be allocated.
func appendPlainMetaJSON(b []byte, source string, step int, parents map[string]string) []byte {
	b = append(b, `{"source":`...)
	b = jsonw.String(b, source)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(step), 10)
	b = append(b, `,"parents":`...)
	if parents != nil && len(parents) == 0 {
		b = append(b, "{}"...) // the loop's usual: no map iteration to start
	} else {
		b = jsonw.Object(b, parents, jsonw.String)
	}
	return append(b, `,"extra":null}`...)
}

// appendRef appends a ref as a record holds it: [version, hash, root].
func appendRef(b []byte, r ref) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, r.Version, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.Hash, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.Root, 10)
	return append(b, ']')
}
