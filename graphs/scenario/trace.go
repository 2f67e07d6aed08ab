package scenario

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strings"

	"github.com/superstep/superstep/engine"
)

// TraceVersion is the version of the trace format written here.
const TraceVersion = 1

// plain converts an engine value into plain JSON data the way traces show
// it: Sends as {"$send": {...}}, interrupts as their values, numbers as
// float64.
func plain(v any) any {
	switch x := engine.Normalize(v).(type) {
	case nil, bool, string:
		return x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plain(e)
		}
		return out
	case engine.Send:
		return map[string]any{"$send": map[string]any{"node": x.Node, "arg": plain(x.Arg)}}
	case engine.Interruption:
		return plain(x.Value)
	case []engine.Interruption:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e.Value)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	default:
		b, err := engine.EncodeValue(x)
		if err != nil {
			return err.Error()
		}
		d, _ := engine.DecodeValue(b)
		return plain(d)
	}
}

// Canonical writes v as canonical JSON: object keys sorted, numbers as
// JavaScript prints them, indent spaces per level (0: compact).
func Canonical(v any, indent int) []byte {
	var buf bytes.Buffer
	writeCanonical(&buf, v, indent, 0)
	return buf.Bytes()
}

func writeCanonical(buf *bytes.Buffer, v any, indent, level int) {
	nl := func(l int) {
		if indent > 0 {
			buf.WriteByte('\n')
			buf.WriteString(strings.Repeat(" ", indent*l))
		}
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
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			buf.WriteString("null")
		} else {
			buf.WriteString(engine.FormatNumber(x))
		}
	case int:
		buf.WriteString(engine.FormatNumber(float64(x)))
	case string:
		b, _ := json.Marshal(x)
		buf.Write(b)
	case []any:
		if len(x) == 0 {
			buf.WriteString("[]")
			return
		}
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			nl(level + 1)
			writeCanonical(buf, e, indent, level+1)
		}
		nl(level)
		buf.WriteByte(']')
	case map[string]any:
		if len(x) == 0 {
			buf.WriteString("{}")
			return
		}
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
			nl(level + 1)
			b, _ := json.Marshal(k)
			buf.Write(b)
			buf.WriteByte(':')
			if indent > 0 {
				buf.WriteByte(' ')
			}
			writeCanonical(buf, x[k], indent, level+1)
		}
		nl(level)
		buf.WriteByte('}')
	default:
		writeCanonical(buf, plain(v), indent, level)
	}
}

// sortRecords orders records by name (or node), then by canonical JSON, as
// the reference runner does for lists whose order depends on scheduling.
func sortRecords(list []any) []any {
	type keyed struct {
		name, canon string
		v           any
	}
	ks := make([]keyed, len(list))
	for i, v := range list {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" {
			name, _ = m["node"].(string)
		}
		ks[i] = keyed{name, string(Canonical(v, 0)), v}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		if ks[i].name != ks[j].name {
			return ks[i].name < ks[j].name
		}
		return ks[i].canon < ks[j].canon
	})
	out := make([]any, len(ks))
	for i, k := range ks {
		out[i] = k.v
	}
	return out
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
