package postgres

import (
	"encoding/json"
	"slices"
	"strconv"

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
func encodeNewRecord(v int, ts int64, updated []string, meta json.RawMessage, st, parent *cpState) ([]byte, int) {
	full := parent == nil || parent.depth+1 >= fullEvery
	depth := 0
	var prevRefs map[string]ref
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
	if meta == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, meta...)
	}
	b = append(b, `,"d":`...)
	b = strconv.AppendInt(b, int64(depth), 10)
	var buf [16]string // a superstep changes a few channels: no allocation
	keys := buf[:0]
	for ch, r := range st.refs {
		if p, ok := prevRefs[ch]; full || !ok || p != r {
			keys = append(keys, ch)
		}
	}
	if len(keys) > 0 {
		slices.Sort(keys)
		b = append(b, `,"refs":{`...)
		for i, ch := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			r := st.refs[ch]
			b = appendRef(append(jsonw.String(b, ch), ':'), [3]int64{r.Version, r.Hash, r.Root})
		}
		b = append(b, '}')
	}
	keys = keys[:0]
	for ch := range prevRefs {
		if _, ok := st.refs[ch]; !ok {
			keys = append(keys, ch)
		}
	}
	if len(keys) > 0 {
		slices.Sort(keys)
		b = jsonw.Strings(append(b, `,"del":`...), keys)
	}
	keys = keys[:0]
	for n, m := range st.seen {
		if p, ok := prevSeen[n]; full || !ok || !seenEqual(p, m) {
			keys = append(keys, n)
		}
	}
	if len(keys) > 0 {
		slices.Sort(keys)
		b = append(b, `,"seen":{`...)
		for i, n := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.IntObject(append(jsonw.String(b, n), ':'), st.seen[n])
		}
		b = append(b, '}')
	}
	keys = keys[:0]
	for n := range prevSeen {
		if _, ok := st.seen[n]; !ok {
			keys = append(keys, n)
		}
	}
	if len(keys) > 0 {
		slices.Sort(keys)
		b = jsonw.Strings(append(b, `,"sdel":`...), keys)
	}
	return append(b, '}'), depth
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
	b = jsonw.Object(b, parents, jsonw.String)
	return append(b, `,"extra":null}`...)
}

func appendRef(b []byte, r [3]int64) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, r[0], 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, r[1], 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, r[2], 10)
	return append(b, ']')
}
