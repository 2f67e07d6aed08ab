package typed

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"

	"github.com/superstep/superstep/engine"
)

// Change is one field write of an Update, made by Set.
//
// It is two interfaces and nothing else, so that the compiler keeps it in
// registers (a struct of more than four words goes through memory, and
// each copy of it takes room in the frame of the user's node, which is on
// a fan-out task's small stack). Whether value is already encoded is told
// by its type (field.encoded): Set encodes only into a type other than
// the field's, or into a value equal to it (a string, a bool, a finite
// float64).
type Change struct {
	ptr   any // *T, the field's address in the struct the Update is built on
	value any // T, or its engine value when Set encoded it
}

// Set says "this field gets this value". field must be the address of a
// field of the struct the Update is built on (Write's first argument); the
// compiler checks that value has the field's type. For a reducer field the
// value is the write, not the result: Set(&s.Visited, []string{"a"})
// appends "a" to an append field.
func Set[T any](field *T, value T) Change {
	// Built-in scalars are encoded here, where their type is known without
	// reflect: a node's update then costs what a map node's costs.
	// The any(value) below must not escape, or every Set would allocate
	// it: each case stores its typed v, never the interface. An int, the
	// usual field, is tested first, by one compare of its type (the
	// switch looks the type's hash up in a table first).
	if v, ok := any(value).(int); ok {
		if i := int64(v); i >= -(1<<53) && i <= 1<<53 {
			return Change{ptr: field, value: float64(v)}
		}
		return Change{ptr: field, value: value}
	}
	switch v := any(value).(type) {
	case float64:
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			return Change{ptr: field, value: v}
		}
	case string:
		return Change{ptr: field, value: v}
	case bool:
		return Change{ptr: field, value: v}
	case []int, []string:
		if out := encodeList(v); out != nil {
			return Change{ptr: field, value: out}
		}
	}
	return Change{ptr: field, value: value}
}

// encodeList is Set's and Append's encoding of a []int or a []string, or
// nil for a list it leaves to the field's codec (a nil []string, an int
// beyond ±2^53). It keeps nothing of l.
func encodeList(l any) any {
	switch v := l.(type) {
	case []int:
		if len(v) == 1 && int64(v[0]) >= -(1<<53) && int64(v[0]) <= 1<<53 {
			// A list of one, the usual append, here and not in
			// encodeIntList: a frame less on a fan-out task's stack.
			b := new(oneList[float64])
			b.v = float64(v[0])
			return b.boxed(float64Type)
		}
		if out := encodeIntList(v); out != nil {
			return out
		}
	case []string:
		if v != nil {
			return encodeStrings(v)
		}
	}
	return nil
}

// encodeIntList is a non-nil []int as engine values, boxed, or nil when
// an element is not exactly a float64. Set's lists are encoded in calls
// of their own, so that Set itself keeps a small frame: it runs in the
// user's node, deepest on a fan-out task's small stack.
//
//go:noinline
func encodeIntList(l []int) any {
	if l == nil {
		return nil
	}
	for _, x := range l {
		if n := int64(x); n < -(1<<53) || n > 1<<53 {
			return nil
		}
	}
	if len(l) > shortListLen {
		return longIntList(l)
	}
	if len(l) == 1 {
		b := new(oneList[float64])
		b.v = float64(l[0])
		return b.boxed(float64Type)
	}
	b := new(shortList[float64])
	for i, x := range l {
		b.v[i] = float64(x)
	}
	return b.boxed(len(l), float64Type)
}

// shortListLen is the longest list Set encodes into one block.
const shortListLen = 4

// shortList is a short list of engine values of type E, its slice header
// and the values its interfaces point to, in one allocation.
type shortList[E float64 | string] struct {
	h []any
	a [shortListLen]any
	v [shortListLen]E
}

// boxed is the first n of b's values as a list of engine values, boxed:
// each interface points to its value, as boxing it would, and nothing
// changes them, so the list costs the one allocation of b. typ is E's
// runtime type word. (Small enough to be inlined: a call would be one
// frame more on a fan-out task's stack.)
func (b *shortList[E]) boxed(n int, typ unsafe.Pointer) any {
	b.h = b.a[:n:n] // no spare capacity: an append to the value copies it
	for i := range n {
		b.a[i] = box(typ, unsafe.Pointer(&b.v[i]))
	}
	return box(anyListType, unsafe.Pointer(&b.h))
}

// oneList is shortList for a list of one element, the most common (an
// item appended to a list), in a block of 48 bytes for a float64 rather
// than shortList's 128: a fan-out's Send task allocates it under the
// user's node, where the allocator's slow path (once per span of its
// size class, so less often for smaller blocks) can outgrow the task's
// first stack.
type oneList[E float64 | string] struct {
	h []any
	a [1]any
	v E
}

// boxed is shortList.boxed for b's one value.
func (b *oneList[E]) boxed(typ unsafe.Pointer) any {
	b.a[0] = box(typ, unsafe.Pointer(&b.v))
	b.h = b.a[:1:1]
	return box(anyListType, unsafe.Pointer(&b.h))
}

// longIntList is encodeIntList of a list longer than shortListLen.
//
//go:noinline
func longIntList(l []int) any {
	out := make([]any, len(l))
	for i, x := range l {
		out[i] = float64(x)
	}
	return out
}

// encodeStrings is a []string as engine values, boxed.
//
//go:noinline
func encodeStrings(l []string) any {
	if len(l) > shortListLen {
		return longStrings(l)
	}
	if len(l) == 1 {
		b := new(oneList[string])
		b.v = l[0]
		return b.boxed(stringType)
	}
	b := new(shortList[string])
	copy(b.v[:], l)
	return b.boxed(len(l), stringType)
}

// longStrings is encodeStrings of a list longer than shortListLen.
//
//go:noinline
func longStrings(l []string) any {
	out := make([]any, len(l))
	for i, x := range l {
		out[i] = x
	}
	return out
}

// anyListType, float64Type and stringType are the runtime type words of
// []any, float64 and string.
var (
	anyListType = typeWord([]any(nil))
	float64Type = typeWord(0.0)
	stringType  = typeWord("")
)

// Update is a node's partial state update: the fields it set, in the order
// it set them, and optionally where to go next (a Command). The zero
// Update writes nothing.
type Update[S any] struct{ update }

// update is an Update's content, which does not depend on S: the code that
// resolves it is not generic.
//
// It holds a single change, the most common update, inline (so that a
// Write of one field allocates nothing), as its field's offset in S and
// the runtime type of a pointer to the field, with its value; the change
// is resolved to its state key when the node returns. More changes are
// resolved when Write is called, through S's schema (schemaFor), into the
// state writes the engine takes, allocated in one block with the
// updateRest that holds them (newRest): a node that sets ten fields
// allocates what a map node's ten writes take, and its result is that
// block's slice header. Gotos are in an updateRest too.
//
// It is four words of three fields, because a struct larger than that is
// not kept in registers by the compiler: each copy of it then takes room
// in the frames of the user's node and of the node's closure, which are
// on the task's stack, and a fan-out task whose stack outgrows its first
// 2 KB copies its stack, at about 10,000 instructions a Send. The zero
// update sets nothing.
type update struct {
	off uintptr // the change's field offset; inRest: typ is the *updateRest
	// typ is the runtime type of *T for the change's field of type T
	// (ifaceWords), nil when there is no change, or the *updateRest.
	typ   unsafe.Pointer
	value any // T, or its engine value when Set encoded it
}

// inRest is update.off of an Update whose changes and gotos are in an
// updateRest (an offset no field has).
const inRest = ^uintptr(0)

// rest is the Update's updateRest, or nil.
func (u *update) rest() *updateRest {
	if u.off == inRest {
		return (*updateRest)(u.typ)
	}
	return nil
}

// updateRest is the part of an Update most nodes do not use: its changes
// resolved to state writes, or why they do not resolve, and its gotos.
// It is never changed once an Update holds it: Updates are values that
// share it, and a node result is the address of its writes (boxed), so
// an Update returned twice (a package-level one, say) gives two results
// that point to the same writes, which nothing changes.
type updateRest struct {
	writes engine.Update // the changes' state writes, in order
	// more is what few Updates have, behind a pointer: the usual rest is
	// two words smaller, and so is the block it shares with its writes
	// (newRest). nil: neither an error nor gotos. Never changed once set.
	more *restMore
}

type restMore struct {
	err   error // why a change does not resolve, reported when the node returns
	gotos []any // string node names and engine.Sends, in call order
}

// err is why a change does not resolve (nil: they all do).
func (r *updateRest) err() error {
	if r.more == nil {
		return nil
	}
	return r.more.err
}

// gotos are the Update's node names and Sends, in call order.
func (r *updateRest) gotos() []any {
	if r.more == nil {
		return nil
	}
	return r.more.gotos
}

// Write builds an Update of the fields of s that changes set, in order:
//
//	return typed.Write(s, typed.Set(&s.Total, s.Total*2), typed.Set(&s.Visited, []string{"a"})), nil
//
// s is the state the node received; a node started by a Send, which gets
// no state, builds its update on the zero state it is lent (SendFunc's
// out).
func Write[S any](s *S, changes ...Change) Update[S] {
	return Update[S]{write(ptrTypeOf[S](), unsafe.Pointer(s), changes)} // inlined: no generic frame
}

// write is Write's Update of changes made on the struct at base, whose
// pointer type has the runtime type ptrType.
func write(ptrType, base unsafe.Pointer, changes []Change) update {
	if len(changes) == 1 {
		pt, addr := ifaceWords(&changes[0].ptr)
		if pt != nil && base != nil && uintptr(addr) >= uintptr(base) {
			return update{off: uintptr(addr) - uintptr(base), typ: pt, value: changes[0].value}
		}
	}
	if len(changes) == 0 {
		return update{}
	}
	// More changes, or one that resolving reports (a zero Change, a nil
	// base, an address before the struct).
	return update{off: inRest, typ: unsafe.Pointer(resolveAtWrite(ptrType, base, changes))}
}

// resolveAtWrite is the updateRest of changes made on the struct at base:
// their state writes, or the error that resolving them met.
//
//go:noinline
func resolveAtWrite(ptrType, base unsafe.Pointer, changes []Change) *updateRest {
	s, err := schemaFor(ptrType)
	r := newRest(len(changes))
	if err == nil {
		r.writes, err = s.pairs(base, changes, r.writes)
	}
	if err != nil {
		r.writes, r.more = nil, &restMore{err: err}
	}
	return r
}

// newRest is an updateRest with n writes of room (r.writes, of length n),
// allocated in one block with them for up to 16 writes, the block sized
// to waste at most one write's 32 bytes up to 12: a node that sets ten
// fields allocates 352 B once, where a map node's ten writes take 320 B
// and the 24 B of its result (measured on wide_state; the room for 16
// changes this replaced was a 1,280 B block).
func newRest(n int) *updateRest {
	switch {
	case n <= 2:
		return restOf[[2]engine.KV](n)
	case n <= 3:
		return restOf[[3]engine.KV](n)
	case n <= 4:
		return restOf[[4]engine.KV](n)
	case n <= 6:
		return restOf[[6]engine.KV](n)
	case n <= 8:
		return restOf[[8]engine.KV](n)
	case n <= 10:
		return restOf[[10]engine.KV](n)
	case n <= 12:
		return restOf[[12]engine.KV](n)
	case n <= 16:
		return restOf[[16]engine.KV](n)
	}
	return &updateRest{writes: make(engine.Update, n)}
}

// restBlock is an updateRest and the room for its writes, A an array of
// engine.KV.
type restBlock[A any] struct {
	r    updateRest
	room A
}

// restOf is newRest's block of room A: the writes are the first n
// elements of the array, and their capacity n (an append copies them).
func restOf[A any](n int) *updateRest {
	b := new(restBlock[A])
	b.r.writes = unsafe.Slice((*engine.KV)(unsafe.Pointer(&b.room)), n)
	return &b.r
}

// empty reports whether the Update sets no field (an Update whose
// changes do not resolve is not empty: using it reports why).
func (u *update) empty() bool {
	if r := u.rest(); r != nil {
		return r.writes == nil && r.err() == nil
	}
	return u.typ == nil
}

// gotos lists the Update's node names and Sends in order.
func (u *update) gotos() []any {
	if r := u.rest(); r != nil {
		return r.gotos()
	}
	return nil
}

// withGotos is u with gotos added, on a rest of its own (its writes are
// u's, which nothing changes).
func (u Update[S]) withGotos(gotos []any) Update[S] {
	r := &updateRest{more: &restMore{}}
	if old := u.rest(); old != nil {
		r.writes = old.writes
		if old.more != nil {
			*r.more = *old.more // a copy: old's is never changed
		}
	} else if u.typ != nil {
		s, err := schemaFor(ptrTypeOf[S]())
		if err == nil {
			r.writes, err = s.pairOne(&u.update, nil)
		}
		r.more.err = err
	}
	g := r.more.gotos
	r.more.gotos = append(g[:len(g):len(g)], gotos...)
	return Update[S]{update{off: inRest, typ: unsafe.Pointer(r)}}
}

// Goto adds nodes to run next, as a LangGraph Command's goto: no edge is
// needed. Declare them on the node with engine.WithEnds, which the drawing
// uses and which makes a node that no edge leads to reachable. engine.End
// ends this branch.
func (u Update[S]) Goto(nodes ...string) Update[S] {
	return u.withGotos(anys(nodes))
}

// Send adds Send tasks to run next (a Command's goto with Sends).
func (u Update[S]) Send(sends ...engine.Send) Update[S] {
	return u.withGotos(anys(sends))
}

func anys[T any](l []T) []any {
	out := make([]any, len(l))
	for i, x := range l {
		out[i] = x
	}
	return out
}

// Send builds an engine.Send whose argument is any Go value; the typed
// layer encodes it when the Send leaves the node, and a node added with
// AddSendNode decodes it into its argument type.
func Send[A any](node string, arg A) engine.Send {
	return engine.Send{Node: node, Arg: arg}
}

// pairs resolves the changes to ordered state writes.
func (u *Update[S]) pairs(s *schema) (engine.Update, error) {
	return s.resolve(&u.update, nil)
}

// values is the Update as a map of state keys, a run's input (a key set
// twice keeps its last value).
func (u *Update[S]) values(s *schema) (map[string]any, error) {
	pairs, err := u.pairs(s)
	if err != nil {
		return nil, err
	}
	m := make(map[string]any, len(pairs))
	for _, kv := range pairs {
		m[kv.Key] = kv.Value
	}
	return m, nil
}

// The resolution below is not generic: the node's Update stays in its
// frame and these take it by address (or its rest's parts), so each
// task's stack holds one copy of the Update, not one per call (a deeper
// stack is a stack growth per task on a fan-out), and the code is compiled
// once, not per state shape.

// pairs resolves changes, made on the struct at base, to ordered state
// writes, in buf when they fit.
func (s *schema) pairs(base unsafe.Pointer, changes []Change, buf engine.Update) (engine.Update, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	if base == nil {
		return nil, nilBase(s)
	}
	var out engine.Update
	if cap(buf) >= len(changes) {
		out = buf[:len(changes):len(changes)]
	} else {
		out = make(engine.Update, len(changes))
	}
	slots := s.writes
	hint := 0 // the field after the last one found: a node that sets several fields usually sets them in order
	for i := range changes {
		c := &changes[i]
		pt, addr := ifaceWords(&c.ptr) // c.ptr holds a pointer: its data word is the address
		off := uintptr(addr) - uintptr(base)
		if hint >= len(slots) || slots[hint].offset != off || slots[hint].ptrType != pt {
			// Not the next field: the offset table's, else a search.
			if j := s.atOffsetIndex(off); j >= 0 && slots[j].ptrType == pt {
				hint = j
			} else {
				f, ok := (*field)(nil), false
				if uintptr(addr) >= uintptr(base) {
					f, ok = s.fieldFor(off, pt, hint)
				}
				if !ok {
					return nil, notAField(s, i+1, pt)
				}
				hint = f.order
			}
		}
		w := &slots[hint]
		out[i].Key = w.key
		if vt, _ := ifaceWords(&c.value); vt != w.valType && w.valType != nil { // field.encoded's first case, inline
			out[i].Value = c.value
		} else {
			v, err := s.fields[hint].engineValue(&c.value)
			if err != nil {
				return nil, err
			}
			out[i].Value = v
		}
		hint++
	}
	return out, nil
}

// nilBase is pairs' error for an Update built on a nil pointer (a call
// of its own: pairs runs for every node that sets several fields, and its
// code is read into the cache each time).
//
//go:noinline
func nilBase(s *schema) error {
	return fmt.Errorf("%w: the Update was built on a nil *%s", ErrNotAField, s.typ)
}

// resolve resolves u's changes to ordered state writes, in buf when an
// inline change fits (a rest's writes are resolved already).
func (s *schema) resolve(u *update, buf engine.Update) (engine.Update, error) {
	if r := u.rest(); r != nil {
		return r.writes, r.err()
	}
	return s.pairOne(u, buf)
}

// pairOne is the write of u's inline change (none when it has none), in
// buf when it fits.
func (s *schema) pairOne(u *update, buf engine.Update) (engine.Update, error) {
	if u.typ == nil {
		return nil, nil
	}
	f, ok := s.fieldFor(u.off, u.typ, 0)
	if !ok {
		return nil, notAField(s, 1, u.typ)
	}
	v, err := f.engineValue(&u.value)
	if err != nil {
		return nil, err
	}
	if cap(buf) == 0 {
		buf = make(engine.Update, 0, 1)
	}
	return append(buf[:0], engine.KV{Key: f.key, Value: v}), nil
}

// notAField is ErrNotAField for change i, whose field pointer's runtime
// type is pt.
func notAField(s *schema, i int, pt unsafe.Pointer) error {
	p := box(pt, nil) // a nil pointer of that type: for its name
	return fmt.Errorf("%w: change %d (a %s) is not the address of a state field of that %s", ErrNotAField, i, reflect.TypeOf(p), s.typ)
}

// nodeOutput is what a node returns to the engine for its Update u:
// ordered writes, or a Command when there are gotos. out, when not nil,
// is room for them (*out[:cap]) and the slice header the result points to
// (boxed); u's own room comes first. It runs on the node's task stack
// right after the node, so its common case — one change whose value Set
// encoded — takes a small frame, and everything else, errors included,
// is nodeResult's.
func (s *schema) nodeOutput(u *update, out *engine.Update) (any, error) {
	if r := u.rest(); r != nil && r.more == nil && r.writes != nil {
		return boxed(&r.writes), nil // resolved at Write, and never changed again
	}
	if u.off != inRest && u.typ != nil {
		if f := s.fieldAt(u.off, u.typ); f != nil && f.encoded(&u.value) {
			if out == nil || cap(*out) == 0 {
				w := new(oneWrite)
				w.out, out = w.kv[:0], &w.out
			}
			w := (*out)[:1] // not append: no growslice call in this frame
			w[0] = engine.KV{Key: f.key, Value: u.value}
			*out = w
			return boxed(out), nil
		}
	}
	return s.nodeResult(u, out)
}

// oneWrite is a node result's single write and the slice header the result
// points to, in one allocation.
type oneWrite struct {
	kv  [1]engine.KV
	out engine.Update
}

// boxed is the Update at p as an interface value whose data word is p:
// Go's interface layout for a value that is not pointer-shaped (ifaceWords)
// is a pointer to a copy of it that nothing changes, which is what
// converting *p would allocate. p is a header allocated with the writes
// it points to (a nodeTask, a oneWrite, an updateRest's block) that never
// changes again once boxed, so the result costs no allocation of its own
// (measured on loop_5000: the conversion was about 270 instructions a
// node, as it is for a map node returning an engine.Update).
func boxed(p *engine.Update) any { return box(updateType, unsafe.Pointer(p)) }

// box is the interface value of dynamic type typ (a runtime type word,
// ifaceWords) whose data word is p, the address of a value of that type
// that is not pointer-shaped and that nothing changes any more.
func box(typ, p unsafe.Pointer) any {
	var v any
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&v))
	w[0], w[1] = typ, p
	return v
}

// updateType is the runtime type word of engine.Update.
var updateType = typeWord(engine.Update(nil))

// nodeResult is nodeOutput's general case.
//
//go:noinline
func (s *schema) nodeResult(u *update, out *engine.Update) (any, error) {
	var upd any
	if r := u.rest(); r != nil {
		if err := r.err(); err != nil {
			return nil, err // the engine's NodeError names the node
		}
		if r.writes != nil {
			upd = boxed(&r.writes) // resolved at Write, and never changed again
		}
	} else {
		var buf engine.Update
		if out != nil {
			buf = *out
		}
		pairs, err := s.pairOne(u, buf)
		if err != nil {
			return nil, err // the engine's NodeError names the node
		}
		if pairs != nil && out != nil {
			*out = pairs
			upd = boxed(out)
		} else if pairs != nil {
			upd = pairs
		}
	}
	gotos := u.gotos()
	if len(gotos) == 0 {
		return upd, nil
	}
	encoded, err := encodeGotos(gotos)
	if err != nil {
		return nil, err // the engine's NodeError names the node
	}
	return engine.Command{Update: upd, Goto: encoded}, nil
}

// encodeGotos encodes the arguments of the Sends among a Command's
// gotos; node names pass as they are.
func encodeGotos(gotos []any) ([]any, error) {
	out := make([]any, len(gotos))
	var enc argEncoder
	for i, g := range gotos {
		send, ok := g.(engine.Send)
		if !ok {
			out[i] = g
			continue
		}
		arg, err := enc.encode(&send)
		if err != nil {
			return nil, err
		}
		out[i] = engine.Send{Node: send.Node, Arg: arg}
	}
	return out, nil
}

// encodeSends encodes the arguments of a fan-out's Sends. Each is boxed
// once, into out: a Send is encoded from the caller's list, not from an
// interface holding a copy of it (one allocation per Send less).
func encodeSends(sends []engine.Send) ([]any, error) {
	out := make([]any, len(sends))
	var enc argEncoder
	for i := range sends {
		send := &sends[i]
		arg, err := enc.encode(send)
		if err != nil {
			return nil, err
		}
		out[i] = engine.Send{Node: send.Node, Arg: arg}
	}
	return out, nil
}

// fanOutEncoder is what AddFanOut's Sends share: their node and the
// direct encoder of their argument type (codec.scalars), or nil.
type fanOutEncoder struct {
	to      string
	scalars *scalarStruct
}

// encodeFanOut is a fan-out's Sends to e.to, one per argument, each
// encoded from its place in args (no interface holding a copy of it).
func encodeFanOut[A any](e *fanOutEncoder, args []A) ([]any, error) {
	out := make([]any, len(args))
	for i := range args {
		arg, ok := e.scalars.encAt(unsafe.Pointer(&args[i]))
		if !ok {
			var err error
			if arg, err = encodeSendArg(engine.Send{Node: e.to, Arg: args[i]}); err != nil {
				return nil, err
			}
		}
		out[i] = engine.Send{Node: e.to, Arg: arg}
	}
	return out, nil
}

// argEncoder encodes the arguments of a node's Sends. A fan-out's Sends
// usually share one argument type, so it keeps the direct encoder of the
// last type it met (codec.scalars): the codec is looked up once per run of
// one type (told by the interface's type word, without reflect), and the
// argument is read through its address, without a reflect.Value per
// field.
type argEncoder struct {
	typ     unsafe.Pointer // the last argument's runtime type word
	scalars *scalarStruct
}

func (e *argEncoder) encode(send *engine.Send) (any, error) {
	if send.Arg != nil {
		tw, data := ifaceWords(&send.Arg)
		if tw != e.typ {
			e.typ, e.scalars = tw, nil
			if t := reflect.TypeOf(send.Arg); t.Kind() == reflect.Struct && !engineTypes[t] {
				e.scalars = codecFor(t).scalars
			}
		}
		if e.scalars != nil {
			if v, ok := e.scalars.encAt(data); ok {
				return v, nil
			}
		}
	}
	return encodeSendArg(*send)
}

// ifaceWords are the two words of an interface value: its dynamic type's
// runtime type and its data. The data word is the value itself for a
// pointer, and the value's address for a struct of numbers, strings and
// bools (only pointer-shaped values are stored in the word itself); this
// is Go's interface layout, which reflect reads the same way. The typed
// layer reads it on its hot paths to compare types and reach values
// without reflect.
func ifaceWords(v *any) (typ, data unsafe.Pointer) {
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(v))
	return w[0], w[1]
}

// typeWord is the runtime type word of v's dynamic type (ifaceWords).
func typeWord(v any) unsafe.Pointer {
	t, _ := ifaceWords(&v)
	return t
}

// encodeSendArg is a Send's argument in the engine's value model.
func encodeSendArg(send engine.Send) (any, error) {
	arg, err := Encode(send.Arg)
	if err != nil {
		return nil, &EncodeError{Where: fmt.Sprintf("argument of Send to %q", send.Node), Err: err}
	}
	return arg, nil
}

// valueOf is v as a reflect.Value of type t (v holds a t, or nil for an
// interface or pointer t).
func valueOf(v any, t reflect.Type) reflect.Value {
	if v != nil && reflect.TypeOf(v) == t {
		return reflect.ValueOf(v)
	}
	out := reflect.New(t).Elem()
	if v != nil {
		out.Set(reflect.ValueOf(v))
	}
	return out
}
