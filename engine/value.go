package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Send is a packet that schedules one task of Node with Arg as its whole
// input (a PUSH task). Nodes return Sends from conditional edges or inside a
// Command's Goto; they travel through the task topic channel. Node may be
// Start: its task takes Arg as the graph's input takes the run's (the state
// keys it names are written) and fires Start's edges again, as LangGraph
// runs __start__ as any node (pregel/algo.js checks only that a packet's
// node is one of the graph's).
type Send struct {
	Node string // the node to run
	Arg  any    // its whole input (not the graph state)
}

// Command is what a node may return instead of a plain update: Update is
// written to state keys, Goto names the nodes (string) or Sends to run next
// (no edge needed). Resume is only meaningful as run input: it answers
// pending interrupts.
type Command struct {
	Update any   // Update, map[string]any or nil
	Goto   []any // node names (string, End included) and Sends, in order
	// Resume answers pending interrupts when a Command is given as run input.
	// A value answers the single pending interrupt; a ResumeMap answers
	// interrupts by id. A thread with none pending, one that has no
	// checkpoint included (a mistyped thread id), is not an error: the
	// run runs nothing and returns StatusDone (see ErrNothingPending).
	Resume any
	// Graph, when Parent, sends the Command to the graph that runs this
	// one as a subgraph: its update and goto apply there, as if the
	// subgraph's node there had returned it (Command.PARENT).
	Graph string
}

// ResumeMap answers several pending interrupts at once, keyed by interrupt id.
type ResumeMap map[string]any

// KV is one key/value pair of an ordered Update.
type KV struct {
	Key   string // a state key
	Value any    // the value written to it
}

// Update is a node's partial state update with its keys in the order the node
// wrote them. Order matters to LangGraph's task-write order (and so to the
// strict trace); a map[string]any update is taken in sorted key order.
type Update []KV

// Write is one pending write of a task: a value for a channel.
type Write struct {
	Channel string // a state key, an internal channel or a reserved write name
	Value   any    // what is written
}

// RoutesTo returns the node the write sends the run to: an edge's, a
// route's or a Command goto's write to the node's trigger channel
// (branch:to:NODE), whose value carries nothing. A person reads it as
// "→ NODE" rather than as a channel and a null.
func (w Write) RoutesTo() (node string, ok bool) {
	return strings.CutPrefix(w.Channel, BranchPrefix)
}

// Interruption is a request for human input raised by Interrupt inside a
// node. ID is stable for the same task and call position. encoding/json
// writes it as LangGraph's chunks carry an interrupt, {"id", "value"}, so
// that a stream chunk holding one is lower case throughout; checkpoints
// encode it with the engine's own codec (EncodeValue), not with these tags.
type Interruption struct {
	ID    string `json:"id"`    // answers a ResumeMap entry
	Value any    `json:"value"` // what the node asked, as it passed it to Interrupt
}

// updateFrom turns what a node returned into ordered state writes. Unknown
// keys are kept here and dropped later by the writer, as LangGraph does.
func updatePairs(v any) (Update, error) {
	switch u := v.(type) {
	case nil:
		return nil, nil
	case Update:
		return u, nil
	case map[string]any:
		keys := make([]string, 0, len(u))
		for k := range u {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(Update, len(keys))
		for i, k := range keys {
			out[i] = KV{k, u[k]}
		}
		return out, nil
	case *OrderedMap:
		out := make(Update, len(u.Keys))
		for i, k := range u.Keys {
			out[i] = KV{k, u.Values[k]}
		}
		return out, nil
	default:
		return nil, &InvalidUpdateError{Msg: fmt.Sprintf("expected a map of state keys, got %T", v)}
	}
}

// OrderedMap is a JSON object that remembers its key order. Scenario files
// decode objects with it where order is observable (node updates).
type OrderedMap struct {
	Keys   []string       // in the object's order
	Values map[string]any // by key
}

// Value codec.
//
// Channel values, task inputs and writes are JSON-like: nil, bool, float64
// (any Go number is accepted), string, []any, map[string]any, plus Send and
// []Interruption. EncodeValue writes them as JSON with tagged forms for the
// engine types; DecodeValue reads them back. Numbers are float64 (JSON's
// and JavaScript's numbers), except a whole number that fits int64 or
// uint64 but not float64 exactly (beyond ±2^53): it stays a json.Number
// holding its exact digits, so an int64 survives a checkpoint (see Number).

// EncodeValue returns the JSON encoding of a value, with Send as
// {"$send":{"node":..,"arg":..}} and Interruption as {"$interrupt":{"id","value"}}.
//
// A value nesting deeper than MaxValueDepth is refused (ErrValueTooDeep):
// it could not be read back.
func EncodeValue(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeValue(&buf, v, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// AppendedElements reports whether next, a list's encoding
// (EncodeValue), is the list encoded as prev with elements appended, and
// returns the encodings of those elements as they stand in next,
// comma-separated ("e1,e2"). A saver that keeps a grown list as what was
// appended uses it on values the engine did not account for
// (Checkpoint.AppendedTail). It relies on the codec being canonical
// (sorted keys, one spelling per number): a list's prefix is then a byte
// prefix, and since prev without its "]" ends after a complete element,
// a "," right after it in next starts a new top-level element.
func AppendedElements(prev, next []byte) ([]byte, bool) {
	if len(prev) < 2 || prev[0] != '[' || prev[len(prev)-1] != ']' || len(next) <= len(prev) || next[len(next)-1] != ']' {
		return nil, false
	}
	head := prev[:len(prev)-1]
	if !bytes.HasPrefix(next, head) {
		return nil, false
	}
	if len(prev) == 2 { // "[]"
		return next[1 : len(next)-1], true
	}
	if next[len(head)] != ',' {
		return nil, false
	}
	return next[len(head)+1 : len(next)-1], true
}

// MustEncode is EncodeValue for values known to be encodable; it returns the
// encoding of a string describing the error otherwise. Meant for display.
func MustEncode(v any) []byte {
	b, err := EncodeValue(v)
	if err != nil {
		b, _ = json.Marshal("<" + err.Error() + ">")
	}
	return b
}

// encodeValue writes v, which depth containers enclose.
func encodeValue(buf *bytes.Buffer, v any, depth int) error {
	if err := nest(v, depth); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if x {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case string:
		writeJSONString(buf, x)
	case float64:
		return encodeFloat(buf, x)
	case float32:
		return encodeFloat(buf, float64(x))
	case int:
		buf.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		buf.WriteString(strconv.FormatInt(x, 10))
	case int32:
		buf.WriteString(strconv.FormatInt(int64(x), 10))
	case uint64:
		buf.WriteString(strconv.FormatUint(x, 10))
	case json.Number:
		buf.WriteString(x.String())
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeValue(buf, e, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case []string:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, e)
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, k)
			buf.WriteByte(':')
			if err := encodeValue(buf, x[k], depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case *OrderedMap:
		buf.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, k)
			buf.WriteByte(':')
			if err := encodeValue(buf, x.Values[k], depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case Send:
		buf.WriteString(`{"$send":{"arg":`)
		if err := encodeValue(buf, x.Arg, depth+2); err != nil {
			return err
		}
		buf.WriteString(`,"node":`)
		writeJSONString(buf, x.Node)
		buf.WriteString("}}")
	case Interruption:
		buf.WriteString(`{"$interrupt":{"id":`)
		writeJSONString(buf, x.ID)
		buf.WriteString(`,"value":`)
		if err := encodeValue(buf, x.Value, depth+2); err != nil {
			return err
		}
		buf.WriteString("}}")
	case []Interruption:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeValue(buf, e, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		// Any other Go value: let encoding/json describe it, then re-read it
		// as plain JSON so it round-trips as data.
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Errorf("engine: value of type %T cannot be encoded: %w", v, err)
		}
		if depth+jsonDepth(b) > MaxValueDepth {
			return errTooDeep
		}
		buf.Write(b)
	}
	return nil
}

// writeJSONString writes s as a JSON string, escaping only what JSON
// requires (quotes, backslashes, control characters). Invalid UTF-8 becomes
// U+FFFD, as with encoding/json: JSON cannot carry raw bytes. It exists for
// speed: every saver encodes every string through it.
func writeJSONString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				buf.WriteByte('\\')
				buf.WriteByte(c)
			case '\n':
				buf.WriteString(`\n`)
			case '\r':
				buf.WriteString(`\r`)
			case '\t':
				buf.WriteString(`\t`)
			default:
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[c>>4])
				buf.WriteByte(hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf.WriteString(s[start:i])
			buf.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		i += size
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

func encodeFloat(buf *bytes.Buffer, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("engine: number %v cannot be encoded as JSON", f)
	}
	buf.WriteString(FormatNumber(f))
	return nil
}

// FormatNumber prints a number the way JavaScript does: integral values
// without a fraction ("20"), others in shortest form ("2.5"), and
// "Infinity", "-Infinity" and "NaN" (which JSON cannot hold, but a value
// in memory can).
func FormatNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	a := math.Abs(f)
	if a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	// JavaScript's exponent form: "1e+21", "1.5e-7" (no zero padding).
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
}

// DecodeValue parses JSON produced by EncodeValue (or any JSON) into a value.
func DecodeValue(data []byte) (any, error) {
	if v, ok := decodeScalar(data); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("engine: trailing data after JSON value")
	}
	return FromJSON(raw), nil
}

// decodeScalar decodes the scalars a thread stores most often (null, a
// boolean, an integer, a string without escapes) as DecodeValue's
// decoder would, without one: reading a long thread's outline decodes
// one or more of them per checkpoint (branch channels, control writes).
// Anything else is left to the decoder (ok false).
func decodeScalar(data []byte) (v any, ok bool) {
	if len(data) == 0 || data[0] == '{' || data[0] == '[' {
		return nil, false
	}
	switch s := string(data); {
	case s == "null":
		return nil, true
	case s == "true":
		return true, true
	case s == "false":
		return false, true
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		body := s[1 : len(s)-1]
		for i := 0; i < len(body); i++ {
			if c := body[i]; c == '"' || c == '\\' || c < 0x20 {
				return nil, false
			}
		}
		return body, utf8.ValidString(body)
	case len(s) > 0 && len(s) <= 20:
		// A JSON integer literal, in engine form (Number).
		digits := strings.TrimPrefix(s, "-")
		if digits == "" || (digits[0] == '0' && len(digits) > 1) || strings.Trim(digits, "0123456789") != "" {
			return nil, false
		}
		return Number(json.Number(s)), true
	}
	return nil, false
}

// FromJSON converts a value decoded by encoding/json (with or without
// UseNumber) into engine form: numbers become float64 and the tagged forms
// become Send and Interruption.
func FromJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		return Number(x)
	case []any:
		out := make([]any, len(x))
		allInterrupts := len(x) > 0
		for i, e := range x {
			out[i] = FromJSON(e)
			if _, ok := out[i].(Interruption); !ok {
				allInterrupts = false
			}
		}
		if allInterrupts {
			ints := make([]Interruption, len(out))
			for i, e := range out {
				ints[i] = e.(Interruption)
			}
			return ints
		}
		return out
	case map[string]any:
		if len(x) == 1 {
			if s, ok := x["$send"].(map[string]any); ok {
				node, _ := s["node"].(string)
				return Send{Node: node, Arg: FromJSON(s["arg"])}
			}
			if s, ok := x["$interrupt"].(map[string]any); ok {
				id, _ := s["id"].(string)
				return Interruption{ID: id, Value: FromJSON(s["value"])}
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = FromJSON(e)
		}
		return out
	default:
		return v
	}
}

// Normalize returns v with Go numbers as float64 and ordered maps as plain
// maps, so values compare and print the same whatever produced them. A value
// already in that form comes back as is, not copied (every write goes
// through here).
//
// It walks no deeper than MaxValueDepth: what lies below is left as it
// is, for the write's limits to refuse (ErrValueTooDeep). A value that
// contains itself (a map holding itself) is such a value, not an endless
// walk.
func Normalize(v any) any { return normalizeAt(v, 0) }

// normalizeAt is Normalize for v at nesting level depth.
func normalizeAt(v any, depth int) any {
	if normalizedAt(v, depth) {
		return v
	}
	return normalizeCopy(v, depth)
}

// normalized reports whether Normalize would leave v as it is.
func normalized(v any) bool { return normalizedAt(v, 0) }

// normalizedAt is normalized for v at nesting level depth: below
// MaxValueDepth a value is left as it is.
func normalizedAt(v any, depth int) bool {
	if depth > MaxValueDepth {
		return true
	}
	switch x := v.(type) {
	case nil, bool, string, float64:
		return true
	case []any:
		for _, e := range x {
			if !normalizedAt(e, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range x {
			if !normalizedAt(e, depth+1) {
				return false
			}
		}
		return true
	case Send:
		return normalizedAt(x.Arg, depth+1)
	case json.Number:
		n, ok := Number(x).(json.Number)
		return ok && n == x
	case int, int64, int32, int16, int8, uint, uint64, uint32, uint16, uint8, float32, *OrderedMap, Overwrite, *Overwrite:
		return false // Overwrite: stored in its wire form (overwrite.go)
	default:
		return true
	}
}

// normalizeCopy is Normalize for a value at nesting level depth that
// changes: lists and maps are copied, with their elements normalized.
func normalizeCopy(v any, depth int) any {
	switch x := v.(type) {
	case int:
		return intNumber(int64(x))
	case int64:
		return intNumber(x)
	case int32:
		return float64(x)
	case int16:
		return float64(x)
	case int8:
		return float64(x)
	case uint:
		return uintNumber(uint64(x))
	case uint64:
		return uintNumber(x)
	case uint32:
		return float64(x)
	case uint16:
		return float64(x)
	case uint8:
		return float64(x)
	case float32:
		return float64(x)
	case json.Number:
		return Number(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeAt(e, depth+1)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeAt(e, depth+1)
		}
		return out
	case *OrderedMap:
		out := make(map[string]any, len(x.Keys))
		for _, k := range x.Keys {
			out[k] = normalizeAt(x.Values[k], depth+1)
		}
		return out
	case Send:
		return Send{Node: x.Node, Arg: normalizeAt(x.Arg, depth+1)}
	case Overwrite:
		return map[string]any{OverwriteKey: normalizeAt(x.Value, depth+1)}
	case *Overwrite:
		if x != nil {
			return map[string]any{OverwriteKey: normalizeAt(x.Value, depth+1)}
		}
		return nil
	default:
		return v
	}
}

// Number is a JSON number in engine form: a float64, or, for a whole
// number that fits int64 or uint64 but that float64 cannot hold exactly,
// the json.Number of its exact digits (so 9007199254740993 is not read as
// …992). Text that is no number is kept as a string.
func Number(n json.Number) any {
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return intNumber(i)
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return uintNumber(u)
	}
	f, err := n.Float64()
	if err != nil {
		return s
	}
	return f
}

// intNumber is i in engine form: a float64 when that is exact.
func intNumber(i int64) any {
	if f := float64(i); f >= -(1<<63) && f < 1<<63 && int64(f) == i {
		return f
	}
	return json.Number(strconv.FormatInt(i, 10))
}

// uintNumber is u in engine form: a float64 when that is exact.
func uintNumber(u uint64) any {
	if u <= math.MaxInt64 {
		return intNumber(int64(u))
	}
	if f := float64(u); f < 1<<64 && uint64(f) == u {
		return f
	}
	return json.Number(strconv.FormatUint(u, 10))
}

// Pairs builds an ordered Update from alternating keys and values:
// Pairs("total", 2, "visited", []any{"a"}). It panics on an odd count or a
// non-string key, a programming error in the calling node.
func Pairs(keyValues ...any) Update {
	if len(keyValues)%2 != 0 {
		panic("engine.Pairs: odd number of arguments")
	}
	out := make(Update, 0, len(keyValues)/2)
	for i := 0; i < len(keyValues); i += 2 {
		k, ok := keyValues[i].(string)
		if !ok {
			panic(fmt.Sprintf("engine.Pairs: key %d is %T, not a string", i/2, keyValues[i]))
		}
		out = append(out, KV{Key: k, Value: keyValues[i+1]})
	}
	return out
}
