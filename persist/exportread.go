package persist

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/superstep/superstep/engine"
)

// Reading an export document as a stream.
//
// A thread's export grows with what its run changed, and a long agent
// conversation changes a lot: an export of a hundred megabytes is not
// rare. Reading it whole, decoding every record, then rebuilding every
// checkpoint held the document several times over (a 101 MB export took
// 1.4 GB to import). So the document is read token by token with
// encoding/json's Decoder: one checkpoint's record at a time is decoded,
// checked, rebuilt on its parent's state and handed on. What stays in
// memory is what correctness needs: the ids read (duplicates, parents,
// orphan writes), the rebuilt states that later deltas apply to, and a
// checkpoint whose parent comes later in the document until it does.
//
// The checks and their messages are the format's (docs/export-format.md):
// an error names the checkpoint (index and id) or orphan writes entry it
// is in, the field, and the line. A document whose fields come in another
// order than Export writes them (a tool that sorts keys puts
// "checkpoints" before "version") is still read: its lists are kept
// undecoded until the header says how to read them.

// exportSink receives an export's contents as readExport validates them:
// each checkpoint whole, parents before children, then the orphan writes.
// A sink must not change cp's maps or values.
type exportSink interface {
	// begin is called once, before the first checkpoint, with the
	// document's thread id, checked.
	begin(thread string) error
	checkpoint(it *importItem, cp *engine.Checkpoint) error
	orphan(o *importOrphan) error
}

// errTooLarge stops the decoder at the size limit; readExport reports it
// as ErrImportTooLarge.
var errTooLarge = errors.New("persist: export over the size limit")

// docInput is the reader an export is decoded from. It skips a leading
// byte order mark, stops past the size limit, keeps the reader's own
// error apart from the decoder's, and remembers where the lines start in
// what the decoder has not consumed yet, so that an error names its line
// without the document being kept.
type docInput struct {
	r     *bufio.Reader
	limit int64
	n     int64 // bytes read, after a byte order mark
	over  bool  // more than limit bytes came
	err   error // the reader's error, but io.EOF
	// nl are the offsets of the newlines read and not yet forgotten;
	// lines counts the forgotten ones.
	nl    []int64
	lines int
	// Where the input is: in a string (after an escape), or in a run of
	// white space between tokens of that many bytes. encoding/json's
	// Decoder keeps such a run whole in its buffer until a token ends
	// it, so a run longer than maxSpace is refused (spaceAt: where).
	inString, escaped bool
	space             int
	spaceAt           int64
}

// maxSpace is the longest run of white space between two tokens an
// export may have: far more than any indentation, and what keeps an input
// of nothing but white space from growing the decoder's buffer to the
// size limit.
const maxSpace = 1 << 20

// errSpace stops the decoder at a run of white space over maxSpace.
var errSpace = errors.New("persist: too much white space")

func newDocInput(r io.Reader, limit int64) *docInput {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	return &docInput{r: br, limit: limit}
}

func (d *docInput) Read(p []byte) (int, error) {
	if d.over {
		return 0, errTooLarge
	}
	if d.spaceAt > 0 {
		return 0, errSpace
	}
	// One byte past the limit is enough to know.
	if room := d.limit + 1 - d.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := d.r.Read(p)
	for i, c := range p[:n] {
		switch {
		case d.escaped:
			d.escaped = false
		case d.inString:
			d.escaped = c == '\\'
			d.inString = c != '"'
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			if d.space++; d.space > maxSpace && d.spaceAt == 0 {
				d.spaceAt = d.n + int64(i)
			}
		default:
			d.space = 0
			d.inString = c == '"'
		}
		if c == '\n' {
			d.nl = append(d.nl, d.n+int64(i))
		}
	}
	d.n += int64(n)
	if d.spaceAt > 0 {
		return n, errSpace
	}
	if err != nil && err != io.EOF && d.err == nil {
		d.err = err
	}
	if d.n > d.limit {
		d.over = true
		return n, errTooLarge
	}
	return n, err
}

// line is the line, counted from 1, of byte offset off, which must not be
// before an offset forget was called with.
func (d *docInput) line(off int64) int {
	i, _ := slices.BinarySearch(d.nl, off)
	return d.lines + i + 1
}

// forget drops the newlines before off: no error will be placed there.
func (d *docInput) forget(off int64) {
	i, _ := slices.BinarySearch(d.nl, off)
	if i == 0 {
		return
	}
	d.lines += i
	d.nl = slices.Delete(d.nl, 0, i)
}

// docReader reads one export document from in.
type docReader struct {
	in   *docInput
	dec  *json.Decoder
	sink exportSink

	head                     exportHead
	haveFormat, haveVersion  bool
	haveThread, begun        bool
	fingerprint              *string // nil: missing (or null)
	unknown                  string  // the first unknown top-level field
	sawCheckpoints, sawOrphs bool
	// Lists read before the header said how to read them (or, for the
	// orphan writes, before the checkpoints), kept undecoded.
	laterCheckpoints, laterOrphans *rawList

	order *streamOrder
	n     int // checkpoints read
	norph int // orphan writes entries read
}

// rawList is a list of the document kept undecoded, with where it starts.
type rawList struct {
	raw   json.RawMessage
	start int64
	line  int // the line of start
}

// readExport reads and validates the export document in r, at most
// maxBytes of it, and hands its contents to sink as it goes. It returns
// the document's thread id and fingerprint. Errors: ErrImportTooLarge,
// ErrBadImport wrapped with the reason, the reader's error, or sink's.
func readExport(r io.Reader, maxBytes int64, sink exportSink) (thread, fingerprint string, err error) {
	in := newDocInput(r, maxBytes)
	d := &docReader{in: in, dec: json.NewDecoder(in), sink: sink, order: newStreamOrder(sink)}
	err = d.document()
	switch {
	case in.over:
		return "", "", fmt.Errorf("%w: more than %d bytes", ErrImportTooLarge, maxBytes)
	case in.err != nil:
		return "", "", in.err
	case err != nil:
		return "", "", err
	}
	return d.head.Thread, d.head.Fingerprint, nil
}

// document reads the whole document: its object, then nothing more.
func (d *docReader) document() error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.syntax(err)
	}
	switch tok {
	case json.Delim('{'):
	case nil:
		// null decodes to an empty header, as it did: the format is wrong.
		if err := d.headReady(); err != nil {
			return err
		}
		return badImportf("format is %q, want %q", "", ExportFormat)
	default:
		return badImportf("the document wants an object, not %s (line %d)", tokenKind(tok), d.in.line(d.dec.InputOffset()))
	}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return d.syntax(err)
		}
		key, _ := tok.(string)
		if err := d.field(key); err != nil {
			return err
		}
	}
	if _, err := d.dec.Token(); err != nil { // the closing brace
		return d.syntax(err)
	}
	// Nothing may follow but white space; reading to the end also finds
	// a document over the size limit by its last bytes.
	if _, err := d.dec.Token(); err != io.EOF {
		if d.in.over || d.in.err != nil || d.in.spaceAt > 0 {
			return d.syntax(err)
		}
		return badImportf("trailing data after the export")
	}
	return d.finish()
}

// field reads the value of the document's field key.
func (d *docReader) field(key string) error {
	switch key {
	case "format", "version", "thread", "fingerprint":
		raw, start, err := d.value()
		if err != nil {
			return err
		}
		return d.headField(key, raw, start)
	case "checkpoints":
		if d.sawCheckpoints {
			return badImportf("field %q appears twice (line %d)", key, d.in.line(d.dec.InputOffset()))
		}
		d.sawCheckpoints = true
		if !d.haveFormat || !d.haveVersion || !d.haveThread {
			l, err := d.later()
			d.laterCheckpoints = l
			return err
		}
		if err := d.begin(); err != nil {
			return err
		}
		if err := d.list(key, d.checkpoint); err != nil {
			return err
		}
		return d.checkpointsDone()
	case "orphan_writes":
		if d.sawOrphs {
			return badImportf("field %q appears twice (line %d)", key, d.in.line(d.dec.InputOffset()))
		}
		d.sawOrphs = true
		if !d.haveFormat || !d.haveVersion || d.laterCheckpoints != nil || !d.sawCheckpoints {
			l, err := d.later()
			d.laterOrphans = l
			return err
		}
		return d.orphans(key)
	}
	// An unknown field: refused, once the version says whether it is a
	// newer writer's (which the version error names instead).
	if d.unknown == "" {
		d.unknown = key
	}
	if d.haveVersion {
		if err := d.headReady(); err != nil {
			return err
		}
	}
	_, _, err := d.value()
	return err
}

// value decodes the next value undecoded, and where it starts.
func (d *docReader) value() (json.RawMessage, int64, error) {
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return nil, 0, d.syntax(err)
	}
	return raw, d.dec.InputOffset() - int64(len(raw)), nil
}

// later keeps the next value, a list, to be read when the header is.
func (d *docReader) later() (*rawList, error) {
	raw, start, err := d.value()
	if err != nil {
		return nil, err
	}
	return &rawList{raw: raw, start: start, line: d.in.line(start)}, nil
}

// headField decodes one field of the header.
func (d *docReader) headField(key string, raw json.RawMessage, start int64) error {
	var dst any
	switch key {
	case "format":
		dst = &d.head.Format
	case "version":
		dst = &d.head.Version
	case "thread":
		dst = &d.head.Thread
	case "fingerprint":
		d.fingerprint = nil
		dst = &d.fingerprint
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return badImportf("%v", d.decodeErrorIn(err, key, start))
	}
	switch key {
	case "format":
		d.haveFormat = true
	case "version":
		d.haveVersion = true
	case "thread":
		d.haveThread = true
	}
	if d.haveFormat && d.haveVersion && (key == "format" || key == "version") {
		return d.headReady()
	}
	return nil
}

// headReady checks the format and version, once both are read: what the
// rest of the document means depends on them.
func (d *docReader) headReady() error {
	if d.head.Format != ExportFormat {
		return badImportf("format is %q, want %q", truncate(d.head.Format, 40), ExportFormat)
	}
	switch v := d.head.Version; {
	case v > ExportVersion:
		return badImportf("export version %d is newer than this superstep reads (%d): import it with a newer superstep", v, ExportVersion)
	case v < exportVersionFull:
		return badImportf("export version %d is not a version (this superstep reads versions %d to %d)", v, exportVersionFull, ExportVersion)
	}
	if d.unknown != "" {
		return badImportf("json: unknown field %q", d.unknown)
	}
	return nil
}

// begin checks the header before the first checkpoint is handed on: the
// sink writes each under the thread's id.
func (d *docReader) begin() error {
	if d.begun {
		return nil
	}
	if err := d.headReady(); err != nil {
		return err
	}
	if err := checkThreadID(d.head.Thread); err != nil {
		return badImportf("%v", err)
	}
	d.begun = true
	return d.sink.begin(d.head.Thread)
}

// list reads the list of field key from the decoder, calling entry with
// each element undecoded, where it starts, and how to place an offset in
// it on a line.
func (d *docReader) list(key string, entry func(raw json.RawMessage, start int64, line func(int64) int) error) error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.syntax(err)
	}
	switch tok {
	case json.Delim('['):
	case nil:
		return nil // null: no entries
	default:
		return badImportf("field %q wants a list, not %s (line %d)", key, tokenKind(tok), d.in.line(d.dec.InputOffset()))
	}
	for d.dec.More() {
		raw, start, err := d.value()
		if err != nil {
			return err
		}
		if err := entry(raw, start, d.in.line); err != nil {
			return err
		}
		d.in.forget(start + int64(len(raw)))
	}
	if _, err := d.dec.Token(); err != nil {
		return d.syntax(err)
	}
	return nil
}

// listFrom is list over a list kept undecoded (rawList).
func (d *docReader) listFrom(key string, l *rawList, entry func(raw json.RawMessage, start int64, line func(int64) int) error) error {
	line := func(off int64) int {
		return l.line + bytes.Count(l.raw[:min(max(off-l.start, 0), int64(len(l.raw)))], []byte("\n"))
	}
	// The list is valid JSON (the decoder read it): a decoder over it
	// gives each element and where it ends.
	dec := json.NewDecoder(bytes.NewReader(l.raw))
	switch tok, _ := dec.Token(); tok {
	case json.Delim('['):
	case nil:
		return nil // null: no entries
	default:
		return badImportf("field %q wants a list, not %s (line %d)", key, tokenKind(tok), l.line)
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return badImportf("%v", err)
		}
		if err := entry(raw, l.start+dec.InputOffset()-int64(len(raw)), line); err != nil {
			return err
		}
	}
	return nil
}

// checkpoint reads the checkpoints' entry raw, the n-th.
func (d *docReader) checkpoint(raw json.RawMessage, start int64, line func(int64) int) error {
	i := d.n
	d.n++
	if d.n > maxImportCheckpoints {
		return badImportf("more than %d checkpoints", maxImportCheckpoints)
	}
	var it importItem
	var id string
	var err error
	if d.head.Version == exportVersionFull {
		var ec exportCheckpointV1
		if err := decodeStrict(raw, &ec); err != nil {
			return badImportf("checkpoint %d (%q): %v", i, truncate(rawID(raw), 40), decodeErrorAt(err, start, line))
		}
		id = ec.ID
		it, err = importCheckpointV1(&ec)
	} else {
		var in recordIn
		if err := decodeStrict(raw, &in); err != nil {
			return badImportf("checkpoint %d (%q): %v", i, truncate(rawID(raw), 40), decodeErrorAt(err, start, line))
		}
		var er *exportRecord
		if er, err = in.record(); err != nil {
			id = in.exportRecord.ID
		} else {
			id = er.ID
			it, err = importRecord(er)
		}
	}
	if err != nil {
		return badImportf("checkpoint %d (%q): %v", i, truncate(id, 40), err)
	}
	it.index = i
	return d.order.add(&it)
}

// rawID is the id of a checkpoint or orphan writes entry that did not
// decode, for its error: "id", or "checkpoint" for orphan writes.
func rawID(raw json.RawMessage) string {
	var ids struct {
		ID         any `json:"id"`
		Checkpoint any `json:"checkpoint"`
	}
	_ = json.Unmarshal(raw, &ids)
	id, _ := cmp.Or(ids.ID, ids.Checkpoint).(string)
	return id
}

// checkpointsDone ends the checkpoints: every one read is rebuilt (or the
// document is refused), and orphan writes read before them are read now.
func (d *docReader) checkpointsDone() error {
	if err := d.order.finish(); err != nil {
		return err
	}
	if l := d.laterOrphans; l != nil {
		d.laterOrphans = nil
		return d.listFrom("orphan_writes", l, d.orphan)
	}
	return nil
}

// orphans reads the orphan writes from the decoder.
func (d *docReader) orphans(key string) error {
	if d.head.Version == exportVersionFull {
		return badImportf("json: unknown field %q", key)
	}
	return d.list(key, d.orphan)
}

// orphan reads the orphan writes entry raw, the norph-th.
func (d *docReader) orphan(raw json.RawMessage, start int64, line func(int64) int) error {
	i := d.norph
	d.norph++
	if d.norph > maxImportCheckpoints {
		return badImportf("orphan writes at more than %d checkpoint ids", maxImportCheckpoints)
	}
	var in orphanIn
	if err := decodeStrict(raw, &in); err != nil {
		return badImportf("orphan writes %d (checkpoint %q): %v", i, truncate(rawID(raw), 40), decodeErrorAt(err, start, line))
	}
	o, err := in.orphan()
	if err != nil {
		return badImportf("orphan writes %d: %v", i, err)
	}
	valid, err := d.order.orphan(i, o)
	if err != nil {
		return err
	}
	return d.sink.orphan(valid)
}

// finish reads what was kept for later and checks what only the whole
// document tells.
func (d *docReader) finish() error {
	if err := d.headReady(); err != nil {
		return err
	}
	if l := d.laterCheckpoints; l != nil {
		d.laterCheckpoints = nil
		if err := d.begin(); err != nil {
			return err
		}
		if err := d.listFrom("checkpoints", l, d.checkpoint); err != nil {
			return err
		}
		if err := d.checkpointsDone(); err != nil {
			return err
		}
	}
	if l := d.laterOrphans; l != nil {
		// Orphan writes and no checkpoints: refused below, but their
		// own errors come first, as when they follow the checkpoints.
		d.laterOrphans = nil
		if d.head.Version == exportVersionFull {
			return badImportf("json: unknown field %q", "orphan_writes")
		}
		if err := d.listFrom("orphan_writes", l, d.orphan); err != nil {
			return err
		}
	}
	if d.head.Version != exportVersionFull {
		if d.fingerprint == nil {
			return badImportf("missing field %q", "fingerprint")
		}
		d.head.Fingerprint = *d.fingerprint
	} else if d.fingerprint != nil {
		d.head.Fingerprint = *d.fingerprint
	}
	if err := checkThreadID(d.head.Thread); err != nil {
		return badImportf("%v", err)
	}
	if len(d.head.Fingerprint) > MaxNSLen {
		return badImportf("fingerprint longer than %d bytes", MaxNSLen)
	}
	if d.n == 0 {
		return badImportf("no checkpoints")
	}
	return nil
}

// syntax is the error of the decoder failing to read the document: the
// reader's error or the size limit (readExport reports those), or JSON
// that is malformed or ends early, with its line.
func (d *docReader) syntax(err error) error {
	if d.in.over || d.in.err != nil {
		return err
	}
	if d.in.spaceAt > 0 {
		return badImportf("more than %d bytes of white space between two values (line %d)", maxSpace, d.in.line(d.in.spaceAt))
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return badImportf("not JSON: unexpected end of JSON input (line %d)", d.in.line(d.in.n))
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return badImportf("%v", err)
	}
	// The decoder's offset counts only what it scanned as values; the
	// bytes it holds from where it stopped place the error instead.
	at := d.dec.InputOffset()
	rest, _ := io.ReadAll(d.dec.Buffered())
	var raw json.RawMessage
	if rerr := json.NewDecoder(bytes.NewReader(rest)).Decode(&raw); errors.As(rerr, &se) {
		at += se.Offset - 1
	}
	return badImportf("not JSON: %v (line %d)", err, d.in.line(at))
}

// decodeErrorIn is decodeError for a header field decoded alone: named
// by its key, its line the document's.
func (d *docReader) decodeErrorIn(err error, key string, start int64) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %q wants %s, not %s (line %d)", key, jsonWant(te.Type), jsonGot(te.Value), d.in.line(start+te.Offset))
	}
	return err
}

// decodeErrorAt is decodeError for an entry decoded alone that starts at
// byte start of the document, whose lines line counts.
func decodeErrorAt(err error, start int64, line func(int64) int) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := "the document"
		if te.Field != "" {
			field = fmt.Sprintf("field %q", te.Field)
		}
		return fmt.Errorf("%s wants %s, not %s (line %d)", field, jsonWant(te.Type), jsonGot(te.Value), line(start+te.Offset))
	}
	return err
}

// tokenKind says what kind of JSON value a decoder's token starts.
func tokenKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('[') {
			return "a list"
		}
		return "an object"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "true or false"
	}
	return "null"
}

// streamOrder hands the checkpoints of a document to a sink in an order
// where every parent comes before its children, rebuilding each whole
// from its parent's state as it goes. Export writes each namespace's
// checkpoints in id order, and ids are time-ordered, so a checkpoint
// usually finds its parent rebuilt already; one whose parent comes later
// (the format allows any order) waits for it. What only the whole
// document tells — a parent that never came, a cycle — finish says.
type streamOrder struct {
	sink exportSink
	// read holds every checkpoint read: duplicates, parents read, and
	// the ids orphan writes must not name.
	read map[nsKey]struct{}
	// states holds the rebuilt states, which a later checkpoint of the
	// document may be a delta from. (Which will be is not known until
	// the end; lists share their elements, see listArena, so a state
	// costs its maps.)
	states map[nsKey]*importState
	// waiting holds the checkpoints whose parent is not rebuilt yet, by
	// parent.
	waiting map[nsKey][]*importItem
	// marked maps a parent id that a checkpoint marked parent_missing
	// names to that checkpoint: the parent must not come later.
	marked map[nsKey]*importItem
	// orphans holds the ids of the orphan writes entries read.
	orphans map[nsKey]struct{}
	lists   listArena
}

func newStreamOrder(sink exportSink) *streamOrder {
	return &streamOrder{sink: sink, read: map[nsKey]struct{}{}, states: map[nsKey]*importState{},
		waiting: map[nsKey][]*importItem{}, marked: map[nsKey]*importItem{}, orphans: map[nsKey]struct{}{}, lists: listArena{}}
}

// add takes a checkpoint as read.
func (o *streamOrder) add(it *importItem) error {
	k := nsKey{it.ns, it.id}
	if _, dup := o.read[k]; dup {
		return badImportf("checkpoint %q appears twice in namespace %q", truncate(k.id, 40), truncate(k.ns, 40))
	}
	o.read[k] = struct{}{}
	if child := o.marked[k]; child != nil {
		return markedButHeld(child)
	}
	if it.parent == "" {
		return o.rebuild(it, nil)
	}
	pk := nsKey{it.ns, it.parent}
	_, parentRead := o.read[pk]
	switch {
	case it.parentMissing && parentRead:
		return markedButHeld(it)
	case it.parentMissing:
		o.marked[pk] = it
		return o.rebuild(it, nil)
	case o.states[pk] != nil:
		return o.rebuild(it, o.states[pk])
	}
	o.waiting[pk] = append(o.waiting[pk], it)
	return nil
}

func markedButHeld(it *importItem) error {
	return badImportf("checkpoint %q: its parent %q is in the export, but it is marked \"parent_missing\"", truncate(it.id, 40), truncate(it.parent, 40))
}

// rebuild hands it to the sink on base (nil: it is whole), then the
// checkpoints that waited for it, each namespace's least id first.
func (o *streamOrder) rebuild(it *importItem, base *importState) error {
	type job struct {
		it   *importItem
		base *importState
	}
	todo := []job{{it, base}}
	for len(todo) > 0 {
		j := todo[0]
		todo = todo[1:]
		st, err := j.it.state(j.base, o.lists)
		if err != nil {
			return badImportf("checkpoint %q: %v", truncate(j.it.id, 40), err)
		}
		cp := &engine.Checkpoint{V: j.it.v, ID: j.it.id, TS: j.it.ts, ChannelValues: st.values,
			ChannelVersions: st.versions, VersionsSeen: st.seen, UpdatedChannels: j.it.updated,
			Appends: st.appends}
		if err := o.sink.checkpoint(j.it, cp); err != nil {
			return err
		}
		// The state's own appends were this checkpoint's news; a child
		// inherits the lists, not the news.
		st.appends = nil
		k := nsKey{j.it.ns, j.it.id}
		o.states[k] = st
		kids := o.waiting[k]
		delete(o.waiting, k)
		slices.SortFunc(kids, compareItems)
		for _, c := range kids {
			todo = append(todo, job{c, st})
		}
	}
	return nil
}

// finish rebuilds, or refuses, the checkpoints still waiting once every
// checkpoint is read: a whole state (version 1) whose parent is not in
// the document is imported with that parent id; a delta without its
// parent is refused, and so is a cycle.
func (o *streamOrder) finish() error {
	var left []*importItem
	for _, kids := range o.waiting {
		left = append(left, kids...)
	}
	slices.SortFunc(left, func(a, b *importItem) int { return a.index - b.index })
	for _, it := range left {
		if _, ok := o.read[nsKey{it.ns, it.parent}]; !ok && !it.whole {
			// A delta whose base is not here: its parent's line was lost
			// or its parent id changed. Importing it would lose state.
			return badImportf("checkpoint %q: parent %q is not in the export, and the checkpoint is not marked \"parent_missing\" (a checkpoint whose parent the thread does not hold is)", truncate(it.id, 40), truncate(it.parent, 40))
		}
	}
	slices.SortFunc(left, compareItems)
	for _, it := range left {
		pk := nsKey{it.ns, it.parent}
		if _, ok := o.read[pk]; ok {
			continue
		}
		// Whole, and its parent not in the document: a root, as the
		// store held it.
		delete(o.waiting, pk)
		if err := o.rebuild(it, nil); err != nil {
			return err
		}
	}
	if len(o.waiting) > 0 {
		return badImportf("parent links form a cycle")
	}
	o.states, o.marked, o.lists = nil, nil, nil
	return nil
}

// orphan validates the orphan writes entry o, the i-th: its id once, not
// a checkpoint of the document (whose writes are its own), and at least
// one write.
func (o *streamOrder) orphan(i int, in *exportOrphan) (*importOrphan, error) {
	fail := func(format string, args ...any) error {
		return badImportf("orphan writes %d (checkpoint %q): %s", i, truncate(in.Checkpoint, 40), fmt.Sprintf(format, args...))
	}
	if err := CheckName("namespace", in.NS, MaxNSLen, true); err != nil {
		return nil, fail("%v", err)
	}
	if err := checkRecordName("checkpoint id", in.Checkpoint, MaxIDLen, false); err != nil {
		return nil, fail("%v", err)
	}
	k := nsKey{in.NS, in.Checkpoint}
	if _, held := o.read[k]; held {
		return nil, fail("the export holds that checkpoint in namespace %q: its writes belong in its own \"writes\"", truncate(in.NS, 40))
	}
	if _, seen := o.orphans[k]; seen {
		return nil, fail("appears twice in namespace %q", truncate(in.NS, 40))
	}
	o.orphans[k] = struct{}{}
	if len(in.Writes) == 0 {
		return nil, fail("no writes")
	}
	ws, err := importWrites(in.Writes)
	if err != nil {
		return nil, fail("%v", err)
	}
	return &importOrphan{ns: in.NS, id: in.Checkpoint, writes: ws}, nil
}

// listArena lets a rebuilt list share its parent's elements. A message
// history that grows by one message a checkpoint would otherwise be
// copied whole at every checkpoint, and kept so for every state a later
// delta may need: n checkpoints, n²/2 elements. A list value's elements
// live in an array that may have room past them; the arena records how
// many of each array's slots are taken, by the array's first slot. A
// child that appends to a list that ends where its array's taken slots
// do appends in place (growing the array as append does); one that does
// not (a second child of the same parent: a fork) copies.
type listArena map[*any]int

// join is the decoded value of list a followed by b, as decoding the
// whole list would give it (engine.FromJSON: a list of interrupts only is
// a []Interruption). It must not change a's elements: other states hold
// them.
func (la listArena) join(a, b []any) any {
	var out []any
	if cap(a) > 0 && la[&a[:1][0]] == len(a) && len(a) > 0 {
		out = append(a, b...) // into a's array when it has room: slots past len(a) are free
	} else {
		out = make([]any, 0, len(a)+len(b)+(len(a)+len(b))/4)
		out = append(append(out, a...), b...)
	}
	la[&out[:1][0]] = len(out)
	if _, ok := out[0].(engine.Interruption); !ok {
		return out
	}
	ints := make([]engine.Interruption, 0, len(out))
	for _, e := range out {
		in, ok := e.(engine.Interruption)
		if !ok {
			return out
		}
		ints = append(ints, in)
	}
	return ints
}
