package persist

import (
	"strconv"
	"time"

	"github.com/superstep/superstep/internal/jsonw"
)

// appendRecordJSON appends r as json.Marshal encodes it (the same bytes,
// through package jsonw) and reports whether it could: it writes records
// without metadata extras and with a timestamp json.Marshal accepts, and
// gives up on anything else, which encodeRecord then hands to
// encoding/json. Writing a record was a tenth of the store's CPU under
// many threads, most of it reflection and sorting map keys.
// TestAppendRecordJSON_MatchesMarshal holds it to json.Marshal's bytes.
func appendRecordJSON(dst []byte, r *cpRecord) ([]byte, bool) {
	if len(r.Meta.Extra) > 0 {
		return nil, false
	}
	dst = append(dst, `{"v":`...)
	dst = strconv.AppendInt(dst, int64(r.V), 10)
	dst = append(dst, `,"ts":`...)
	var ok bool
	if dst, ok = appendJSONTime(dst, r.TS); !ok {
		return nil, false
	}
	if r.Parent != "" {
		dst = jsonw.String(append(dst, `,"parent":`...), r.Parent)
	}
	if r.Delta {
		dst = append(dst, `,"delta":true`...)
	}
	if r.Depth != 0 {
		dst = append(dst, `,"depth":`...)
		dst = strconv.AppendInt(dst, int64(r.Depth), 10)
	}
	if len(r.Versions) > 0 {
		dst = jsonw.IntObject(append(dst, `,"cv":`...), r.Versions)
	}
	if len(r.Seqs) > 0 {
		dst = jsonw.Object(append(dst, `,"cs":`...), r.Seqs, func(dst []byte, v uint64) []byte { return strconv.AppendUint(dst, v, 10) })
	}
	if len(r.Dropped) > 0 {
		dst = jsonw.Strings(append(dst, `,"cvx":`...), r.Dropped)
	}
	if len(r.Seen) > 0 {
		dst = jsonw.Object(append(dst, `,"vs":`...), r.Seen, jsonw.IntObject)
	}
	if len(r.SeenDropped) > 0 {
		dst = jsonw.Strings(append(dst, `,"vsx":`...), r.SeenDropped)
	}
	dst = jsonw.Strings(append(dst, `,"upd":`...), r.Updated)
	dst = jsonw.String(append(dst, `,"md":{"source":`...), r.Meta.Source)
	dst = append(dst, `,"step":`...)
	dst = strconv.AppendInt(dst, int64(r.Meta.Step), 10)
	dst = jsonw.Object(append(dst, `,"parents":`...), r.Meta.Parents, jsonw.String)
	if r.Meta.Extra == nil {
		dst = append(dst, `,"extra":null}}`...)
	} else {
		dst = append(dst, `,"extra":{}}}`...)
	}
	return dst, true
}

// appendJSONTime appends t as time.Time's MarshalJSON does, for the
// timestamps it accepts and this writes identically: years 0 to 9999 and
// a zone offset of whole minutes under a day.
func appendJSONTime(dst []byte, t time.Time) ([]byte, bool) {
	_, off := t.Zone()
	if y := t.Year(); y < 0 || y > 9999 || off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		return nil, false
	}
	dst = append(dst, '"')
	return append(t.AppendFormat(dst, time.RFC3339Nano), '"'), true
}
