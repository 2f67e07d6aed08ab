package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"math/bits"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// IDSource makes checkpoint ids. Ids must be fixed-width and strictly
// increasing as strings, so that "latest" is the greatest id, as in
// LangGraph.
type IDSource interface {
	NewID() string // the next id, greater than every id before it
}

// Clock tells the time for checkpoint timestamps.
type Clock func() time.Time

// SystemClock is the wall clock.
var SystemClock Clock = time.Now

// TimeIDs makes ids from a clock: 16 hex digits of Unix nanoseconds and 16 of
// a counter, laid out like a UUID (8-4-4-4-12). Ids from one TimeIDs are
// strictly increasing even if the clock stalls or steps back, and sort
// after the checkpoint a run or an update continues from, even one made
// by a clock ahead of this one (another machine's).
type TimeIDs struct {
	mu    sync.Mutex
	clock Clock
	wall  bool // clock is time.Now itself (isWallClock)
	last  uint64
	seq   uint64
}

// NewTimeIDs returns a TimeIDs on clock (nil: the wall clock).
func NewTimeIDs(clock Clock) *TimeIDs {
	if clock == nil {
		clock = SystemClock
	}
	return &TimeIDs{clock: clock, wall: isWallClock(clock)}
}

// isWallClock reports whether c is time.Now itself, not a clock of the
// user's that may count its calls or answer differently each time. Two
// such clocks are one: a single reading of it can serve a checkpoint's id
// and its timestamp (loop.newCheckpointID). The comparison is of code
// pointers: a func value with time.Now's code runs time.Now, whatever
// closure it carries (time.Now reads none); a closure or method value
// calling time.Now has code of its own and is not taken for it.
func isWallClock(c Clock) bool {
	return c != nil && reflect.ValueOf(c).Pointer() == reflect.ValueOf(time.Now).Pointer()
}

// NewID implements IDSource.
func (t *TimeIDs) NewID() string {
	now, seq := t.next()
	return idFrom(now, seq)
}

// idIn is the id made of now and seq, written into buf: the id is a string
// over buf, which must never change after. A run whose saver keeps every
// checkpoint keeps their ids in shared chunks this way (channelState.idRoom),
// not one allocation each.
func idIn(buf *[idLen]byte, now, seq uint64) string {
	layoutTo(buf, idRaw(now, seq))
	return unsafe.String(&buf[0], idLen)
}

// next advances the clock reading and sequence of the next id.
func (t *TimeIDs) next() (now, seq uint64) {
	t.mu.Lock()
	defer t.mu.Unlock() // the clock is the caller's: it may panic
	return t.advance(uint64(t.clock().UnixNano()))
}

// nextAt is next on a reading of the wall clock the caller made (t.wall):
// the id's time is reading's, or one nanosecond past the last id's if the
// clock stalled or stepped back.
func (t *TimeIDs) nextAt(reading time.Time) (now, seq uint64) {
	t.mu.Lock()
	now, seq = t.advance(uint64(reading.UnixNano()))
	t.mu.Unlock()
	return now, seq
}

// advance takes now as the next id's time, bumped past the last id's so
// that ids stay strictly increasing. The caller holds t.mu.
func (t *TimeIDs) advance(now uint64) (uint64, uint64) {
	if now <= t.last {
		now = t.last + 1
	}
	t.last = now
	t.seq++
	return now, t.seq
}

// after makes the ids t gives from now on sort after id, the checkpoint a
// run or an update continues from, when id has an id's layout: its first
// 16 hex digits, the time of one of TimeIDs', are taken as a reading of
// the clock that made it. A checkpoint made on a machine whose clock is
// ahead of this one's (by any skew between the machines a service runs
// on, or a laptop behind the server it pulled a thread from) otherwise got
// children whose ids sort before it, and the thread's latest checkpoint,
// its greatest id, stayed that parent: the run's progress was hidden and
// the next run did its work again.
func (t *TimeIDs) after(id string) {
	hi, ok := idTime(id)
	if !ok {
		return
	}
	t.mu.Lock()
	if hi > t.last {
		t.last = hi
	}
	t.mu.Unlock()
}

// idTime returns the first 64 bits of an id laid out as layout writes
// them, and false for an id of another form.
func idTime(id string) (uint64, bool) {
	if len(id) != idLen || id[8] != '-' || id[13] != '-' || id[18] != '-' {
		return 0, false
	}
	var hi uint64
	for i := 0; i < 18; i++ {
		c := id[i]
		var d byte
		switch {
		case i == 8 || i == 13:
			continue
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		hi = hi<<4 | uint64(d)
	}
	return hi, true
}

// idsAfter makes ids's next ids sort after id when ids is a TimeIDs (see
// TimeIDs.after); other sources are the caller's to order.
func idsAfter(ids IDSource, id string) {
	if t, ok := ids.(*TimeIDs); ok && id != "" {
		t.after(id)
	}
}

// idLen is an id's length: a UUID's layout.
const idLen = 36

// idFrom lays out two 64-bit numbers as a 36-character id.
func idFrom(hi, lo uint64) string { return layout(idRaw(hi, lo)) }

// idRaw is the 16 bytes of an id made of hi and lo.
func idRaw(hi, lo uint64) [16]byte {
	var raw [16]byte
	binary.BigEndian.PutUint64(raw[:8], hi)
	binary.BigEndian.PutUint64(raw[8:], lo)
	return raw
}

// layout writes raw as lowercase hex in the 8-4-4-4-12 layout of a UUID.
func layout(raw [16]byte) string {
	var buf [idLen]byte
	layoutTo(&buf, raw)
	return string(buf[:])
}

// layoutTo is layout into buf. Every checkpoint and task id goes through
// it, so it writes the digits itself, at constant positions (no bounds
// checks, no table of positions).
func layoutTo(buf *[idLen]byte, raw [16]byte) {
	hex2 := func(p int, b byte) {
		const digits = "0123456789abcdef"
		buf[p], buf[p+1] = digits[b>>4], digits[b&0x0f]
	}
	hex2(0, raw[0])
	hex2(2, raw[1])
	hex2(4, raw[2])
	hex2(6, raw[3])
	buf[8] = '-'
	hex2(9, raw[4])
	hex2(11, raw[5])
	buf[13] = '-'
	hex2(14, raw[6])
	hex2(16, raw[7])
	buf[18] = '-'
	hex2(19, raw[8])
	hex2(21, raw[9])
	buf[23] = '-'
	hex2(24, raw[10])
	hex2(26, raw[11])
	hex2(28, raw[12])
	hex2(30, raw[13])
	hex2(32, raw[14])
	hex2(34, raw[15])
}

// CounterIDs makes ids 1, 2, 3, … in the same fixed-width layout: for tests
// and traces that must be byte-identical between runs.
type CounterIDs struct {
	mu sync.Mutex
	n  uint64
}

// NewID implements IDSource.
func (c *CounterIDs) NewID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return idFrom(0, c.n)
}

// hashID derives a deterministic id from parts (LangGraph derives task ids
// the same way, from the checkpoint id and the task path). FNV-1a/128 is
// stable across processes, which resume needs: saved writes are matched to
// re-planned tasks by id.
func hashID(parts ...string) string {
	h := newFNV128a()
	for _, p := range parts {
		h.part(p)
	}
	return layout(h.sum())
}

// pullTaskID is the id of node's task triggered by trigger at step, planned
// from checkpoint cpID. It is hashID(cpID, ns, step, name, Pull, trigger),
// computed without allocating: planning makes one per task.
func pullTaskID(cpID, ns string, step int, name, trigger string) string {
	return taskIDPrefix(cpID, ns, step).pullID(name, trigger)
}

// pushTaskID is the id of the task for the idx-th Send of a superstep:
// hashID(cpID, ns, step, name, Push, idx).
func pushTaskID(cpID, ns string, step int, name string, idx int) string {
	return taskIDPrefix(cpID, ns, step).pushID(name, idx)
}

// taskIDPrefix is the hash state after the parts every task id of a
// superstep shares: planning hashes them once, not once per task.
func taskIDPrefix(cpID, ns string, step int) fnv128a {
	h := newFNV128a()
	h.part(cpID)
	h.part(ns)
	h.intPart(step)
	return h
}

// pullID finishes a PULL task's id from its superstep's prefix.
func (h fnv128a) pullID(name, trigger string) string {
	h.part(name)
	h.part(Pull)
	h.part(trigger)
	return layout(h.sum())
}

// pushID finishes a PUSH task's id from its superstep's prefix.
func (h fnv128a) pushID(name string, idx int) string {
	h.part(name)
	h.part(Push)
	h.intPart(idx)
	return layout(h.sum())
}

// fnv128a is FNV-1a/128 (as hash/fnv's New128a) on the stack: the id of
// every task is one, and hash/fnv's escapes to the heap. Task ids are
// matched against saved writes across processes, so its output must stay
// exactly hash/fnv's (TestHashID_MatchesFNV).
type fnv128a struct{ hi, lo uint64 }

const (
	fnv128OffsetHi   = 0x6c62272e07bb0142
	fnv128OffsetLo   = 0x62b821756295c58d
	fnv128PrimeLo    = 0x13b // the prime is 2^88 + 0x13b
	fnv128PrimeShift = 24    // 88 - 64
)

func newFNV128a() fnv128a { return fnv128a{fnv128OffsetHi, fnv128OffsetLo} }

// part hashes s and the 0 byte that ends every part. The state stays in
// locals for the loop (through h it went to memory on every byte).
func (h *fnv128a) part(s string) {
	hi, lo := h.hi, h.lo
	// Four bytes a turn: a checkpoint id is most of every task id's input,
	// and the loop's own instructions were a third of each byte's.
	for ; len(s) >= 4; s = s[4:] {
		hi, lo = fnvStep(hi, lo, s[0])
		hi, lo = fnvStep(hi, lo, s[1])
		hi, lo = fnvStep(hi, lo, s[2])
		hi, lo = fnvStep(hi, lo, s[3])
	}
	for i := 0; i < len(s); i++ {
		hi, lo = fnvStep(hi, lo, s[i])
	}
	h.hi, h.lo = fnvStep(hi, lo, 0)
}

// fnvStep is one byte of FNV-1a/128: xor, then multiply by the prime
// 2^88 + 0x13b modulo 2^128.
func fnvStep(hi, lo uint64, c byte) (uint64, uint64) {
	lo ^= uint64(c)
	s0, s1 := bits.Mul64(fnv128PrimeLo, lo)
	s0 += lo<<fnv128PrimeShift + fnv128PrimeLo*hi
	return s0, s1
}

// intPart hashes n's decimal digits as a part.
func (h *fnv128a) intPart(n int) {
	var buf [20]byte
	hi, lo := h.hi, h.lo
	for _, c := range strconv.AppendInt(buf[:0], int64(n), 10) {
		hi, lo = fnvStep(hi, lo, c)
	}
	h.hi, h.lo = fnvStep(hi, lo, 0)
}

func (h *fnv128a) sum() [16]byte {
	var raw [16]byte
	binary.BigEndian.PutUint64(raw[:8], h.hi)
	binary.BigEndian.PutUint64(raw[8:], h.lo)
	return raw
}

// interruptID identifies the interrupt a task raises after answered earlier
// ones were answered (LangGraph.js: hash of the namespace, then of
// "namespace|answered").
func interruptID(taskNS string, answered int) string {
	if answered == 0 {
		return hashID(taskNS)
	}
	return hashID(taskNS + "|" + strconv.Itoa(answered))
}

// Fingerprint identifies the graph's topology: nodes, triggers, edges and
// channels. Two graphs with the same fingerprint plan the same tasks from the
// same checkpoint; replay uses it to detect a changed graph.
func (g *Graph) Fingerprint() string { return g.fingerprint }

// Topology returns the lines the fingerprint is computed from, sorted, so a
// difference can be named.
func (g *Graph) Topology() []string {
	var lines []string
	for _, name := range g.nodeOrder {
		n := g.nodes[name]
		lines = append(lines, "node "+name+" triggers "+strings.Join(n.triggers, ","))
	}
	for _, e := range g.edges {
		kind := "edge"
		if e.Conditional {
			kind = "route"
		}
		lines = append(lines, kind+" "+strings.Join(e.From, "+")+" -> "+e.To)
	}
	for _, c := range g.channelOrder {
		lines = append(lines, "channel "+c+" "+g.channelSpec[c].kind+reducerSuffix(g.channelSpec[c]))
	}
	sort.Strings(lines)
	return lines
}

// ForeignNames lists what checkpoint cp names that g does not have: the
// nodes its versions_seen records as having run and the channels it holds
// versions of, as "node X" and "channel Y", nodes first, each sorted.
// Reserved names (those starting "__") are every graph's. A checkpoint of
// another graph's thread names some, as a rule; an empty list does not
// prove cp is g's (an edge may differ), which only a recorded topology
// settles.
func (g *Graph) ForeignNames(cp *Checkpoint) []string {
	var foreign []string
	for _, n := range slices.Sorted(maps.Keys(cp.VersionsSeen)) {
		if _, ok := g.nodes[n]; !ok && !strings.HasPrefix(n, "__") {
			foreign = append(foreign, "node "+n)
		}
	}
	for _, c := range slices.Sorted(maps.Keys(cp.ChannelVersions)) {
		if _, ok := g.channelSpec[c]; !ok && !strings.HasPrefix(c, "__") {
			foreign = append(foreign, "channel "+c)
		}
	}
	return foreign
}

func reducerSuffix(ci channelInfo) string {
	if ci.key != nil && ci.key.ReducerName != "" {
		return "(" + ci.key.ReducerName + ")"
	}
	return ""
}

func (g *Graph) computeFingerprint() string { return fingerprintOf(g.Topology()) }

// fingerprintOf is the fingerprint of topology lines, sorted as Topology
// sorts them: a graph's, or those a GraphRecord kept (PlanFromRecord).
func fingerprintOf(lines []string) string {
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:16])
}
