package typed

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"
	"unsafe"

	"github.com/superstep/superstep/engine"
)

// The codec moves values between Go types and the engine's value model
// (nil, bool, float64, string, []any, map[string]any: JSON's). Writes are
// turned into engine values before they reach a channel, so a typed graph's
// channels, checkpoints and traces hold exactly what a map graph's hold and
// every store round-trips them; reads turn engine values back into the
// field's Go type, whatever produced them (a node, an input map, a store).
//
// Common kinds have direct paths; a type with its own JSON or text
// marshalling (time.Time), a struct or an unusual kind goes through
// encoding/json, so it behaves as encoding/json documents.

type codec struct {
	// enc encodes v, at nesting level depth of the value written
	// (enterLevel bounds it).
	enc func(v reflect.Value, depth int) (any, error)
	dec func(dst reflect.Value, v any) error
	// scalars, when not nil, is the direct path of a struct of numbers,
	// strings and bools (structCodec).
	scalars *scalarStruct
}

var (
	codecs   sync.Map // reflect.Type → *codec, finished codecs only
	buildMu  sync.Mutex
	building = map[reflect.Type]*codec{} // under buildMu
)

func codecFor(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	c := codecBuilding(t)
	if len(building) == 0 {
		return c
	}
	// The outermost build publishes every codec it made at once, so no
	// goroutine sees a codec whose recursive parts are not filled in yet.
	for bt, bc := range building {
		codecs.Store(bt, bc)
	}
	clear(building)
	return c
}

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	anyType         = reflect.TypeFor[any]()
)

// codecBuilding returns t's codec, building it under buildMu. A recursive
// type meets its own placeholder, whose functions are filled in before
// anything can call them.
func codecBuilding(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	if c, ok := building[t]; ok {
		return c
	}
	c := &codec{}
	building[t] = c
	built := buildCodec(t)
	*c = built
	return c
}

func viaJSON(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonMarshaler) || p.Implements(jsonMarshaler) ||
		t.Implements(textMarshaler) || p.Implements(textMarshaler) ||
		p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler)
}

func buildCodec(t reflect.Type) codec {
	if t == anyType {
		return codec{enc: encodeAny, dec: decodeAny}
	}
	if t == messageType {
		return messageCodec()
	}
	if viaJSON(t) {
		return jsonCodec(t)
	}
	switch t.Kind() {
	case reflect.Bool:
		return codec{
			enc: func(v reflect.Value, _ int) (any, error) { return v.Bool(), nil },
			dec: func(dst reflect.Value, v any) error {
				b, ok := v.(bool)
				if !ok {
					return mismatch(dst, v, nil)
				}
				dst.SetBool(b)
				return nil
			},
		}
	case reflect.String:
		return codec{
			enc: func(v reflect.Value, _ int) (any, error) { return v.String(), nil },
			dec: func(dst reflect.Value, v any) error {
				s, ok := v.(string)
				if !ok {
					return mismatch(dst, v, nil)
				}
				dst.SetString(s)
				return nil
			},
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return codec{
			enc: func(v reflect.Value, _ int) (any, error) { return encodeInt(v.Int()), nil },
			dec: decodeInt,
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return codec{
			enc: func(v reflect.Value, _ int) (any, error) { return engine.Normalize(v.Uint()), nil },
			dec: decodeUint,
		}
	case reflect.Float32, reflect.Float64:
		return codec{
			enc: func(v reflect.Value, _ int) (any, error) {
				f := v.Float()
				if math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, fmt.Errorf("number %v has no JSON form", f)
				}
				return f, nil
			},
			dec: func(dst reflect.Value, v any) error {
				f, ok := number(v)
				if !ok || dst.OverflowFloat(f) {
					return mismatch(dst, v, nil)
				}
				dst.SetFloat(f)
				return nil
			},
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return jsonCodec(t) // []byte is base64 text, as in encoding/json
		}
		return sliceCodec(t)
	case reflect.Array:
		return arrayCodec(t)
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return mapCodec(t)
		}
		// Integer and text-marshalling keys become object keys as
		// encoding/json writes them (map[int]string: {"3": …}).
		return jsonCodec(t)
	case reflect.Pointer:
		return pointerCodec(t)
	case reflect.Struct:
		return structCodec(t)
	case reflect.Interface:
		return codec{enc: encodeAny, dec: func(dst reflect.Value, v any) error {
			if v == nil {
				dst.SetZero()
				return nil
			}
			rv := reflect.ValueOf(v)
			if !rv.Type().AssignableTo(dst.Type()) {
				return mismatch(dst, v, nil)
			}
			dst.Set(rv)
			return nil
		}}
	}
	return codec{
		enc: func(reflect.Value, int) (any, error) {
			return nil, fmt.Errorf("a %s cannot be stored in a state", t)
		},
		dec: func(dst reflect.Value, v any) error {
			return mismatch(dst, v, fmt.Errorf("a %s cannot be stored in a state", t))
		},
	}
}

func mismatch(dst reflect.Value, v any, err error) error {
	return &DecodeError{Type: dst.Type(), Value: v, Err: err}
}

// atPath prefixes the position of a failing element to a decode error's
// path. Paths are built on the way out of a failure, so decoding a value
// that fits builds none.
func atPath(err error, step string) error {
	if de, ok := err.(*DecodeError); ok {
		de.Path = step + de.Path
	}
	return err
}

// number reads any numeric engine value (float64, or a Go number a map
// graph's input may still hold).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// encodeInt is i as an engine number: a float64, or beyond ±2^53, where
// float64 would round it, the engine's exact form (engine.Number).
func encodeInt(i int64) any {
	if i >= -(1<<53) && i <= 1<<53 {
		return float64(i)
	}
	return engine.Normalize(i)
}

// exactInt reads a json.Number holding a whole number exactly (the
// engine's form of integers beyond ±2^53): a float64 would round it.
func exactInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

func decodeInt(dst reflect.Value, v any) error {
	if f, ok := v.(float64); ok && f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 && !dst.OverflowInt(int64(f)) {
		dst.SetInt(int64(f))
		return nil
	}
	if i, ok := v.(int); ok && !dst.OverflowInt(int64(i)) {
		dst.SetInt(int64(i))
		return nil
	}
	if i, ok := v.(int64); ok && !dst.OverflowInt(i) {
		dst.SetInt(i)
		return nil
	}
	if i, ok := exactInt(v); ok {
		if dst.OverflowInt(i) {
			return mismatch(dst, v, fmt.Errorf("%d is out of range", i))
		}
		dst.SetInt(i)
		return nil
	}
	f, ok := number(v)
	if !ok {
		return mismatch(dst, v, nil)
	}
	if f != math.Trunc(f) {
		return mismatch(dst, v, fmt.Errorf("%s is not a whole number", engine.FormatNumber(f)))
	}
	if f < -(1<<63) || f >= 1<<63 || dst.OverflowInt(int64(f)) {
		return mismatch(dst, v, fmt.Errorf("%s is out of range", engine.FormatNumber(f)))
	}
	dst.SetInt(int64(f))
	return nil
}

func decodeUint(dst reflect.Value, v any) error {
	if n, ok := v.(json.Number); ok {
		if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
			if dst.OverflowUint(u) {
				return mismatch(dst, v, fmt.Errorf("%d is out of range", u))
			}
			dst.SetUint(u)
			return nil
		}
	}
	f, ok := number(v)
	if !ok {
		return mismatch(dst, v, nil)
	}
	if f != math.Trunc(f) {
		return mismatch(dst, v, fmt.Errorf("%s is not a whole number", engine.FormatNumber(f)))
	}
	if f < 0 || f >= 1<<64 || dst.OverflowUint(uint64(f)) {
		return mismatch(dst, v, fmt.Errorf("%s is out of range", engine.FormatNumber(f)))
	}
	dst.SetUint(uint64(f))
	return nil
}

// encodeAny canonicalizes an interface value: engine values pass through
// (normalized), anything else is encoded by its dynamic type.
func encodeAny(v reflect.Value, depth int) (any, error) {
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return nil, nil
	}
	if !engineTypes[v.Type()] {
		return codecFor(v.Type()).enc(v, depth) // no Interface: it would box v again
	}
	switch x := v.Interface().(type) {
	case nil, bool, string, float64:
		return x, nil
	case engine.Send:
		arg, err := encodeAny(reflect.ValueOf(&x.Arg).Elem(), depth+1)
		return engine.Send{Node: x.Node, Arg: arg}, err
	case []any:
		if err := enterLevel(depth); err != nil {
			return nil, err
		}
		out := make([]any, len(x))
		for i := range x {
			e, err := encodeAny(reflect.ValueOf(&x[i]).Elem(), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case map[string]any:
		if err := enterLevel(depth); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			ev, err := encodeAny(reflect.ValueOf(e), depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = ev
		}
		return out, nil
	}
	return codecFor(v.Type()).enc(v, depth)
}

// errTooDeep is enterLevel's refusal: the engine's own error, so a typed
// graph's write past the bound reads as a map graph's does.
var errTooDeep = fmt.Errorf("nested deeper than %d levels: %w", engine.MaxValueDepth, engine.ErrValueTooDeep)

// enterLevel refuses to encode a list, map, struct or pointer at nesting
// level depth past engine.MaxValueDepth: a value the engine would refuse
// anyway, or one that contains itself (a tree whose nodes point back at
// their parents), whose walk would not end.
func enterLevel(depth int) error {
	if depth >= engine.MaxValueDepth {
		return errTooDeep
	}
	return nil
}

// engineTypes are the types encodeAny passes on as engine values.
var engineTypes = map[reflect.Type]bool{
	reflect.TypeFor[bool]():           true,
	reflect.TypeFor[string]():         true,
	reflect.TypeFor[float64]():        true,
	reflect.TypeFor[engine.Send]():    true,
	reflect.TypeFor[[]any]():          true,
	reflect.TypeFor[map[string]any](): true,
}

// decodeAny stores an engine value in an any as it is.
func decodeAny(dst reflect.Value, v any) error {
	if v == nil {
		dst.SetZero()
	} else {
		dst.Set(reflect.ValueOf(v))
	}
	return nil
}

// jsonCodec goes through encoding/json: the type's own marshalling, or
// encoding/json's rules for structs (tags, omitempty, embedding).
func jsonCodec(t reflect.Type) codec {
	return codec{
		enc: func(v reflect.Value, _ int) (any, error) {
			// encoding/json refuses a cycle itself.
			b, err := json.Marshal(v.Interface())
			if err != nil {
				return nil, err
			}
			return engine.DecodeValue(b)
		},
		dec: func(dst reflect.Value, v any) error {
			if x := reflect.ValueOf(v); x.IsValid() && x.Type() == dst.Type() {
				dst.Set(x) // already the Go value (written by this process)
				return nil
			}
			b, err := engine.EncodeValue(v)
			if err != nil {
				return mismatch(dst, v, err)
			}
			fresh := reflect.New(dst.Type())
			if err := json.Unmarshal(b, fresh.Interface()); err != nil {
				return mismatch(dst, v, err)
			}
			dst.Set(fresh.Elem())
			return nil
		},
	}
}

func sliceCodec(t reflect.Type) codec {
	elem := codecBuilding(t.Elem())
	fast, size := fastKindFor(t.Elem()), t.Elem().Size()
	return codec{
		enc: func(v reflect.Value, depth int) (any, error) {
			if v.IsNil() {
				return nil, nil
			}
			return encodeElems(elem, v, depth)
		},
		dec: func(dst reflect.Value, v any) error {
			if v == nil {
				dst.SetZero()
				return nil
			}
			l, ok := v.([]any)
			if !ok {
				return mismatch(dst, v, nil)
			}
			out := reflect.MakeSlice(t, len(l), len(l))
			data := out.UnsafePointer()
			i := 0
			if fast == fastInt {
				i = decodeInts(unsafe.Slice((*int)(data), len(l)), l)
			}
			for ; i < len(l); i++ {
				e := l[i]
				if fast.set(unsafe.Add(data, uintptr(i)*size), e) {
					continue
				}
				if err := elem.dec(out.Index(i), e); err != nil {
					return atPath(err, "["+strconv.Itoa(i)+"]")
				}
			}
			dst.Set(out)
			return nil
		},
	}
}

// encodeElems encodes a slice's or an array's elements with elem, naming
// the index of the first that fails.
func encodeElems(elem *codec, v reflect.Value, depth int) (any, error) {
	if err := enterLevel(depth); err != nil {
		return nil, err
	}
	out := make([]any, v.Len())
	for i := range out {
		e, err := elem.enc(v.Index(i), depth+1)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = e
	}
	return out, nil
}

func arrayCodec(t reflect.Type) codec {
	elem := codecBuilding(t.Elem())
	return codec{
		enc: func(v reflect.Value, depth int) (any, error) {
			return encodeElems(elem, v, depth)
		},
		dec: func(dst reflect.Value, v any) error {
			l, ok := v.([]any)
			if !ok || len(l) != t.Len() {
				return mismatch(dst, v, nil)
			}
			for i, e := range l {
				if err := elem.dec(dst.Index(i), e); err != nil {
					return atPath(err, "["+strconv.Itoa(i)+"]")
				}
			}
			return nil
		},
	}
}

func mapCodec(t reflect.Type) codec {
	elem := codecBuilding(t.Elem())
	return codec{
		enc: func(v reflect.Value, depth int) (any, error) {
			if v.IsNil() {
				return nil, nil
			}
			if err := enterLevel(depth); err != nil {
				return nil, err
			}
			out := make(map[string]any, v.Len())
			for it := v.MapRange(); it.Next(); {
				e, err := elem.enc(it.Value(), depth+1)
				if err != nil {
					return nil, fmt.Errorf("[%q]: %w", it.Key().String(), err)
				}
				out[it.Key().String()] = e
			}
			return out, nil
		},
		dec: func(dst reflect.Value, v any) error {
			if v == nil {
				dst.SetZero()
				return nil
			}
			m, ok := v.(map[string]any)
			if !ok {
				return mismatch(dst, v, nil)
			}
			out := reflect.MakeMapWithSize(t, len(m))
			for k, e := range m {
				ev := reflect.New(t.Elem()).Elem()
				if err := elem.dec(ev, e); err != nil {
					return atPath(err, "["+strconv.Quote(k)+"]")
				}
				out.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
			}
			dst.Set(out)
			return nil
		},
	}
}

func pointerCodec(t reflect.Type) codec {
	elem := codecBuilding(t.Elem())
	ptrToPtr := t.Elem().Kind() == reflect.Pointer
	return codec{
		enc: func(v reflect.Value, depth int) (any, error) {
			if v.IsNil() {
				return nil, nil
			}
			if !ptrToPtr {
				// A pointer adds no level to the value written; a
				// cycle through it passes a struct, map or list,
				// which does.
				return elem.enc(v.Elem(), depth)
			}
			// Only a pointer to a pointer can point back at itself
			// with nothing between: count it, so that walk ends too.
			if err := enterLevel(depth); err != nil {
				return nil, err
			}
			return elem.enc(v.Elem(), depth+1)
		},
		dec: func(dst reflect.Value, v any) error {
			if v == nil {
				dst.SetZero()
				return nil
			}
			p := reflect.New(t.Elem())
			if err := elem.dec(p.Elem(), v); err != nil {
				return err
			}
			dst.Set(p)
			return nil
		},
	}
}

// Encode turns a Go value into the engine's value model, as a typed graph
// does with everything it writes. It is exported for programs that mix the
// APIs (a map-based input for a typed graph, a typed Send in a map graph).
func Encode(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	return encodeAny(reflect.ValueOf(v), 0)
}

// Decode reads an engine value into a T: numbers into Go numbers (whole
// numbers only for integer types), strings into time.Time and other text
// types, lists into slices, objects into maps and structs (by their json
// tags). A value that does not fit is a *DecodeError. A value that is
// already a T is returned as it is: a value read live (an entrypoint's input,
// as the caller gave it) and the same value read back from a checkpoint (its
// JSON) decode alike (example: Decode).
func Decode[T any](v any) (T, error) {
	var out T
	err := codecFor(reflect.TypeFor[T]()).dec(reflect.ValueOf(&out).Elem(), v)
	return out, err
}
