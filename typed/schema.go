package typed

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/superstep/superstep/engine"
)

// schema is what a state struct type declares: one state key per exported
// field, in field order, each with its codec. It depends on the type alone
// (a graph's options choose only the channels: keySpecs), so it is built
// once per type (schemaFor), and Write resolves an Update's changes
// through it before any graph is known.
type schema struct {
	typ    reflect.Type
	fields []field
	byKey  map[string]int
	// offsets holds each field's offset, ascending (struct order).
	offsets []uintptr
	// atOffset[off] is 1 + the index of the first field at offset off (0:
	// none), for a struct of at most maxIndexedSize bytes: resolving a
	// change is then one load, not a search.
	atOffset []int16
	// ptrTypes holds each field's ptrType, for fieldAt's one load.
	ptrTypes []unsafe.Pointer
	// writes holds what resolving a change reads of each field, in
	// fields' order: 40 bytes a field where a field is about 170, so a
	// node's ten changes read seven cache lines, not twenty (callgrind's
	// first-level data misses on wide_state, 21 a node in pairs).
	writes []writeSlot
	// shared and unshared split fields (indexes into fields) by whether
	// a decoded value may be copied to several tasks (see cache.go).
	shared, unshared []int
}

// writeSlot is a field as resolving a change reads it (field's offset,
// ptrType, valType and key).
type writeSlot struct {
	offset  uintptr
	ptrType unsafe.Pointer
	valType unsafe.Pointer
	key     string
}

type field struct {
	index   int    // in the struct
	order   int    // in the schema's fields
	goName  string // "Total"
	key     string // "total"
	offset  uintptr
	typ     reflect.Type
	ptrType unsafe.Pointer // the runtime type of *typ, its Set pointers (ifaceWords)
	valType unsafe.Pointer // the runtime type of typ; nil for an interface type
	own     ownValue       // whether a typ value is its own engine value
	codec   *codec
	fast    fastKind
	reducer string    // "" (LastValue), "append", "add_messages" or a registered name
	where   string    // for errors: `state field Total (key "total")`
	shared  bool      // its values share nothing mutable (cache.go)
	lists   *listMemo // for a list of numbers, strings or bools (cache.go)
}

// Reducer is a named fold for a state field: a field tagged
// `reducer:"name"` is folded with the function registered under that name
// by WithReducer. T is the field's type.
type Reducer[T any] func(current, write T) T

type reducerDef struct {
	typ  reflect.Type
	fold func(current, write any) (any, error) // on engine values
}

// WithReducer registers a reducer by name for the fields tagged
// `reducer:"name"`. Values are decoded into T, folded, and encoded back, so
// the channel holds engine values as every other channel does.
func WithReducer[T any](name string, fn Reducer[T]) Option {
	t := reflect.TypeFor[T]()
	c := codecFor(t)
	fold := func(current, write any) (any, error) {
		var cur, w T
		if err := c.dec(reflect.ValueOf(&cur).Elem(), current); err != nil {
			return nil, fmt.Errorf("reducer %q: current value: %w", name, err)
		}
		if err := c.dec(reflect.ValueOf(&w).Elem(), write); err != nil {
			return nil, fmt.Errorf("reducer %q: write: %w", name, err)
		}
		return c.enc(reflect.ValueOf(fn(cur, w)), 0)
	}
	return func(o *options) { o.reducers[name] = reducerDef{typ: t, fold: fold} }
}

// Option configures NewGraph.
type Option func(*options)

type options struct {
	reducers map[string]reducerDef
}

var messagesType = reflect.TypeFor[Messages]()

// schemaEntry is a state type's schema, or why it is not one.
type schemaEntry struct {
	ptrType unsafe.Pointer // the runtime type of *S (ifaceWords)
	s       *schema
	err     error
}

var (
	schemas    sync.Map                    // runtime type of *S → *schemaEntry
	lastSchema atomic.Pointer[schemaEntry] // the last one looked up: a Write's usual hit
)

// schemaFor is the schema of the struct S whose pointer type *S has the
// runtime type ptrType, built on first use. A graph's nodes write one
// state type, so the last type looked up is checked first, without a map
// lookup.
func schemaFor(ptrType unsafe.Pointer) (*schema, error) {
	if e := lastSchema.Load(); e != nil && e.ptrType == ptrType {
		return e.s, e.err
	}
	v, ok := schemas.Load(ptrType)
	if !ok {
		s, err := newSchema(reflect.TypeOf(box(ptrType, nil)).Elem())
		v, _ = schemas.LoadOrStore(ptrType, &schemaEntry{ptrType: ptrType, s: s, err: err})
	}
	e := v.(*schemaEntry)
	lastSchema.Store(e)
	return e.s, e.err
}

// ptrTypeOf is the runtime type of *S, from a nil pointer: no value of
// the caller's flows into it.
func ptrTypeOf[S any]() unsafe.Pointer { return typeWord((*S)(nil)) }

// schemaOf is the schema of the struct type t (schemaFor).
func schemaOf(t reflect.Type) (*schema, error) {
	return schemaFor(typeWord(reflect.Zero(reflect.PointerTo(t)).Interface()))
}

// keySpecs are the graph's state keys for the schema's fields, in order:
// their channels, which options (registered reducers) choose.
func (s *schema) keySpecs(o *options) ([]engine.KeySpec, error) {
	keys := make([]engine.KeySpec, len(s.fields))
	for i, f := range s.fields {
		spec, err := keySpec(f, o)
		if err != nil {
			return nil, &SchemaError{Struct: s.typ, Field: f.goName, Msg: err.Error()}
		}
		keys[i] = spec
	}
	return keys, nil
}

// newSchema builds the schema of t (use schemaFor: one per type).
func newSchema(t reflect.Type) (*schema, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: got %s", ErrNotStruct, t)
	}
	s := &schema{typ: t, byKey: map[string]int{}}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		key, skip := jsonKey(sf)
		if skip {
			continue
		}
		if sf.Anonymous {
			return nil, &SchemaError{Struct: t, Field: sf.Name, Msg: "embedded fields are not state keys: name the field"}
		}
		if prev, dup := s.byKey[key]; dup {
			return nil, &SchemaError{Struct: t, Field: sf.Name, Msg: fmt.Sprintf("state key %q is also the key of field %s", key, s.fields[prev].goName)}
		}
		reducer := sf.Tag.Get("reducer")
		if isAppendList(sf.Type) {
			// The type says append; a tag may repeat it, not contradict it.
			if reducer != "" && reducer != "append" {
				return nil, &SchemaError{Struct: t, Field: sf.Name, Msg: fmt.Sprintf("an AppendList field is appended to; it cannot also take reducer %q (declare it %s instead)", reducer, reflect.SliceOf(sf.Type.Elem()))}
			}
			reducer = "append"
		}
		f := field{
			index: i, goName: sf.Name, key: key, offset: sf.Offset, typ: sf.Type, ptrType: typeWord(reflect.New(sf.Type).Interface()),
			valType: valueTypeWord(sf.Type), own: ownValueOf(sf.Type),
			codec: codecFor(sf.Type), fast: fastKindFor(sf.Type), reducer: reducer,
			where:  fmt.Sprintf("state field %s (key %q)", sf.Name, key),
			shared: shareable(sf.Type), lists: newListMemo(sf.Type),
		}
		f.order = len(s.fields)
		s.byKey[key] = len(s.fields)
		if f.shared {
			s.shared = append(s.shared, len(s.fields))
		} else {
			s.unshared = append(s.unshared, len(s.fields))
		}
		s.fields = append(s.fields, f)
		s.offsets = append(s.offsets, f.offset)
		s.ptrTypes = append(s.ptrTypes, f.ptrType)
		s.writes = append(s.writes, writeSlot{offset: f.offset, ptrType: f.ptrType, valType: f.valType, key: f.key})
	}
	if size := t.Size(); size <= maxIndexedSize && len(s.fields) < math.MaxInt16 {
		s.atOffset = make([]int16, size+1)
		for i := len(s.fields) - 1; i >= 0; i-- { // the first of fields sharing an offset wins
			s.atOffset[s.offsets[i]] = int16(i + 1)
		}
	}
	return s, nil
}

// jsonKey names a field's state key as encoding/json names its property.
func jsonKey(sf reflect.StructField) (key string, skip bool) {
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", true
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = sf.Name
	}
	return name, false
}

// keySpec picks a field's channel: its reducer tag, else add_messages for a
// Messages field, else LastValue.
func keySpec(f field, o *options) (engine.KeySpec, error) {
	switch f.reducer {
	case "":
		if f.typ == messagesType {
			return engine.MessagesKey(f.key), nil
		}
		return engine.LastValueKey(f.key), nil
	case "append":
		if f.typ.Kind() != reflect.Slice {
			return engine.KeySpec{}, fmt.Errorf(`reducer "append" needs a slice, the field is %s`, f.typ)
		}
		return engine.AppendKey(f.key), nil
	case "add_messages":
		if f.typ != messagesType {
			return engine.KeySpec{}, fmt.Errorf(`reducer "add_messages" needs a typed.Messages field (a Message carries tool calls), the field is %s`, f.typ)
		}
		return engine.MessagesKey(f.key), nil
	}
	def, ok := o.reducers[f.reducer]
	if !ok {
		return engine.KeySpec{}, fmt.Errorf("reducer %q is not registered (use typed.WithReducer)", f.reducer)
	}
	if def.typ != f.typ {
		return engine.KeySpec{}, fmt.Errorf("reducer %q folds %s, the field is %s", f.reducer, def.typ, f.typ)
	}
	zero, err := f.codec.enc(reflect.New(f.typ).Elem(), 0)
	if err != nil {
		return engine.KeySpec{}, err
	}
	spec := engine.ReducerKey(f.key, def.fold, func() any { return zero })
	spec.ReducerName = f.reducer
	return spec, nil
}

// decode reads a state map into dst, a struct of the schema's type that is
// addressable. Keys without a value leave their field as it is.
func (s *schema) decode(state map[string]any, dst reflect.Value) error {
	return s.decodeAt(state, dst.Addr().UnsafePointer())
}

// decodeAt is decode into the S at base.
func (s *schema) decodeAt(state map[string]any, base unsafe.Pointer) error {
	for i := range s.fields {
		f := &s.fields[i] // decodeInto, inline: this runs for every task
		v, ok := state[f.key]
		if !ok {
			continue
		}
		if f.fast == fastInt {
			if n, ok := wholeInt(v); ok {
				*(*int)(unsafe.Add(base, f.offset)) = n
				continue
			}
		} else if f.fast.set(unsafe.Add(base, f.offset), v) {
			continue
		}
		if err := f.decodeSlow(s.typ, base, v); err != nil {
			return err
		}
	}
	return nil
}

// ownValue tells the field types whose values are their own engine
// values (a float64 only when finite).
type ownValue uint8

const (
	ownNever ownValue = iota
	ownAlways
	ownFinite
)

// ownValueOf is whether a value of field type t is its own engine value
// (the types Set leaves as they are: see field.encoded).
func ownValueOf(t reflect.Type) ownValue {
	switch t {
	case reflect.TypeFor[string](), reflect.TypeFor[bool]():
		return ownAlways
	case reflect.TypeFor[float64]():
		return ownFinite
	}
	return ownNever
}

// valueTypeWord is the runtime type word of a t held in an interface
// (ifaceWords); nil for an interface type, whose values have their own.
func valueTypeWord(t reflect.Type) unsafe.Pointer {
	if t.Kind() == reflect.Interface {
		return nil
	}
	return typeWord(reflect.New(t).Elem().Interface())
}

// encoded reports whether a Change's value for this field is already an
// engine value. Set encodes a value only into another type than the
// field's (an int into a float64, a []int into a []any), or into the
// value itself (a string, a bool, a finite float64), so the value's type
// says it; an interface field's value is always encoded again (a no-op on
// an engine value).
func (f *field) encoded(v *any) bool {
	t, data := ifaceWords(v)
	switch {
	case f.valType == nil:
		return false
	case t != f.valType:
		return true
	case f.own == ownAlways:
		return true
	case f.own == ownFinite:
		x := *(*float64)(data)
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	return false
}

// engineValue is a Change's value *v for this field as an engine value:
// itself when Set encoded it, else what the field's codec makes of it.
func (f *field) engineValue(v *any) (any, error) {
	if f.encoded(v) {
		return *v, nil
	}
	return f.encode(valueOf(*v, f.typ))
}

func (f *field) decodeError(err error) error {
	if de, ok := err.(*DecodeError); ok && de.Where == "" {
		de.Where = f.where
		return de
	}
	return &DecodeError{Where: f.where, Type: f.typ, Err: err}
}

// encode turns a field's Go value into the value written to its channel.
// An append field's nil slice writes an empty list (nothing appended), not
// a null item.
func (f *field) encode(v reflect.Value) (any, error) {
	out, err := f.codec.enc(v, 0)
	if err != nil {
		return nil, &EncodeError{Where: f.where, Err: err}
	}
	if out == nil && f.reducer == "append" {
		out = []any{}
	}
	return out, nil
}

// maxIndexedSize is the largest state struct whose fields are found by
// an offset table (schema.atOffset): two bytes a byte of the struct.
const maxIndexedSize = 4096

// fieldAt is the field fieldFor finds in its usual case, the first at
// off in the offset table, or nil (fieldFor then finds it, if any): small
// enough to be inlined where a node's one change is resolved, on every
// node of a chain or a loop.
func (s *schema) fieldAt(off uintptr, pt unsafe.Pointer) *field {
	if off < uintptr(len(s.atOffset)) {
		if i := int(s.atOffset[off]) - 1; i >= 0 && s.ptrTypes[i] == pt {
			return &s.fields[i]
		}
	}
	return nil
}

// atOffsetIndex is the index of the first field at offset off by the
// offset table, or -1 (none, or a struct too large for the table).
func (s *schema) atOffsetIndex(off uintptr) int {
	if off < uintptr(len(s.atOffset)) {
		return int(s.atOffset[off]) - 1
	}
	return -1
}

// fieldFor is the field at offset off whose pointers have the runtime type
// pt. Fields are in struct order, so by offset; a zero-size field shares
// its offset with the next one, and a nested field's with its parent,
// hence the type. hint is where to look first (the field after the last
// one found: updates usually set fields in order).
func (s *schema) fieldFor(off uintptr, pt unsafe.Pointer, hint int) (*field, bool) {
	i := hint
	if i >= len(s.writes) || s.writes[i].offset != off || s.writes[i].ptrType != pt {
		if off < uintptr(len(s.atOffset)) {
			i = int(s.atOffset[off]) - 1
			if i < 0 {
				return nil, false
			}
		} else { // a struct too large for the table
			i, _ = slices.BinarySearch(s.offsets, off)
		}
	}
	for ; i < len(s.writes) && s.writes[i].offset == off; i++ {
		if s.writes[i].ptrType == pt {
			return &s.fields[i], true
		}
	}
	return nil, false
}
