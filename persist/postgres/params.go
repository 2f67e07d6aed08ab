package postgres

import (
	"encoding/binary"
	"math"
	"sync"
)

// The parameters of a group's statement (statements.group), in order.
const (
	pThreads = iota
	pObserved
	pWriter
	pWThread
	pWNS
	pWCP
	pWTask
	pWSlot
	pWChan
	pWValue
	pBThread
	pBNS
	pBChan
	pBVer
	pBHash
	pBRoot
	pBBaseVer
	pBBaseHash
	pBDepth
	pBHas
	pBData
	pCThread
	pCNS
	pCID
	pCParent
	pCBase
	pCDepth
	pCSource
	pCStep
	pCRec
	groupParamCount

	// The number of the writes' and the blobs' arrays.
	groupWritesParams = pBThread - pWThread
	groupBlobParams   = pCThread - pBThread
)

// PostgreSQL's type oids of the arrays' elements.
const (
	oidBool  = 16
	oidBytea = 17
	oidInt8  = 20
	oidInt4  = 23
	oidText  = 25
)

// groupOIDs are the element types of the group's parameters ($3, the
// writer, is a plain text value).
var groupOIDs = [groupParamCount]uint32{
	pThreads: oidBytea, pObserved: oidInt8,
	pWThread: oidBytea, pWNS: oidBytea, pWCP: oidBytea, pWTask: oidBytea, pWSlot: oidInt8, pWChan: oidBytea, pWValue: oidBytea,
	pBThread: oidBytea, pBNS: oidBytea, pBChan: oidBytea, pBVer: oidInt8, pBHash: oidInt8, pBRoot: oidInt8,
	pBBaseVer: oidInt8, pBBaseHash: oidInt8, pBDepth: oidInt4, pBHas: oidBool, pBData: oidBytea,
	pCThread: oidBytea, pCNS: oidBytea, pCID: oidBytea, pCParent: oidBytea, pCBase: oidBytea,
	pCDepth: oidInt4, pCSource: oidText, pCStep: oidInt4, pCRec: oidBytea,
}

// groupParams holds a group's parameters while they are built, and the
// messages that send them; a store reuses them from group to group.
type groupParams struct {
	col [groupParamCount]column
	msg []byte
}

// reset empties every column for a new group.
// paramsList keeps the parameter buffers of groups sent, for the next
// groups: a sync.Pool drops them at every garbage collection, which under
// a steady stream of supersteps comes every few hundred, and regrowing
// them was about a fiftieth of the bytes a superstep allocated.
type paramsList struct {
	mu   sync.Mutex
	free []*groupParams
}

// maxSpareParams bounds the buffers kept (a few groups are sent at once),
// and maxKeptParams the bytes one may hold to be kept: a rare large group
// does not pin its buffers.
const (
	maxSpareParams = 8
	maxKeptParams  = 1 << 20
)

func (l *paramsList) get() *groupParams {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		g := l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
		return g
	}
	return new(groupParams)
}

func (l *paramsList) put(g *groupParams) {
	size := cap(g.msg)
	for i := range g.col {
		size += cap(g.col[i].b)
	}
	if size > maxKeptParams {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.free) < maxSpareParams {
		l.free = append(l.free, g)
	}
}

func (g *groupParams) reset() {
	for i := range g.col {
		if i == pWriter {
			g.col[i].b, g.col[i].plain = g.col[i].b[:0], true
			continue
		}
		g.col[i].start(groupOIDs[i])
	}
}

// hasWrites reports whether the group stores task writes as rows.
func (g *groupParams) hasWrites() bool {
	return g.col[pWThread].n > 0
}

// messages returns the protocol messages that run prepared statement
// stmt with the parameters, binary results wanted: Bind, Execute and
// Sync (PostgreSQL's extended query protocol, "Message Formats").
// Without writes the statement has no writes part (groupStatement), and
// their arrays are left out.
func (g *groupParams) messages(stmt string, writes bool) []byte {
	be := binary.BigEndian
	m := append(g.msg[:0], 'B', 0, 0, 0, 0, 0) // length, to be filled in; unnamed portal
	m = append(m, stmt...)
	m = append(m, 0)
	m = be.AppendUint16(m, 1) // one parameter format for all: binary
	m = be.AppendUint16(m, 1)
	n := groupParamCount
	if !writes {
		n -= groupWritesParams
	}
	m = be.AppendUint16(m, uint16(n))
	for i := range g.col {
		if !writes && i >= pWThread && i < pBThread {
			continue
		}
		v := g.col[i].finish()
		m = be.AppendUint32(m, uint32(len(v)))
		m = append(m, v...)
	}
	m = be.AppendUint16(m, 1) // one result format for all: binary
	m = be.AppendUint16(m, 1)
	be.PutUint32(m[1:], uint32(len(m)-1))
	m = append(m, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // unnamed portal, every row
	m = append(m, 'S', 0, 0, 0, 4)
	g.msg = m
	return m
}

// column is one parameter: a one-dimensional array in PostgreSQL's binary
// format (header: dimensions, has-nulls flag, element oid, length, lower
// bound; then each element's length, -1 for NULL, and bytes), or with
// plain set one value.
type column struct {
	b     []byte
	oid   uint32
	n     int32
	nulls bool
	plain bool
}

const arrayHeader = 20 // bytes before the first element

func (c *column) start(oid uint32) {
	c.b = append(c.b[:0], make([]byte, arrayHeader)...)
	c.oid, c.n, c.nulls, c.plain = oid, 0, false, false
}

func (c *column) bytea(v []byte) {
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(len(v)))
	c.b = append(c.b, v...)
	c.n++
}

// text adds a text or bytea element from a string (their binary formats
// are the bytes).
func (c *column) text(v string) {
	if c.plain {
		c.b = append(c.b, v...)
		return
	}
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(len(v)))
	c.b = append(c.b, v...)
	c.n++
}

func (c *column) int8(v int64) {
	c.b = binary.BigEndian.AppendUint32(c.b, 8)
	c.b = binary.BigEndian.AppendUint64(c.b, uint64(v))
	c.n++
}

func (c *column) int4(v int32) {
	c.b = binary.BigEndian.AppendUint32(c.b, 4)
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(v))
	c.n++
}

func (c *column) bool(v bool) {
	c.b = binary.BigEndian.AppendUint32(c.b, 1)
	if v {
		c.b = append(c.b, 1)
	} else {
		c.b = append(c.b, 0)
	}
	c.n++
}

func (c *column) null() {
	c.b = binary.BigEndian.AppendUint32(c.b, math.MaxUint32) // -1
	c.nulls = true
	c.n++
}

// finish fills in the array's header and returns the parameter.
func (c *column) finish() []byte {
	if c.plain {
		return c.b
	}
	be := binary.BigEndian
	if c.n == 0 {
		// An empty array has no dimensions.
		be.PutUint32(c.b[0:], 0)
		be.PutUint32(c.b[4:], 0)
		be.PutUint32(c.b[8:], c.oid)
		return c.b[:12]
	}
	flags := uint32(0)
	if c.nulls {
		flags = 1
	}
	be.PutUint32(c.b[0:], 1) // dimensions
	be.PutUint32(c.b[4:], flags)
	be.PutUint32(c.b[8:], c.oid)
	be.PutUint32(c.b[12:], uint32(c.n))
	be.PutUint32(c.b[16:], 1) // lower bound
	return c.b
}
