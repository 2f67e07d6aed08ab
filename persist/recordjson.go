package persist

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// A checkpoint record is JSON that encodeRecord wrote with json.Marshal:
// compact, keys in a known set, strings that rarely need escapes. Reading
// a thread's history decodes one per checkpoint, and encoding/json's
// reflection was a third of that cost, so parseRecord reads the common
// shape directly. It is an accelerator, not a second format: anything it
// does not recognise exactly (an escape, whitespace, an unknown or repeated
// key, a fraction, metadata extras, trailing bytes) makes it give up, and
// decodeRecord falls back to encoding/json, which decides what the bytes
// mean and reports damage. TestParseRecord_MatchesEncodingJSON holds the
// two to the same result.

// recordParser reads one record. names interns the channel and node names
// records repeat (nil: no interning), so a page of records shares them.
type recordParser struct {
	data  []byte
	pos   int
	names map[string]string
}

// parseRecord fills r from data (the JSON after the format byte) and
// reports whether it could; when it returns false, r is to be discarded.
func parseRecord(data []byte, r *cpRecord, names map[string]string) bool {
	p := recordParser{data: data, names: names}
	seen := 0
	ok := p.object(func(key []byte) bool {
		bit, known := recordKeys[string(key)]
		if !known || seen&bit != 0 {
			return false
		}
		seen |= bit
		switch string(key) {
		case "v":
			return p.int(&r.V)
		case "ts":
			return p.time(&r.TS)
		case "parent":
			return p.str(&r.Parent, false)
		case "delta":
			return p.bool(&r.Delta)
		case "depth":
			return p.int(&r.Depth)
		case "cv":
			return p.versions(&r.Versions)
		case "cs":
			return p.seqs(&r.Seqs)
		case "cvx":
			return p.strings(&r.Dropped)
		case "vs":
			return p.seen(&r.Seen)
		case "vsx":
			return p.strings(&r.SeenDropped)
		case "upd":
			return p.strings(&r.Updated)
		case "md":
			return p.meta(&r.Meta)
		}
		return false
	})
	return ok && p.pos == len(p.data)
}

var metaKeys = map[string]int{"source": 1, "step": 2, "parents": 4, "extra": 8}

var recordKeys = map[string]int{"v": 1, "ts": 2, "parent": 4, "delta": 8, "depth": 16, "cv": 32, "cs": 64, "cvx": 128, "vs": 256, "vsx": 512, "upd": 1024, "md": 2048}

func (p *recordParser) peek() byte {
	if p.pos < len(p.data) {
		return p.data[p.pos]
	}
	return 0
}

func (p *recordParser) eat(c byte) bool {
	if p.peek() == c {
		p.pos++
		return true
	}
	return false
}

// null consumes a JSON null.
func (p *recordParser) null() bool {
	if bytes.HasPrefix(p.data[p.pos:], []byte("null")) {
		p.pos += 4
		return true
	}
	return false
}

// object reads {"key":value,...}, calling field with each key positioned at
// its value.
func (p *recordParser) object(field func(key []byte) bool) bool {
	if !p.eat('{') {
		return false
	}
	if p.eat('}') {
		return true
	}
	for {
		key, ok := p.rawString()
		if !ok || !p.eat(':') || !field(key) {
			return false
		}
		if p.eat('}') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// rawString reads a string without escapes or control characters, in
// valid UTF-8 (what encoding/json would decode to the same bytes).
func (p *recordParser) rawString() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			s := p.data[start:p.pos]
			p.pos++
			return s, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		}
		p.pos++
	}
	return nil, false
}

// str reads a string into *s; intern shares it through p.names.
func (p *recordParser) str(s *string, intern bool) bool {
	b, ok := p.rawString()
	if !ok {
		return false
	}
	*s = p.name(b, intern)
	return true
}

func (p *recordParser) name(b []byte, intern bool) string {
	if !intern || p.names == nil {
		return string(b)
	}
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	s := string(b)
	p.names[s] = s
	return s
}

// number reads an integer literal: digits with an optional minus sign.
func (p *recordParser) number() ([]byte, bool) {
	start := p.pos
	p.eat('-')
	digits := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	n := p.data[start:p.pos]
	// JSON allows no leading zeros; a fraction or exponent goes to the
	// fallback.
	if p.pos == digits || (p.data[digits] == '0' && p.pos-digits > 1) {
		return nil, false
	}
	switch p.peek() {
	case '.', 'e', 'E':
		return nil, false
	}
	return n, true
}

func (p *recordParser) int64() (int64, bool) {
	n, ok := p.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(string(n), 10, 64)
	return v, err == nil
}

func (p *recordParser) int(v *int) bool {
	n, ok := p.int64()
	*v = int(n)
	return ok && int64(*v) == n
}

func (p *recordParser) bool(v *bool) bool {
	switch {
	case bytes.HasPrefix(p.data[p.pos:], []byte("true")):
		*v, p.pos = true, p.pos+4
	case bytes.HasPrefix(p.data[p.pos:], []byte("false")):
		*v, p.pos = false, p.pos+5
	default:
		return false
	}
	return true
}

func (p *recordParser) time(t *time.Time) bool {
	start := p.pos
	if _, ok := p.rawString(); !ok {
		return false
	}
	return t.UnmarshalJSON(p.data[start:p.pos]) == nil
}

// strings reads an array of strings (interned) or null.
func (p *recordParser) strings(out *[]string) bool {
	if p.null() {
		*out = nil
		return true
	}
	if !p.eat('[') {
		return false
	}
	list := []string{}
	if !p.eat(']') {
		for {
			var s string
			if !p.str(&s, true) {
				return false
			}
			list = append(list, s)
			if p.eat(']') {
				break
			}
			if !p.eat(',') {
				return false
			}
		}
	}
	*out = list
	return true
}

// intMap reads an object of integers keyed by names (interned), or null.
func intMap[V int64 | uint64](p *recordParser, out *map[string]V) bool {
	if p.null() {
		*out = nil
		return true
	}
	m := map[string]V{}
	ok := p.object(func(key []byte) bool {
		k := p.name(key, true)
		if _, dup := m[k]; dup {
			return false
		}
		n, ok := p.number()
		if !ok {
			return false
		}
		var v V
		switch any(v).(type) {
		case int64:
			x, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil {
				return false
			}
			v = V(x)
		default:
			x, err := strconv.ParseUint(string(n), 10, 64)
			if err != nil {
				return false
			}
			v = V(x)
		}
		m[k] = v
		return true
	})
	*out = m
	return ok
}

func (p *recordParser) versions(out *map[string]int64) bool { return intMap(p, out) }
func (p *recordParser) seqs(out *map[string]uint64) bool    { return intMap(p, out) }

// seen reads versions_seen: node → channel → version, or null.
func (p *recordParser) seen(out *map[string]map[string]int64) bool {
	if p.null() {
		*out = nil
		return true
	}
	m := map[string]map[string]int64{}
	ok := p.object(func(key []byte) bool {
		k := p.name(key, true)
		if _, dup := m[k]; dup {
			return false
		}
		var vs map[string]int64
		if !intMap(p, &vs) {
			return false
		}
		m[k] = vs
		return true
	})
	*out = m
	return ok
}

// meta reads the metadata; extras go to the fallback, which checks their
// JSON and keeps it raw.
func (p *recordParser) meta(md *mdRecord) bool {
	seen := 0
	return p.object(func(key []byte) bool {
		bit := metaKeys[string(key)]
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		switch string(key) {
		case "source":
			return p.str(&md.Source, true)
		case "step":
			return p.int(&md.Step)
		case "parents":
			return p.parents(&md.Parents)
		default:
			md.Extra = nil
			return p.null()
		}
	})
}

// parents reads the namespace → checkpoint map, or null.
func (p *recordParser) parents(out *map[string]string) bool {
	if p.null() {
		*out = nil
		return true
	}
	m := map[string]string{}
	ok := p.object(func(key []byte) bool {
		k := p.name(key, true)
		if _, dup := m[k]; dup {
			return false
		}
		var v string
		if !p.str(&v, false) {
			return false
		}
		m[k] = v
		return true
	})
	*out = m
	return ok
}

// decodeRecordJSON is encoding/json's reading of a record, the reference
// parseRecord falls back to.
func decodeRecordJSON(data []byte, r *cpRecord) error {
	*r = cpRecord{}
	return json.Unmarshal(data, r)
}
