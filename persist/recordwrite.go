package persist

import (
	"slices"
	"strconv"
	"time"
)

// appendRecordJSON appends r as json.Marshal encodes it (the same bytes)
// and reports whether it could: it writes the common shape only — names
// and ids that need no escape, no metadata extras, a timestamp
// json.Marshal accepts — and gives up on anything else, which encodeRecord
// then hands to encoding/json. Writing a record was a tenth of the store's
// CPU under many threads, most of it reflection and sorting map keys.
// TestAppendRecordJSON_MatchesMarshal holds it to json.Marshal's bytes.
func appendRecordJSON(dst []byte, r *cpRecord) ([]byte, bool) {
	if len(r.Meta.Extra) > 0 || !plainJSON(r.Parent) || !plainJSON(r.Meta.Source) {
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
		dst = append(dst, `,"parent":"`...)
		dst = append(append(dst, r.Parent...), '"')
	}
	if r.Delta {
		dst = append(dst, `,"delta":true`...)
	}
	if r.Depth != 0 {
		dst = append(dst, `,"depth":`...)
		dst = strconv.AppendInt(dst, int64(r.Depth), 10)
	}
	if len(r.Versions) > 0 {
		if dst, ok = appendIntMap(append(dst, `,"cv":`...), r.Versions); !ok {
			return nil, false
		}
	}
	if len(r.Seqs) > 0 {
		if dst, ok = appendUintMap(append(dst, `,"cs":`...), r.Seqs); !ok {
			return nil, false
		}
	}
	if len(r.Dropped) > 0 {
		if dst, ok = appendStrings(append(dst, `,"cvx":`...), r.Dropped); !ok {
			return nil, false
		}
	}
	if len(r.Seen) > 0 {
		if dst, ok = appendSeen(append(dst, `,"vs":`...), r.Seen); !ok {
			return nil, false
		}
	}
	if len(r.SeenDropped) > 0 {
		if dst, ok = appendStrings(append(dst, `,"vsx":`...), r.SeenDropped); !ok {
			return nil, false
		}
	}
	dst = append(dst, `,"upd":`...)
	if r.Updated == nil {
		dst = append(dst, "null"...)
	} else if dst, ok = appendStrings(dst, r.Updated); !ok {
		return nil, false
	}
	dst = append(dst, `,"md":{"source":"`...)
	dst = append(append(dst, r.Meta.Source...), `","step":`...)
	dst = strconv.AppendInt(dst, int64(r.Meta.Step), 10)
	dst = append(dst, `,"parents":`...)
	if r.Meta.Parents == nil {
		dst = append(dst, "null"...)
	} else if dst, ok = appendStringMap(dst, r.Meta.Parents); !ok {
		return nil, false
	}
	if r.Meta.Extra == nil {
		dst = append(dst, `,"extra":null}}`...)
	} else {
		dst = append(dst, `,"extra":{}}}`...)
	}
	return dst, true
}

// plainJSON reports whether s is encoded by json.Marshal as itself in
// quotes: printable ASCII without a quote, a backslash or the characters
// it escapes for HTML.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
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

// sortedKeys returns m's keys in json.Marshal's order, or false if one
// needs an escape. buf is room for them.
func sortedKeys[V any](m map[string]V, buf []string) ([]string, bool) {
	keys := buf[:0]
	for k := range m {
		if !plainJSON(k) {
			return nil, false
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, true
}

func appendKey(dst []byte, i int, k string) []byte {
	if i > 0 {
		dst = append(dst, ',')
	}
	dst = append(append(dst, '"'), k...)
	return append(dst, '"', ':')
}

// appendObject appends m as a JSON object with its keys sorted, each
// value written by value.
func appendObject[V any](dst []byte, m map[string]V, value func([]byte, V) ([]byte, bool)) ([]byte, bool) {
	var buf [16]string
	keys, ok := sortedKeys(m, buf[:])
	if !ok {
		return nil, false
	}
	dst = append(dst, '{')
	for i, k := range keys {
		if dst, ok = value(appendKey(dst, i, k), m[k]); !ok {
			return nil, false
		}
	}
	return append(dst, '}'), true
}

func appendIntMap(dst []byte, m map[string]int64) ([]byte, bool) {
	return appendObject(dst, m, func(dst []byte, v int64) ([]byte, bool) { return strconv.AppendInt(dst, v, 10), true })
}

func appendUintMap(dst []byte, m map[string]uint64) ([]byte, bool) {
	return appendObject(dst, m, func(dst []byte, v uint64) ([]byte, bool) { return strconv.AppendUint(dst, v, 10), true })
}

func appendStringMap(dst []byte, m map[string]string) ([]byte, bool) {
	return appendObject(dst, m, func(dst []byte, v string) ([]byte, bool) {
		if !plainJSON(v) {
			return nil, false
		}
		return append(append(append(dst, '"'), v...), '"'), true
	})
}

// appendSeen writes versions_seen: a node's map, or null.
func appendSeen(dst []byte, m map[string]map[string]int64) ([]byte, bool) {
	return appendObject(dst, m, func(dst []byte, v map[string]int64) ([]byte, bool) {
		if v == nil {
			return append(dst, "null"...), true
		}
		return appendIntMap(dst, v)
	})
}

func appendStrings(dst []byte, s []string) ([]byte, bool) {
	dst = append(dst, '[')
	for i, v := range s {
		if !plainJSON(v) {
			return nil, false
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(append(dst, '"'), v...), '"')
	}
	return append(dst, ']'), true
}
