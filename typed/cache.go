package typed

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/superstep/superstep/engine"
)

// Decoding the state for every task is the typed layer's main cost, and a
// wide state makes it grow with the number of fields, not with what a node
// reads. So a graph keeps the state it decoded last, with the engine's mark
// of that state (engine.StateChanges): the next task of the same run that
// reads the shared state view re-decodes only the keys that changed since,
// and copies the rest. Siblings of one superstep read the same view and
// decode nothing.
//
// Only fields whose values share nothing mutable are kept (numbers,
// strings, bools, time.Time, and arrays and structs of those): a node owns
// its copy of the state, so a slice, a map, a pointer or an interface is
// decoded afresh for each task, as before (a long list of numbers,
// strings or bools that did not change is copied afresh: listMemo). A graph run by several threads
// at once keeps one of them; the others decode in full.

// cacheFromFields is the number of copyable fields from which a graph
// keeps its decoded state: decoding a field costs a map lookup, and the
// cache a lock, the engine's log and a copy of the struct — about what a
// handful of fields cost. A smaller state is decoded whole (measured on
// the loop_5000 and wide_state workloads of bench_test.go).
const cacheFromFields = 8

// cacheFrom is cacheFromFields; tests lower it to exercise the cache on
// small states.
var cacheFrom = cacheFromFields

// stateCache is one graph's last decoded state.
type stateCache struct {
	mu    sync.Mutex
	mark  engine.StateMark // zero: nothing kept
	value reflect.Value    // a *S: the shared fields at mark, the others zero
	ptr   unsafe.Pointer   // value's pointer, read without reflect per task
	// keys describes the compiled graph's state keys by position
	// (engine.Graph.StateKeys: the engine owns their order); set by
	// Compile.
	keys atomic.Pointer[[]keySlot]
}

// keySlot is what decoding needs of one state key: the field it decodes
// into (field < 0: none), that field's offset and fast kind, so that the
// common case (an int) reads nothing else, and whether the cache keeps it
// (shared).
type keySlot struct {
	offset uintptr
	field  int32
	fast   fastKind
	shared bool
}

// setKeys records the compiled graph's state keys, in the engine's order:
// the positions StateChanges and StateByKey speak of.
func (c *stateCache) setKeys(s *schema, keys []string) {
	slots := make([]keySlot, len(keys))
	for i, k := range keys {
		slots[i].field = -1
		if fi, ok := s.byKey[k]; ok {
			f := &s.fields[fi]
			slots[i] = keySlot{offset: f.offset, field: int32(fi), fast: f.fast, shared: f.shared}
		}
	}
	c.keys.Store(&slots)
}

// byKey is the state a task was given, read by key position, when the
// engine keeps it that way (engine.StateByKey); ok is false otherwise.
func (c *stateCache) byKey(ctx context.Context, state map[string]any) (kv engine.KeyedState, keys []keySlot, ok bool) {
	p := c.keys.Load()
	if p == nil {
		return kv, nil, false
	}
	kv, ok = engine.StateByKey(ctx, state)
	return kv, *p, ok && kv.Len() == len(*p)
}

// decodeByKey is decodeAt reading the state by key position.
func (s *schema) decodeByKey(kv engine.KeyedState, keys []keySlot, base unsafe.Pointer) error {
	for key := range keys {
		k := &keys[key]
		if k.field < 0 {
			continue
		}
		x, ok := kv.Value(key)
		if !ok {
			continue
		}
		if k.fast == fastInt {
			if n, whole := wholeInt(x); whole {
				*(*int)(unsafe.Add(base, k.offset)) = n
				continue
			}
		} else if k.fast.set(unsafe.Add(base, k.offset), x) {
			continue
		}
		if err := s.fields[k.field].decodeSlow(s.typ, base, x); err != nil {
			return err
		}
	}
	return nil
}

// shareable reports whether copying a value of type t shares nothing a
// node could change in place.
func shareable(t reflect.Type) bool {
	if t == timeType {
		return true // its *Location is never modified
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return shareable(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !shareable(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

var timeType = reflect.TypeFor[time.Time]()

// decodeState reads a node's or route's input state into the S at dst
// (fresh or recycled: every field is written), through the cache when the
// engine can say what changed. It takes the struct's address, not a
// reflect.Value: a small state's fields all decode without reflect.
func (s *schema) decodeState(ctx context.Context, c *stateCache, state map[string]any, dst unsafe.Pointer, copyState func(dst, src unsafe.Pointer)) error {
	c.mu.Lock()
	now, changed, incremental := engine.StateChanges(ctx, state, c.mark)
	keys := c.keys.Load()
	if now == (engine.StateMark{}) || keys == nil {
		c.mu.Unlock()
		reflect.NewAt(s.typ, dst).Elem().SetZero() // dst may be a recycled copy
		return s.decodeAt(state, dst)
	}
	if now != c.mark {
		if err := s.refreshCache(ctx, c, *keys, state, changed, incremental); err != nil {
			c.mark = engine.StateMark{}
			c.mu.Unlock()
			return err
		}
		c.mark = now
	}
	copyState(dst, c.ptr)
	c.mu.Unlock()
	if len(s.unshared) == 0 {
		return nil
	}
	return s.decodeFields(s.unshared, state, dst)
}

// refreshCache brings the cache's shared fields to state: the changed keys
// only, or all of them. It reads the keys by position (engine.StateByKey)
// when the engine keeps the state that way, and by name otherwise.
func (s *schema) refreshCache(ctx context.Context, c *stateCache, keys []keySlot, state map[string]any, changed []int, incremental bool) error {
	kv, _, byKey := c.byKey(ctx, state)
	if !incremental || !byKey || !c.value.IsValid() {
		return s.refreshWhole(c, keys, state, kv, changed, incremental && c.value.IsValid(), byKey)
	}
	// The changed keys, the usual case (a chain's or a loop's next step),
	// in a loop of its own: this code is read into the cache for every
	// node, so what the other cases need is in refreshWhole.
	base := c.ptr
	for _, key := range changed {
		if key >= len(keys) || !keys[key].shared {
			continue
		}
		k := &keys[key]
		x, ok := kv.Value(key)
		if ok && k.fast == fastInt { // the usual field, inline
			if n, whole := wholeInt(x); whole {
				*(*int)(unsafe.Add(base, k.offset)) = n
				continue
			}
		}
		if err := s.fields[k.field].setShared(c, x, ok); err != nil {
			return err
		}
	}
	return nil
}

// refreshWhole is refreshCache's other cases: the first refresh, all the
// keys, or a state read by name (the changed keys only when incremental).
//
//go:noinline
func (s *schema) refreshWhole(c *stateCache, keys []keySlot, state map[string]any, kv engine.KeyedState, changed []int, incremental, byKey bool) error {
	if !c.value.IsValid() {
		c.value = reflect.New(s.typ)
		c.ptr = c.value.UnsafePointer()
	}
	if !byKey {
		return s.refreshByName(c, keys, state, changed, incremental)
	}
	c.value.Elem().SetZero() // by key, every key: refreshCache takes the changed ones
	for key := range keys {
		k := &keys[key]
		if !k.shared {
			continue
		}
		x, ok := kv.Value(key)
		if ok && k.fast == fastInt { // the usual field, inline (a run's first node reads every key)
			if n, whole := wholeInt(x); whole {
				*(*int)(unsafe.Add(c.ptr, k.offset)) = n
				continue
			}
		}
		if err := s.fields[k.field].setShared(c, x, ok); err != nil {
			return err
		}
	}
	return nil
}

// refreshByName is refreshCache reading the state map by name.
func (s *schema) refreshByName(c *stateCache, keys []keySlot, state map[string]any, changed []int, incremental bool) error {
	if !incremental {
		c.value.Elem().SetZero()
		return s.decodeFields(s.shared, state, c.ptr)
	}
	for _, key := range changed {
		if key >= len(keys) || !keys[key].shared {
			continue
		}
		f := &s.fields[keys[key].field]
		x, ok := state[f.key]
		if err := f.setShared(c, x, ok); err != nil {
			return err
		}
	}
	return nil
}

// setShared sets the cache's copy of the field to x (ok), or to its zero
// when the key has no value.
func (f *field) setShared(c *stateCache, x any, ok bool) error {
	p := unsafe.Add(c.ptr, f.offset)
	if ok && f.fast == fastInt {
		if n, whole := wholeInt(x); whole {
			*(*int)(p) = n
			return nil
		}
	} else if ok && f.fast.set(p, x) {
		return nil
	}
	fv := c.value.Elem().Field(f.index)
	fv.SetZero() // a key without a value, or null into a struct
	if !ok {
		return nil
	}
	if err := f.codec.dec(fv, x); err != nil {
		return f.decodeError(err)
	}
	return nil
}

// decodeFields decodes the fields at idx (indexes into s.fields) from
// state into the S at base; keys without a value leave their field as it
// is.
func (s *schema) decodeFields(idx []int, state map[string]any, base unsafe.Pointer) error {
	for _, i := range idx {
		if err := s.fields[i].decodeInto(s.typ, base, state); err != nil {
			return err
		}
	}
	return nil
}

// decodeInto decodes the field's key of state into its field of the
// struct of type typ at base; reflect is only for what fast cannot set.
func (f *field) decodeInto(typ reflect.Type, base unsafe.Pointer, state map[string]any) error {
	v, ok := state[f.key]
	if !ok || f.fast.set(unsafe.Add(base, f.offset), v) {
		return nil
	}
	return f.decodeSlow(typ, base, v)
}

// decodeSlow is decodeInto through the field's codec, or a copy of the
// same list decoded before (listMemo).
func (f *field) decodeSlow(typ reflect.Type, base unsafe.Pointer, v any) error {
	fv := reflect.NewAt(typ, base).Elem().Field(f.index)
	l, isList := v.([]any)
	memo := f.lists != nil && isList && len(l) >= memoFromLen
	if memo && f.lists.copyTo(fv, l) {
		return nil
	}
	if err := f.codec.dec(fv, v); err != nil {
		return f.decodeError(err)
	}
	if memo {
		f.lists.keep(l, fv)
	}
	return nil
}

// A long list of numbers, strings or bools in the state is decoded for
// every task that reads the state (each gets a slice of its own), though
// it rarely changes between them: a fan-out's list of items is decoded by
// the node that sends, its route, the join and the run's result. So a
// field of such a list type keeps the last list it decoded, with a copy
// of the engine list it came from: a task whose list holds the very same
// elements (each element's interface words equal: the same boxed value,
// which nothing changes) gets a copy of the decoded slice: a compare and
// a copy of memory, about one instruction an element, against about 30 to
// decode it (fanout_1000). Elements of other types (maps, structs) may be
// changed in place by their holder, so their lists are always decoded.

// memoFromLen is the shortest list a field keeps: a shorter one costs
// little to decode, less than keeping it.
const memoFromLen = 16

// listMemo is a list field's last decoded list (safe for the tasks of a
// superstep, which decode at once).
type listMemo struct {
	last atomic.Pointer[decodedList]
}

// decodedList is a list of engine values and the slice it decodes to,
// both the memo's own.
type decodedList struct {
	src []any
	out reflect.Value
}

// newListMemo is a memo for a field of type t, or nil when t is not a
// slice of numbers, strings or bools decoded by the typed layer itself.
func newListMemo(t reflect.Type) *listMemo {
	if t.Kind() != reflect.Slice || fastKindFor(t.Elem()) == fastNone || (t.PkgPath() != "" && viaJSON(t)) {
		return nil
	}
	return &listMemo{}
}

// copyTo sets fv to a copy of l's decoded slice when l holds the same
// elements as the list decoded last.
func (m *listMemo) copyTo(fv reflect.Value, l []any) bool {
	d := m.last.Load()
	if d == nil || !sameElems(d.src, l) {
		return false
	}
	out := reflect.MakeSlice(d.out.Type(), len(l), len(l))
	reflect.Copy(out, d.out)
	fv.Set(out)
	return true
}

// keep makes fv, decoded from l, the list decoded last.
func (m *listMemo) keep(l []any, fv reflect.Value) {
	out := reflect.MakeSlice(fv.Type(), fv.Len(), fv.Len())
	reflect.Copy(out, fv)
	m.last.Store(&decodedList{src: slices.Clone(l), out: out})
}

// sameElems reports whether a and b hold the same values: each element's
// interface words are equal (ifaceWords). The lists are compared as
// memory, by the runtime's vectorized compare (a thousand elements in
// about 500 instructions, against 17 an element in a loop of ifaceWords).
func sameElems(a, b []any) bool {
	return len(a) == len(b) && bytes.Equal(listWords(a), listWords(b))
}

// listWords is the memory of l's interface values, read-only.
func listWords(l []any) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(l))), uintptr(len(l))*unsafe.Sizeof(any(nil)))
}
