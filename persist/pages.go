package persist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime/debug"
	"slices"
)

// This file checks a bbolt file's page structure without bbolt.
//
// bbolt trusts its pages: it follows page ids and element offsets as they
// are, through its memory map. In a damaged or truncated file that means a
// read past the end of the mapping (SIGBUS, which no recover catches), an
// index out of range in a goroutine of bbolt's own (the free-list rebuild a
// writable store runs on its first write, tx.Check), or a cycle of branch
// pages that recurses until the stack overflows. Open therefore walks every
// page reachable from the meta page bbolt will use, reading the file with
// ReadAt, and refuses the file if any page is out of place; bbolt never
// sees a page this walk did not accept. The layout decoded here is bbolt's
// documented on-disk format (page header, branch and leaf elements, bucket
// headers, meta page), in the machine's byte order as bbolt writes it.

// On-disk constants of bbolt's file format.
const (
	boltMagic       = 0xED0CDAED
	boltVersion     = 2
	pageHeaderSize  = 16 // id u64, flags u16, count u16, overflow u32
	elementSize     = 16 // branch: pos, ksize u32, pgid u64; leaf: flags, pos, ksize, vsize u32
	bucketHeader    = 16 // root pgid u64, sequence u64
	metaSize        = 64 // magic, version, pageSize, flags u32; root bucket; freelist, pgid, txid, checksum u64
	metaChecksumOff = 56

	pageBranch   = 0x01
	pageLeaf     = 0x02
	pageMeta     = 0x04
	pageFreelist = 0x10
	leafIsBucket = 0x01

	noFreelist = ^uint64(0)
	// maxTreeDepth bounds the depth of one bucket's B+tree; a real file
	// stays far below it, a cycle of damaged branch pages does not.
	maxTreeDepth = 64
)

// native is the byte order bbolt writes its pages in (the machine's).
var native = binary.NativeEndian

// boltMeta is one decoded meta page.
type boltMeta struct {
	slot     int // 0 or 1: the page it was read from
	pageSize uint32
	root     uint64
	freelist uint64
	hwm      uint64 // pages in use: the high-water mark
	txid     uint64
	marked   bool  // the page has bbolt's magic number
	err      error // why the page is not a valid meta page, or nil
}

// decodeMeta decodes the meta page at the start of buf (a whole page).
func decodeMeta(buf []byte, slot int) boltMeta {
	m := boltMeta{slot: slot}
	if len(buf) < pageHeaderSize+metaSize {
		m.err = fmt.Errorf("meta page %d is cut short", slot)
		return m
	}
	b := buf[pageHeaderSize : pageHeaderSize+metaSize]
	magic, version := native.Uint32(b[0:]), native.Uint32(b[4:])
	m.pageSize = native.Uint32(b[8:])
	m.root = native.Uint64(b[16:])
	m.freelist = native.Uint64(b[32:])
	m.hwm = native.Uint64(b[40:])
	m.txid = native.Uint64(b[48:])
	h := fnv.New64a()
	h.Write(b[:metaChecksumOff])
	m.marked = magic == boltMagic
	switch {
	case !m.marked:
		m.err = fmt.Errorf("meta page %d has no bbolt marker", slot)
	case version != boltVersion:
		m.err = fmt.Errorf("meta page %d has bbolt format version %d, not %d", slot, version, boltVersion)
	case native.Uint64(b[metaChecksumOff:]) != h.Sum64():
		m.err = fmt.Errorf("meta page %d fails its checksum", slot)
	}
	return m
}

// fileLayout is what the two meta pages of a file say.
type fileLayout struct {
	metas [2]boltMeta
	use   *boltMeta // the meta bbolt opens the file with, nil if none is valid
	size  int64
}

// readLayout reads both meta pages of f. It returns an error wrapping
// ErrNotDatabase when neither page has bbolt's marker, and ErrCorrupt when
// one has but neither is intact.
func readLayout(f io.ReaderAt, size int64) (*fileLayout, error) {
	l := &fileLayout{size: size}
	first := make([]byte, 4096)
	n, _ := f.ReadAt(first, 0)
	l.metas[0] = decodeMeta(first[:n], 0)
	// The second meta page sits one page in; the page size comes from the
	// first meta page, or, when it is damaged, from the sizes bbolt uses.
	sizes := []uint32{l.metas[0].pageSize}
	if l.metas[0].err != nil {
		sizes = []uint32{uint32(os.Getpagesize()), 4096, 8192, 16384, 32768, 65536, 1024, 2048}
	}
	l.metas[1] = boltMeta{slot: 1, err: errors.New("meta page 1 is missing")}
	for _, ps := range sizes {
		if ps < 1024 || ps > 1<<24 || int64(ps) >= size {
			continue
		}
		buf := make([]byte, pageHeaderSize+metaSize)
		n, _ := f.ReadAt(buf, int64(ps))
		m := decodeMeta(buf[:n], 1)
		if m.err == nil || l.metas[1].err == nil || sizes[0] == ps {
			l.metas[1] = m
		}
		if m.err == nil {
			break
		}
	}
	a, b := &l.metas[0], &l.metas[1]
	if b.txid > a.txid {
		a, b = b, a
	}
	switch {
	case a.err == nil:
		l.use = a
	case b.err == nil:
		l.use = b
	}
	if l.use == nil {
		if !l.metas[0].marked && !l.metas[1].marked {
			return l, fmt.Errorf("%w (neither meta page has bbolt's marker)", ErrNotDatabase)
		}
		return l, corruptf("both meta pages are damaged: %v; %v", l.metas[0].err, l.metas[1].err)
	}
	return l, nil
}

// check returns the damage the meta pages show: the file shorter than the
// pages its meta says are in use, a meta page that points past the
// high-water mark, or (with strict) a meta page that fails its checksum,
// which makes bbolt fall back to the commit before it.
func (l *fileLayout) check(strict bool) error {
	m := l.use
	ps := uint64(m.pageSize)
	if ps < 1024 || ps > 1<<24 || ps&(ps-1) != 0 {
		return corruptf("meta page %d: page size %d is not a power of two between 1 KiB and 16 MiB", m.slot, ps)
	}
	if m.hwm < 3 {
		return corruptf("meta page %d: %d pages in use cannot hold a database", m.slot, m.hwm)
	}
	if m.hwm > uint64(l.size)/ps {
		return corruptf("the file is truncated: it has %d bytes, but its last commit uses %d pages of %d bytes", l.size, m.hwm, ps)
	}
	if m.root < 2 || m.root >= m.hwm {
		return corruptf("meta page %d: root page %d is outside the %d pages in use", m.slot, m.root, m.hwm)
	}
	if m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.hwm) {
		return corruptf("meta page %d: free-list page %d is outside the %d pages in use", m.slot, m.freelist, m.hwm)
	}
	if strict {
		for _, o := range l.metas {
			if o.err != nil {
				return corruptf("%v (bbolt falls back to the other meta page, which can undo the last commit)", o.err)
			}
		}
	}
	return nil
}

// pageWalk checks the pages reachable from one meta page.
type pageWalk struct {
	r    io.ReaderAt
	ps   uint64
	hwm  uint64
	seen []uint64 // bitmap of visited pages
	// buf holds the page read last: read reuses it, so walking a large
	// file allocates a page, not the file.
	buf []byte
}

// verifyFile checks the file at path: its meta pages, its size against
// the high-water mark, and every page reachable from the root bucket (and
// the free list, when the file keeps one). It returns nil, or an error
// wrapping ErrCorrupt (or ErrNotDatabase) that says what is wrong and
// where. It reads with ReadAt and never maps the file, so damage cannot
// fault. strict also reports a damaged meta page bbolt would fall back
// from.
func verifyFile(path string, strict bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return verifyReader(f, fi.Size(), strict)
}

// verifyReader is verifyFile on an open file of the given size.
func verifyReader(r io.ReaderAt, size int64, strict bool) error {
	l, err := readLayout(r, size)
	if err != nil {
		return err
	}
	if err := l.check(strict); err != nil {
		return err
	}
	m := l.use
	w := &pageWalk{r: r, ps: uint64(m.pageSize), hwm: m.hwm, seen: make([]uint64, (m.hwm+63)/64)}
	w.mark(0, 0)
	w.mark(1, 0)
	if m.freelist != noFreelist {
		if err := w.freelist(m.freelist); err != nil {
			return err
		}
	}
	return w.tree(m.root)
}

// mark records pages id..id+overflow as visited and reports one visited
// before: a page reachable twice is damage (and could be a cycle).
func (w *pageWalk) mark(id, overflow uint64) error {
	for p := id; p <= id+overflow; p++ {
		if w.seen[p/64]&(1<<(p%64)) != 0 {
			return corruptf("page %d is reachable twice", p)
		}
		w.seen[p/64] |= 1 << (p % 64)
	}
	return nil
}

// read returns page id with its overflow pages, after checking its header:
// its type must be one of types. The bytes are valid until the next read.
func (w *pageWalk) read(id uint64, types ...uint16) ([]byte, error) {
	if id < 2 || id >= w.hwm {
		return nil, corruptf("page %d is outside the %d pages in use", id, w.hwm)
	}
	if cap(w.buf) < pageHeaderSize {
		w.buf = make([]byte, w.ps)
	}
	hdr := w.buf[:pageHeaderSize]
	if _, err := w.r.ReadAt(hdr, int64(id*w.ps)); err != nil {
		return nil, corruptf("page %d: %v", id, err)
	}
	gotID, flags, overflow := native.Uint64(hdr), native.Uint16(hdr[8:]), uint64(native.Uint32(hdr[12:]))
	switch {
	case gotID != id:
		return nil, corruptf("page %d: header says it is page %d", id, gotID)
	case !slices.Contains(types, flags):
		return nil, corruptf("page %d: unexpected page type %#x", id, flags)
	case id+overflow >= w.hwm:
		return nil, corruptf("page %d: %d overflow pages run past the %d pages in use", id, overflow, w.hwm)
	}
	if err := w.mark(id, overflow); err != nil {
		return nil, err
	}
	n := (overflow + 1) * w.ps
	if uint64(cap(w.buf)) < n {
		w.buf = make([]byte, n)
	}
	buf := w.buf[:n]
	if _, err := w.r.ReadAt(buf, int64(id*w.ps)); err != nil {
		return nil, corruptf("page %d: %v", id, err)
	}
	return buf, nil
}

// freelist checks a stored free list: its ids must lie inside the file.
func (w *pageWalk) freelist(id uint64) error {
	buf, err := w.read(id, pageFreelist)
	if err != nil {
		return err
	}
	count, start := uint64(native.Uint16(buf[10:])), uint64(pageHeaderSize)
	if count == 0xFFFF {
		count, start = native.Uint64(buf[pageHeaderSize:]), pageHeaderSize+8
	}
	if count > (uint64(len(buf))-start)/8 {
		return corruptf("free-list page %d: %d entries do not fit", id, count)
	}
	for i := uint64(0); i < count; i++ {
		if p := native.Uint64(buf[start+8*i:]); p < 2 || p >= w.hwm {
			return corruptf("free-list page %d: entry %d names page %d, outside the %d pages in use", id, i, p, w.hwm)
		}
	}
	return nil
}

// frame is a page still to be checked. A branch page's child must hold
// only keys in [min, max) (nil: unbounded), the range its branch element
// gives it: bbolt finds a key by the branch keys, so a damaged branch key
// that still sorts would send a lookup to the wrong child and lose the
// key while a walk of the pages still finds it (bbolt's tx_check.go
// checks the same ranges).
type frame struct {
	id       uint64
	depth    int
	min, max []byte
}

// tree checks the B+tree rooted at page root, and every bucket under it.
func (w *pageWalk) tree(root uint64) error {
	stack := []frame{{id: root}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.depth > maxTreeDepth {
			return corruptf("page %d: the tree is deeper than %d levels", f.id, maxTreeDepth)
		}
		buf, err := w.read(f.id, pageBranch, pageLeaf)
		if err != nil {
			return err
		}
		where := fmt.Sprintf("page %d", f.id)
		children, err := w.elements(buf, where, f)
		if err != nil {
			return err
		}
		stack = append(stack, children...)
	}
	return nil
}

// elements checks the elements of one branch or leaf page (buf starts
// with its header) and returns the pages it points to: a branch's
// children and the roots of the buckets a leaf holds. Inline buckets are
// checked in place.
func (w *pageWalk) elements(buf []byte, where string, f frame) ([]frame, error) {
	depth := f.depth
	flags, count := native.Uint16(buf[8:]), int(native.Uint16(buf[10:]))
	if count == 0 && flags == pageBranch {
		return nil, corruptf("%s: branch page without elements", where)
	}
	if pageHeaderSize+count*elementSize > len(buf) {
		return nil, corruptf("%s: %d elements do not fit", where, count)
	}
	var out []frame
	var prev []byte
	for i := range count {
		off := pageHeaderSize + i*elementSize
		e := buf[off : off+elementSize]
		var pos, ksize, vsize uint64
		if flags == pageBranch {
			pos, ksize = uint64(native.Uint32(e)), uint64(native.Uint32(e[4:]))
		} else {
			pos, ksize, vsize = uint64(native.Uint32(e[4:])), uint64(native.Uint32(e[8:])), uint64(native.Uint32(e[12:]))
		}
		end := uint64(off) + pos + ksize + vsize
		if end > uint64(len(buf)) {
			return nil, corruptf("%s: element %d runs past the page", where, i)
		}
		key := buf[uint64(off)+pos : uint64(off)+pos+ksize]
		if i > 0 && bytes.Compare(prev, key) >= 0 {
			return nil, corruptf("%s: keys out of order at element %d", where, i)
		}
		if (i == 0 && f.min != nil && bytes.Compare(key, f.min) < 0) || (f.max != nil && bytes.Compare(key, f.max) >= 0) {
			return nil, corruptf("%s: key %d is outside the range its parent page gives it", where, i)
		}
		prev = key
		if flags == pageBranch {
			if i > 0 {
				out[len(out)-1].max = bytes.Clone(key)
			}
			out = append(out, frame{id: native.Uint64(e[8:]), depth: depth + 1, min: bytes.Clone(key), max: f.max})
			continue
		}
		if native.Uint32(e)&leafIsBucket == 0 {
			continue
		}
		val := buf[uint64(off)+pos+ksize : end]
		if len(val) < bucketHeader {
			return nil, corruptf("%s: bucket %q has a short header", where, key)
		}
		root := native.Uint64(val)
		if root != 0 {
			out = append(out, frame{id: root})
			continue
		}
		inline := val[bucketHeader:]
		if len(inline) < pageHeaderSize || native.Uint16(inline[8:]) != pageLeaf {
			return nil, corruptf("%s: inline bucket %q is damaged", where, key)
		}
		if depth > maxTreeDepth {
			return nil, corruptf("%s: buckets nest deeper than %d levels", where, maxTreeDepth)
		}
		sub, err := w.elements(inline, fmt.Sprintf("%s, inline bucket %q", where, key), frame{depth: depth + 1})
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

// faultSafe makes a memory fault in the calling goroutine (bbolt reading
// a page of its map past the end of a file shrunk under it) a panic the
// caller's recover turns into an error, instead of the end of the
// process. Call it as defer faultSafe()().
func faultSafe() func() {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}
