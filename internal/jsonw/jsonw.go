// Package jsonw appends JSON text that is byte for byte what encoding/json
// writes, for the shapes the checkpoint stores' records are made of:
// strings, lists of strings, and objects with string keys, which
// encoding/json writes with their keys sorted. Both stores encode a record
// on every checkpoint, and encoding/json's reflection and key sorting were
// a tenth of their CPU there; what they write must stay what encoding/json
// writes, because records are read back with it and hashed as stored.
package jsonw

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// String appends s quoted as encoding/json quotes it. Names and ids are
// nearly always printable ASCII that needs no escape; anything else is
// left to encoding/json (control characters, quotes, backslashes, the
// HTML characters it escapes, invalid UTF-8).
func String(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(dst, q...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// Strings appends ss as a JSON array of strings, or null when ss is nil.
func Strings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = String(dst, s)
	}
	return append(dst, ']')
}

// Object appends m as a JSON object, keys sorted as encoding/json sorts
// them (by their bytes), each value appended by value; null when m is nil.
func Object[V any](dst []byte, m map[string]V, value func([]byte, V) []byte) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	var buf [16]string // a record's maps are small: no allocation for keys
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = String(dst, k)
		dst = append(dst, ':')
		dst = value(dst, m[k])
	}
	return append(dst, '}')
}

// IntObject appends m as a JSON object of integers (channel versions, in
// both stores' records), or null when m is nil.
func IntObject(dst []byte, m map[string]int64) []byte {
	return Object(dst, m, appendInt)
}

func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }
