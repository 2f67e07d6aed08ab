package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
)

// MaxValueDepth is how deeply a value may nest: lists, maps and the
// tagged engine forms (a Send or an interrupt counts two levels, as in its
// encoding). Deeper values are refused when written — by a node, as run
// input or by a state update — and by EncodeValue, so nothing stored can
// be deeper. The bound leaves room under encoding/json's own limit of
// 10,000 levels for the documents that carry values (a saved record, an
// export), so every stored value reads back and every export imports.
// LangGraph has no such rule of its own; its serializers have their own
// depth limits, which this one does not copy.
const MaxValueDepth = 1000

// Defaults of Limits.
const (
	DefaultMaxWriteBytes = 64 << 20
	DefaultMaxStateBytes = 256 << 20
)

// Limits bound the size of what a graph's runs write, so that a runaway
// node (a string doubled each superstep, a list that never stops growing)
// fails with an error naming it instead of exhausting memory. Sizes are
// those of the values' JSON encoding. Zero fields take their defaults;
// a negative one turns that bound off.
type Limits struct {
	// MaxWriteBytes bounds one value a node writes to a state key (or
	// sends), and the run input (default DefaultMaxWriteBytes, 64 MiB).
	MaxWriteBytes int
	// MaxStateBytes bounds the state after a superstep: the sum of its
	// keys' values (default DefaultMaxStateBytes, 256 MiB).
	MaxStateBytes int
}

// WithLimits sets the bounds on what runs write (see Limits).
func WithLimits(l Limits) CompileOption { return func(g *Graph) { g.limits = l } }

func (l Limits) write() int { return bound(l.MaxWriteBytes, DefaultMaxWriteBytes) }
func (l Limits) state() int { return bound(l.MaxStateBytes, DefaultMaxStateBytes) }

func bound(v, dflt int) int {
	switch {
	case v == 0:
		return dflt
	case v < 0:
		return math.MaxInt
	}
	return v
}

// errTooDeep and errTooLarge stop a measurement early.
var (
	errTooDeep  = fmt.Errorf("nested deeper than %d levels: %w", MaxValueDepth, ErrValueTooDeep)
	errTooLarge = fmt.Errorf("too large: %w", ErrValueTooLarge)
)

// ValueLimitError is returned when a value written to a state key passes a
// bound: deeper than MaxValueDepth (Err is ErrValueTooDeep) or larger than
// Limits.MaxWriteBytes (ErrValueTooLarge).
type ValueLimitError struct {
	Node  string // the node that wrote it; InputTask for run input
	Key   string // the state key, TasksChannel for a Send's argument, ResumeChannel for an interrupt's answer, Start for the run input whole
	Limit int    // the bound passed: levels or bytes
	Err   error  // ErrValueTooDeep or ErrValueTooLarge
}

// Error names the node, the key and the bound.
func (e *ValueLimitError) Error() string {
	what := fmt.Sprintf("node %q", e.Node)
	if e.Node == InputTask {
		what = "the run input"
	}
	key := fmt.Sprintf("key %q", e.Key)
	switch e.Key {
	case Start:
		if e.Err == ErrValueTooDeep {
			return fmt.Sprintf("the run input nests deeper than %d levels, which cannot be stored", e.Limit)
		}
		return fmt.Sprintf("the run input is larger than %d bytes (Limits.MaxWriteBytes)", e.Limit)
	case TasksChannel:
		key = "a Send's argument"
	case ResumeChannel:
		if e.Err == ErrValueTooDeep {
			return fmt.Sprintf("the answer to an interrupt nests deeper than %d levels (the task that takes it keeps it in a list), which cannot be stored", e.Limit)
		}
		return fmt.Sprintf("the answer to an interrupt is larger than %d bytes (Limits.MaxWriteBytes)", e.Limit)
	}
	if e.Err == ErrValueTooDeep {
		return fmt.Sprintf("%s wrote a value to %s nested deeper than %d levels, which cannot be stored", what, key, e.Limit)
	}
	return fmt.Sprintf("%s wrote a value to %s larger than %d bytes (Limits.MaxWriteBytes)", what, key, e.Limit)
}

// Unwrap returns ErrValueTooDeep or ErrValueTooLarge.
func (e *ValueLimitError) Unwrap() error { return e.Err }

// StateLimitError is returned when the state after a superstep is larger
// than Limits.MaxStateBytes. The superstep's writes are saved; its
// checkpoint is not.
type StateLimitError struct {
	Step  int      // the superstep
	Bytes int      // the state's size
	Limit int      // the bound
	Key   string   // the largest key
	Nodes []string // the nodes that wrote Key in that superstep
}

// Error names the step, the largest key and who wrote it.
func (e *StateLimitError) Error() string {
	by := ""
	if len(e.Nodes) > 0 {
		by = fmt.Sprintf(", written by node %q", e.Nodes[0])
		if len(e.Nodes) > 1 {
			by = fmt.Sprintf(", written by nodes %q", e.Nodes)
		}
	}
	return fmt.Sprintf("the state after step %d is %d bytes, over the limit of %d (Limits.MaxStateBytes): its largest key is %q%s", e.Step, e.Bytes, e.Limit, e.Key, by)
}

// Unwrap returns ErrStateTooLarge.
func (e *StateLimitError) Unwrap() error { return ErrStateTooLarge }

// checkWrite measures a value written to key by node against the bounds.
func (l Limits) checkWrite(node, key string, v any) error {
	_, _, err := l.checkHeld(node, key, v, 0)
	return err
}

// checkHeld is checkWrite that also reports, in the same walk, whether v
// holds the map whose identity is view (0: none) and whether v is not in
// engine form (raw: Normalize would copy it).
func (l Limits) checkHeld(node, key string, v any, view uintptr) (held, raw bool, err error) {
	return l.checkAt(node, key, v, 0, view)
}

// checkAt is checkHeld for a value that will be kept depth levels down
// (inside a list, say): it may nest MaxValueDepth-depth levels itself.
func (l Limits) checkAt(node, key string, v any, depth int, view uintptr) (held, raw bool, err error) {
	m := meter{limit: l.write(), view: view}
	if err := m.value(v, depth); err != nil {
		e := &ValueLimitError{Node: node, Key: key, Limit: m.limit, Err: ErrValueTooLarge}
		if err == errTooDeep {
			e.Limit, e.Err = MaxValueDepth-depth, ErrValueTooDeep
		}
		return m.held, m.raw, e
	}
	return m.held, m.raw, nil
}

// checkResume measures a Command's resume value, or each answer of a
// ResumeMap, before any is saved: a task that takes an answer keeps the
// answers it took as a list (its __resume__ write, LangGraph's
// scratchpad resume list, pregel/_algo.py), one level deeper than the
// answer. An answer that passed the bound only inside that list was
// saved as the run's input, and the run then failed at every try to go
// on, the thread's question counted as answered.
func (l Limits) checkResume(resume any) error {
	check := func(v any) error {
		_, _, err := l.checkAt(InputTask, ResumeChannel, v, 1, 0)
		return err
	}
	if rm, ok := resume.(ResumeMap); ok {
		for _, v := range rm {
			if err := check(v); err != nil {
				return err
			}
		}
		return nil
	}
	if resume == nil {
		return nil
	}
	return check(resume)
}

// checkWrites checks a task's writes to state keys and Sends, and puts
// each Send's argument in engine form (see writeCheck.write). With view,
// a write that holds the state map lends it for longer (stateview.go).
func (g *Graph) checkWrites(node string, writes []Write, view *viewLending) error {
	c := g.newWriteCheck(node, view)
	for i := range writes {
		w := &writes[i]
		if c.small && plainScalar(w.Value) {
			continue // nothing to measure: no deeper, no larger, no map
		}
		if w.Channel == TasksChannel || g.IsStateKey(w.Channel) {
			if err := c.write(w); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkNodeWrites is checkWrites for the writes of a node (nodeWrites):
// the first states are its state-key writes, the rest are control writes
// (gotos, edges, routes), of which only Sends carry a value. It looks no
// channel up.
func (g *Graph) checkNodeWrites(node string, writes []Write, states int, view *viewLending) error {
	c := g.newWriteCheck(node, view)
	for i := range writes {
		w := &writes[i]
		if c.small && plainScalar(w.Value) {
			continue
		}
		if i < states || w.Channel == TasksChannel {
			if err := c.write(w); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeCheck is one pass of checkWrites over a task's writes.
type writeCheck struct {
	g     *Graph
	node  string
	view  *viewLending
	id    uintptr // the state map's identity while it is not lent (0: none)
	small bool    // the bound fits any number, boolean or null
}

func (g *Graph) newWriteCheck(node string, view *viewLending) writeCheck {
	c := writeCheck{g: g, node: node, view: view, small: g.limits.write() >= 24}
	if view != nil && !view.lent.Load() {
		c.id = view.id.Load()
	}
	return c
}

// plainScalar reports a value that fits any bound of 24 bytes or more.
func plainScalar(v any) bool {
	switch v.(type) {
	case nil, bool, float64:
		return true
	}
	return false
}

// write checks one write to a state key, or a Send's argument. Every task
// calls it on its own goroutine's small stack (see fanout.run): its frame
// and the meter's stay small.
//
// A Send is written as the node made it (sendWrite): the walk that
// measures its argument also finds whether it is in engine form, and only
// one that is not is replaced here by its normalized copy. A fan-out's
// Sends of objects were read twice otherwise, a map's iteration each
// (a random start, ~400 instructions). Writes that leave a task unchecked
// (a cancelled task's, an abandoned one's) go through normalizedSends.
func (c *writeCheck) write(w *Write) error {
	v := w.Value
	s, isSend := v.(Send)
	if isSend && w.Channel == TasksChannel {
		v = s.Arg
	}
	held, raw, err := c.g.limits.checkHeld(c.node, w.Channel, v, c.id)
	if held {
		c.view.lend()
		c.id = 0
	}
	if raw && isSend && err == nil {
		w.Value = Send{Node: s.Node, Arg: normalizeCopy(s.Arg, 1)}
	}
	return err
}

// measure returns the size of v's JSON encoding (close to it: numbers that
// are not integers count 24 bytes), or errTooDeep when v nests deeper than
// MaxValueDepth (depth is v's own level), or errTooLarge once the size
// passes limit. It stops as soon as it knows.
func measure(v any, depth, limit int) (int, error) {
	m := meter{limit: limit}
	err := m.value(v, depth)
	return m.n, err
}

// meter adds up a value's size and, given a map's identity (view), finds
// whether the value holds that map (held). raw says whether the value
// holds anything Normalize changes (normalized, in the same walk).
type meter struct {
	n, limit int
	view     uintptr
	held     bool
	raw      bool
}

// scalar adds a scalar of size n (scalarSize): only one sized as a
// non-integral number may be out of engine form (a Go int, say). Small
// enough to be inlined: most values measured are scalars.
func (m *meter) scalar(v any, n int) error {
	if n == 24 {
		m.number(v)
	}
	m.n += n
	if m.n > m.limit {
		return errTooLarge
	}
	return nil
}

// number notes a number out of engine form (see scalar), out of line.
//
//go:noinline
func (m *meter) number(v any) {
	if _, ok := v.(float64); !ok && !m.raw {
		m.raw = !normalized(v)
	}
}

func (m *meter) add(k int) error {
	m.n += k
	if m.n > m.limit {
		return errTooLarge
	}
	return nil
}

// scalarSize is the size of a value that holds no other (ok), measured
// without a call: most values written are scalars or lists of them.
func scalarSize(v any) (n int, ok bool) {
	switch x := v.(type) {
	case nil, bool:
		return 5, true
	case string:
		return stringSize(x), true
	case float64:
		return numberSize(x), true
	case int, int64, int32, int16, int8, uint, uint64, uint32, uint16, uint8, float32, json.Number:
		return 24, true
	}
	return 0, false
}

// value adds v, which depth containers enclose. Only lists are measured
// here; other containers have functions of their own, so that this
// recursive frame stays small.
func (m *meter) value(v any, depth int) error {
	if n, ok := scalarSize(v); ok {
		return m.scalar(v, n)
	}
	if err := nest(v, depth); err != nil {
		return err
	}
	x, ok := v.([]any)
	if !ok {
		return m.other(v, depth)
	}
	if err := m.add(2 + len(x)); err != nil {
		return err
	}
	for _, e := range x {
		if n, ok := scalarSize(e); ok {
			if err := m.scalar(e, n); err != nil {
				return err
			}
		} else if err := m.value(e, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// other is value for what is neither a scalar nor a []any.
func (m *meter) other(v any, depth int) error {
	switch x := v.(type) {
	case []string:
		if err := m.add(2 + len(x)); err != nil {
			return err
		}
		for _, e := range x {
			if err := m.add(stringSize(e)); err != nil {
				return err
			}
		}
	case map[string]any:
		if m.view != 0 && mapID(x) == m.view {
			m.held = true
		}
		if err := m.add(2 + 2*len(x)); err != nil {
			return err
		}
		for k, e := range x {
			if err := m.add(stringSize(k)); err != nil {
				return err
			}
			if n, ok := scalarSize(e); ok { // no call: a Send's object holds scalars, often
				if err := m.scalar(e, n); err != nil {
					return err
				}
			} else if err := m.value(e, depth+1); err != nil {
				return err
			}
		}
	case *OrderedMap:
		m.raw = true // Normalize makes it a map
		if err := m.add(2 + 2*len(x.Keys)); err != nil {
			return err
		}
		for _, k := range x.Keys {
			if err := m.add(stringSize(k)); err != nil {
				return err
			}
			if err := m.value(x.Values[k], depth+1); err != nil {
				return err
			}
		}
	case Send: // {"$send":{"arg":…,"node":…}}
		if err := m.add(24 + stringSize(x.Node)); err != nil {
			return err
		}
		return m.value(x.Arg, depth+2)
	case Interruption: // {"$interrupt":{"id":…,"value":…}}
		if err := m.add(30 + stringSize(x.ID)); err != nil {
			return err
		}
		raw := m.raw // Normalize keeps interrupts as they are
		err := m.value(x.Value, depth+2)
		m.raw = raw
		return err
	case []Interruption:
		if err := m.add(2 + len(x)); err != nil {
			return err
		}
		raw := m.raw
		for _, e := range x {
			if err := m.value(e, depth+1); err != nil {
				return err
			}
		}
		m.raw = raw
	case Overwrite: // {"__overwrite__":…}
		m.raw = true // stored in its wire form (overwrite.go)
		if err := m.add(18); err != nil {
			return err
		}
		return m.value(x.Value, depth+1)
	case *Overwrite:
		m.raw = true
		if x != nil {
			return m.value(*x, depth)
		}
		return m.add(4)
	default:
		if m.view != 0 && !m.held && reflectHolds(reflect.ValueOf(x), m.view, map[uintptr]bool{}, depth) {
			m.held = true
		}
		// Another Go value: its encoding tells.
		b, err := EncodeValue(x)
		if err != nil {
			return nil // not this check's to refuse: the codec says why
		}
		if depth+jsonDepth(b) > MaxValueDepth {
			return errTooDeep
		}
		return m.add(len(b))
	}
	return nil
}

// nest returns errTooDeep when v, inside depth containers, would make its
// value nest deeper than MaxValueDepth: lists and maps are one level, the
// tagged Send and Interruption forms two, as in their encoding. It is the
// one rule for EncodeValue and the write checks.
func nest(v any, depth int) error {
	levels := 0
	switch v.(type) {
	case []any, []string, map[string]any, *OrderedMap, []Interruption, Overwrite, *Overwrite:
		levels = 1
	case Send, Interruption:
		levels = 2
	}
	if depth+levels > MaxValueDepth {
		return errTooDeep
	}
	return nil
}

// stringSize is the length of s as a JSON string.
func stringSize(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// numberSize is the length of an integral number's decimal form, or 24.
func numberSize(f float64) int {
	if f != math.Trunc(f) || math.Abs(f) >= 1e15 {
		return 24
	}
	n := 1
	if f < 0 {
		n, f = 2, -f
	}
	for ; f >= 10; f /= 10 {
		n++
	}
	return n
}

// jsonDepth returns how deeply JSON text nests (0 for a scalar).
func jsonDepth(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// stateSizes keeps the size of each state key's value as the keys change,
// so that checking the state's bound costs what a superstep changed: a
// list that only grew adds the size of its new elements.
type stateSizes struct {
	known bool
	size  []int // by state key index (Graph.keyIndex)
	total int
}

// checkStateSize updates the state's size after a superstep's writes were
// applied and returns a StateLimitError when it passes the bound.
func (l *loop) checkStateSize() error {
	limit := l.g.limits.state()
	if limit == math.MaxInt {
		return nil
	}
	sz := &l.sizes
	if !sz.known {
		sz.known, sz.size, sz.total = true, make([]int, len(l.g.keys)), 0
		for i, k := range l.g.keys {
			l.resize(i, l.cs.channel(k.Name), false)
		}
	} else {
		for _, id := range l.cs.sc().touched {
			i := l.g.chanMeta[id].key
			if i < 0 {
				continue
			}
			ch := l.cs.chans[id]
			// Inline for the usual wide key, a number in a LastValue.
			if lv, ok := ch.(*lastValue); ok && lv.has {
				if f, ok := lv.val.(float64); ok {
					sz.set(i, numberSize(f))
					continue
				}
			}
			l.resize(i, ch, true)
		}
	}
	if sz.total <= limit {
		return nil
	}
	e := &StateLimitError{Step: l.step, Bytes: sz.total, Limit: limit}
	big := 0
	for i, n := range sz.size {
		if k := l.g.keys[i].Name; n > big || (n == big && k < e.Key) {
			e.Key, big = k, n
		}
	}
	for _, t := range l.tasks {
		for _, w := range t.writes {
			if w.Channel == e.Key && !slices.Contains(e.Nodes, t.name) {
				e.Nodes = append(e.Nodes, t.name)
			}
		}
	}
	slices.Sort(e.Nodes)
	return e
}

// resize measures state key i, held by channel ch, again; grown: it may
// have only grown since it was last measured.
func (l *loop) resize(i int, ch channel, grown bool) {
	sz := &l.sizes
	v, ok := ch.get()
	if f, isNumber := v.(float64); isNumber {
		sz.set(i, numberSize(f)) // what measure says, without its walk
		return
	}
	n := 0
	if a, isList := ch.(appender); ok && grown && isList {
		if from, appended := a.lastAppend(); appended {
			if list, isList := v.([]any); isList && from <= len(list) {
				tail, _ := measure(list[from:], 0, math.MaxInt)
				tail -= 2 // the new elements' brackets are the list's own
				sz.size[i] += tail
				sz.total += tail
				return
			}
		}
	}
	if ok {
		n, _ = measure(v, 0, math.MaxInt)
	}
	sz.set(i, n)
}

// set makes n the size of state key i.
func (sz *stateSizes) set(i, n int) {
	sz.total += n - sz.size[i]
	sz.size[i] = n
}
