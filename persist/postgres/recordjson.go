package postgres

import (
	"encoding/json"
	"strconv"

	"github.com/superstep/superstep/internal/jsonw"
)

// A checkpoint's record and metadata are encoded on every Put: these write
// the bytes encoding/json writes for them (package jsonw), without its
// reflection, which cost a tenth of a superstep's CPU in this process.
// Decoding stays with encoding/json.

// appendRecordJSON appends json.Marshal(rec).
func appendRecordJSON(b []byte, rec *cpRecord) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(rec.V), 10)
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, rec.TS, 10)
	b = append(b, `,"upd":`...)
	b = jsonw.Strings(b, rec.Updated)
	b = append(b, `,"md":`...)
	if rec.Meta == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, rec.Meta...)
	}
	b = append(b, `,"d":`...)
	b = strconv.AppendInt(b, int64(rec.Depth), 10)
	if len(rec.Refs) > 0 {
		b = append(b, `,"refs":`...)
		b = jsonw.Object(b, rec.Refs, appendRef)
	}
	if len(rec.Del) > 0 {
		b = append(b, `,"del":`...)
		b = jsonw.Strings(b, rec.Del)
	}
	if len(rec.Seen) > 0 {
		b = append(b, `,"seen":`...)
		b = jsonw.Object(b, rec.Seen, jsonw.IntObject)
	}
	if len(rec.SeenDel) > 0 {
		b = append(b, `,"sdel":`...)
		b = jsonw.Strings(b, rec.SeenDel)
	}
	return append(b, '}')
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
