package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"unicode/utf8"
)

// jsonKind is the type of a JSON value as a scenario file author sees it.
type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "a list", "an object"}[k]
}

// jnode is a JSON value that remembers where it starts in the file, so that
// errors found while mapping it to the model can point at it. Objects keep
// their keys in file order because node updates and by_node are ordered.
type jnode struct {
	kind   jsonKind
	pos    Pos
	scalar any // bool, float64 or string
	elems  []*jnode
	fields []jfield
}

type jfield struct {
	key    string
	keyPos Pos
	val    *jnode
}

// field returns the value of key, or nil when the object does not have it.
func (n *jnode) field(key string) *jnode {
	for _, f := range n.fields {
		if f.key == key {
			return f.val
		}
	}
	return nil
}

// value converts the subtree to an engine value.
func (n *jnode) value() any {
	switch n.kind {
	case jsonArray:
		out := make([]any, len(n.elems))
		for i, e := range n.elems {
			out[i] = e.value()
		}
		return out
	case jsonObject:
		out := make(map[string]any, len(n.fields))
		for _, f := range n.fields {
			out[f.key] = f.val.value()
		}
		return out
	default:
		return n.scalar
	}
}

// lines maps byte offsets to line:column, counting columns in characters so
// that they match what an editor shows on lines with non-ASCII text.
type lines struct {
	data   []byte
	starts []int
}

func newLines(data []byte) *lines {
	l := &lines{data: data, starts: []int{0}}
	for i, b := range data {
		if b == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

func (l *lines) pos(off int) Pos {
	off = max(0, min(off, len(l.data)))
	i := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
	return Pos{Line: i + 1, Col: utf8.RuneCount(l.data[l.starts[i]:off]) + 1}
}

// syntaxError is a JSON error at a position; Parse turns it into an *Error.
type syntaxError struct {
	pos Pos
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// treeReader builds a jnode tree from json.Decoder tokens. The decoder
// reports only where a token ends, so each token's start is found by
// skipping the whitespace and separators that follow the previous one.
type treeReader struct {
	data  []byte
	lines *lines
	dec   *json.Decoder
}

func parseTree(data []byte, l *lines) (*jnode, error) {
	r := &treeReader{data: data, lines: l, dec: json.NewDecoder(bytes.NewReader(data))}
	r.dec.UseNumber()
	root, err := r.read(0)
	if err != nil {
		return nil, err
	}
	rest := r.skip(int(r.dec.InputOffset()))
	if rest < len(data) {
		return nil, &syntaxError{l.pos(rest), "unexpected data after the end of the top-level value"}
	}
	return root, nil
}

func (r *treeReader) skip(off int) int {
	for off < len(r.data) {
		switch r.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// syntaxHint is the error for se, which the decoder found at the byte at
// off (its Offset, in token mode), with the fix for the mistakes JSON written by hand has most
// often: a comma after the last item, a comment, single quotes.
func (r *treeReader) syntaxHint(off int, se *json.SyntaxError) *syntaxError {
	bad := byte(0)
	if off >= 0 && off < len(r.data) {
		bad = r.data[off]
	}
	switch bad {
	case ']', '}':
		i := off - 1
		for i >= 0 && (r.data[i] == ' ' || r.data[i] == '\t' || r.data[i] == '\r' || r.data[i] == '\n') {
			i--
		}
		if i >= 0 && r.data[i] == ',' {
			return &syntaxError{r.lines.pos(i), fmt.Sprintf("invalid JSON: a comma before %q, which JSON does not allow: remove it", bad)}
		}
	case '/':
		return &syntaxError{r.lines.pos(off), "invalid JSON: a comment, which JSON does not have: remove it (\"description\" can hold a note)"}
	case '\'':
		return &syntaxError{r.lines.pos(off), "invalid JSON: a single quote: JSON strings and keys take double quotes (single quotes go inside expressions)"}
	}
	return &syntaxError{r.lines.pos(off), "invalid JSON: " + se.Error()}
}

func (r *treeReader) token() (json.Token, Pos, error) {
	start := r.skip(int(r.dec.InputOffset()))
	tok, err := r.dec.Token()
	if err == nil {
		return tok, r.lines.pos(start), nil
	}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, Pos{}, r.syntaxHint(int(se.Offset), se)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return nil, Pos{}, &syntaxError{r.lines.pos(len(r.data)), "invalid JSON: unexpected end of input"}
	default:
		return nil, Pos{}, &syntaxError{r.lines.pos(start), "invalid JSON: " + err.Error()}
	}
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 1000

func (r *treeReader) read(depth int) (*jnode, error) {
	tok, pos, err := r.token()
	if err != nil {
		return nil, err
	}
	if depth > maxDepth {
		return nil, &syntaxError{pos, "invalid JSON: nested too deeply"}
	}
	n := &jnode{pos: pos, scalar: tok}
	switch t := tok.(type) {
	case nil:
		n.kind = jsonNull
	case bool:
		n.kind = jsonBool
	case string:
		n.kind = jsonString
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return nil, &syntaxError{pos, fmt.Sprintf("number %s is out of range", t)}
		}
		n.kind, n.scalar = jsonNumber, f
	case json.Delim:
		n.scalar = nil
		switch t {
		case '[':
			n.kind = jsonArray
			for r.dec.More() {
				e, err := r.read(depth + 1)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, e)
			}
		case '{':
			n.kind = jsonObject
			for r.dec.More() {
				k, kpos, err := r.token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				if n.field(key) != nil {
					return nil, &syntaxError{kpos, fmt.Sprintf("duplicate key %q", key)}
				}
				v, err := r.read(depth + 1)
				if err != nil {
					return nil, err
				}
				n.fields = append(n.fields, jfield{key, kpos, v})
			}
		}
		// The closing delimiter; More has already checked it is there.
		if _, _, err := r.token(); err != nil {
			return nil, err
		}
	}
	return n, nil
}
