package postgres

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// A checkpoint's record and metadata are encoded on every Put: these write
// the bytes encoding/json writes for them (keys sorted, strings escaped
// the same way), without its reflection, which cost a tenth of a
// superstep's CPU in this process. Decoding stays with encoding/json.

// appendRecordJSON appends json.Marshal(rec).
func appendRecordJSON(b []byte, rec *cpRecord) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(rec.V), 10)
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, rec.TS, 10)
	b = append(b, `,"upd":`...)
	b = appendStrings(b, rec.Updated)
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
		b = appendObject(b, rec.Refs, appendRef)
	}
	if len(rec.Del) > 0 {
		b = append(b, `,"del":`...)
		b = appendStrings(b, rec.Del)
	}
	if len(rec.Seen) > 0 {
		b = append(b, `,"seen":`...)
		b = appendObject(b, rec.Seen, appendVersions)
	}
	if len(rec.SeenDel) > 0 {
		b = append(b, `,"sdel":`...)
		b = appendStrings(b, rec.SeenDel)
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
	b = append(b, `{"source":`...)
	b = appendString(b, r.Source)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(r.Step), 10)
	b = append(b, `,"parents":`...)
	b = appendObject(b, r.Parents, appendString)
	return append(b, `,"extra":null}`...), nil
}

// appendObject appends m as a JSON object with sorted keys, or null.
func appendObject[V any](b []byte, m map[string]V, appendValue func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendValue(b, m[k])
	}
	return append(b, '}')
}

func appendVersions(b []byte, m map[string]int64) []byte {
	return appendObject(b, m, func(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) })
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

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendString appends s as encoding/json quotes it. Names are nearly
// always plain ASCII; anything else is left to encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// sortedKeys returns m's keys in order; a record's maps are small.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
