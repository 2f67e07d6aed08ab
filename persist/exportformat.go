package persist

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/superstep/superstep/engine"
)

// The export format (docs/export-format.md): one JSON object, a header and
// the checkpoints of every namespace, one a line. Version 2 stores each
// checkpoint as a delta from its parent, as the store does: the channel
// versions, values and versions_seen that changed, a list that only grew
// as its new elements. So an export's size is linear in what changed, not
// in the number of checkpoints times the size of the state. Version 1
// (every checkpoint with its full state) is still read.
const (
	ExportFormat  = "superstep-thread"
	ExportVersion = 2
	// exportVersionFull is version 1: every checkpoint carries its whole
	// state.
	exportVersionFull = 1
)

// utf8BOM is the byte order mark some editors (Notepad, PowerShell's
// Out-File) put before the UTF-8 text they save.
var utf8BOM = []byte("\xef\xbb\xbf")

// TrimBOM returns data without a leading UTF-8 byte order mark: the
// document Import and ReadExport read. JSON has no place for the mark
// (RFC 8259 lets a reader ignore it), and an export a person opened and
// saved again is still the export. The result aliases data.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }

// isExport reports whether the file at path starts as an export does:
// a JSON object whose "format" is ExportFormat, found among the first
// fields (Export writes it first) within the first 64 KiB. Open asks
// it of a file that is not a database, to say what the file is.
func isExport(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, 64<<10))
	dec := json.NewDecoder(bytes.NewReader(TrimBOM(head)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for range 8 {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		if key == "format" {
			var format string
			return dec.Decode(&format) == nil && format == ExportFormat
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// exportHead is the header of every export version, read loosely first so
// that a newer version is reported as such rather than as unknown fields.
type exportHead struct {
	Format      string `json:"format"`
	Version     int    `json:"version"`
	Thread      string `json:"thread"`
	Fingerprint string `json:"fingerprint"`
}

// exportFileV1 and exportCheckpointV1 are version 1, read only.
type exportFileV1 struct {
	exportHead
	Checkpoints []exportCheckpointV1 `json:"checkpoints"`
}

type exportCheckpointV1 struct {
	NS              string                      `json:"ns"`
	ID              string                      `json:"id"`
	Parent          string                      `json:"parent"`
	V               int                         `json:"v"`
	TS              time.Time                   `json:"ts"`
	Metadata        exportMetadata              `json:"metadata"`
	Values          map[string]json.RawMessage  `json:"values"`
	Versions        map[string]int64            `json:"versions"`
	VersionsSeen    map[string]map[string]int64 `json:"versions_seen"`
	UpdatedChannels []string                    `json:"updated_channels"`
	Writes          []exportWrite               `json:"writes"`
}

type exportFile struct {
	exportHead
	Checkpoints []exportRecord `json:"checkpoints"`
	// OrphanWrites are the saved writes against checkpoint ids the thread
	// does not hold (omitted when none): engine.Saver takes writes before,
	// or without, their checkpoint, and a later Put of the id adopts them.
	// An export that dropped them would copy a thread without them.
	OrphanWrites []exportOrphan `json:"orphan_writes,omitempty"`
}

// exportOrphan is the writes against one checkpoint id of a namespace that
// the thread does not hold.
type exportOrphan struct {
	NS         string        `json:"ns"`
	Checkpoint string        `json:"checkpoint"`
	Writes     []exportWrite `json:"writes"`
}

// exportRecord is one checkpoint of a version 2 export. Versions, Values,
// Appended and VersionsSeen are a delta from the parent's (a whole state
// for a checkpoint without a parent):
//
//   - Versions: the channels whose version differs from the parent's, or
//     that the parent lacks; VersionsRemoved: the parent's channels this
//     checkpoint lacks.
//   - Values: the value of a channel of Versions; Appended: a channel of
//     Versions whose value is the parent's list plus these elements. A
//     channel of Versions in neither has a version but no value. A channel
//     not in Versions has the parent's version and so the parent's value.
//   - VersionsSeen: the nodes whose map differs from the parent's, whole;
//     VersionsSeenRemoved: the parent's nodes this checkpoint lacks.
//
// ParentMissing marks a checkpoint whose parent id the thread does not
// hold (engine.Saver takes any parent id: the parent was deleted, or a
// program wrote it so); its state is whole. The mark is what lets Import
// tell it from a checkpoint whose parent's line was lost from the
// document, whose delta it would otherwise read as a whole state.
type exportRecord struct {
	NS                  string                      `json:"ns"`
	ID                  string                      `json:"id"`
	Parent              string                      `json:"parent"`
	ParentMissing       bool                        `json:"parent_missing,omitempty"`
	V                   int                         `json:"v"`
	TS                  time.Time                   `json:"ts"`
	Metadata            exportMetadata              `json:"metadata"`
	Versions            map[string]int64            `json:"versions"`
	VersionsRemoved     []string                    `json:"versions_removed,omitempty"`
	Values              map[string]json.RawMessage  `json:"values,omitempty"`
	Appended            map[string]json.RawMessage  `json:"appended,omitempty"`
	VersionsSeen        map[string]map[string]int64 `json:"versions_seen"`
	VersionsSeenRemoved []string                    `json:"versions_seen_removed,omitempty"`
	UpdatedChannels     []string                    `json:"updated_channels"`
	Writes              []exportWrite               `json:"writes"`
}

type exportMetadata struct {
	Source  string                     `json:"source"`
	Step    int                        `json:"step"`
	Parents map[string]string          `json:"parents"`
	Extra   map[string]json.RawMessage `json:"extra"`
}

type exportWrite struct {
	Task    string          `json:"task"`
	Slot    int64           `json:"slot"`
	Channel string          `json:"channel"`
	Value   json.RawMessage `json:"value"`
}

// newExportRecord starts the record of a checkpoint: ids, metadata and
// updated channels; the caller adds the state delta and the writes.
func newExportRecord(ns, id, parent string, v int, ts time.Time, md mdRecord, updated []string) (*exportRecord, error) {
	for _, s := range []string{ns, id, parent} {
		if !utf8.ValidString(s) {
			return nil, fmt.Errorf("%w: %q is not UTF-8 and cannot be exported", ErrInvalidID, s)
		}
	}
	return &exportRecord{
		NS: ns, ID: id, Parent: parent, V: v, TS: ts,
		Metadata:        exportMetadata{Source: md.Source, Step: md.Step, Parents: md.Parents, Extra: md.Extra},
		Versions:        map[string]int64{},
		VersionsSeen:    map[string]map[string]int64{},
		UpdatedChannels: updated,
		Writes:          []exportWrite{},
	}, nil
}

// setSeen fills the versions_seen delta of seen from base (nil: whole).
// A nil map and an empty one are told apart, as the checkpoint keeps them.
func (er *exportRecord) setSeen(seen, base map[string]map[string]int64) {
	for n, m := range seen {
		if old, ok := base[n]; !ok || (old == nil) != (m == nil) || !maps.Equal(old, m) {
			er.VersionsSeen[n] = m
		}
	}
	er.VersionsSeenRemoved = removedKeys(base, seen)
}

// removedKeys returns the keys of base that cur lacks, sorted (nil: none).
func removedKeys[V, W any](base map[string]V, cur map[string]W) []string {
	var out []string
	for k := range base {
		if _, ok := cur[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// setValue records the JSON of channel's new value: as the elements added
// to the parent's list when prev (the JSON of the parent's value, nil for
// none) is a list that enc extends, else whole.
func (er *exportRecord) setValue(ch string, enc, prev []byte) {
	if suffix, ok := appendSuffix(prev, enc); ok {
		er.setAppended(ch, suffix)
		return
	}
	if er.Values == nil {
		er.Values = map[string]json.RawMessage{}
	}
	er.Values[ch] = enc
}

// setAppended records channel's new value as the parent's list followed by
// the elements in suffix (",e1,e2", as appendSuffix returns them).
func (er *exportRecord) setAppended(ch string, suffix []byte) {
	if er.Appended == nil {
		er.Appended = map[string]json.RawMessage{}
	}
	er.Appended[ch] = appendedJSON(suffix)
}

// checkNames refuses a record with a channel or node name that is not
// UTF-8: JSON cannot carry it, and json.Marshal would replace its bytes
// silently. (Ids and writes are checked where they are added.)
func (er *exportRecord) checkNames() error {
	names := slices.Concat(er.VersionsRemoved, er.VersionsSeenRemoved, er.UpdatedChannels)
	for ch := range er.Versions {
		names = append(names, ch)
	}
	for n, m := range er.VersionsSeen {
		names = append(names, n)
		for ch := range m {
			names = append(names, ch)
		}
	}
	for ns, id := range er.Metadata.Parents {
		names = append(names, ns, id)
	}
	for k := range er.Metadata.Extra {
		names = append(names, k)
	}
	for _, s := range names {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%w: checkpoint %q: name %q is not UTF-8 and cannot be exported", ErrInvalidID, er.ID, s)
		}
	}
	return nil
}

// exportableWrite refuses a saved write whose task id or channel JSON
// cannot carry (a key keeps any bytes; an export is JSON).
func exportableWrite(task, channel string) error {
	if !utf8.ValidString(task) || !utf8.ValidString(channel) {
		return fmt.Errorf("%w: write of task %q is not UTF-8 and cannot be exported", ErrInvalidID, task)
	}
	return nil
}

// addWrite adds a saved write; enc is the value's JSON.
func (er *exportRecord) addWrite(task, channel string, slot int64, enc []byte) error {
	if err := exportableWrite(task, channel); err != nil {
		return err
	}
	er.Writes = append(er.Writes, exportWrite{Task: task, Slot: slot, Channel: channel, Value: enc})
	return nil
}

// appendedJSON turns the bytes that follow a list's last element (",e1,e2",
// as appendSuffix returns them) into the JSON list of the added elements.
func appendedJSON(suffix []byte) json.RawMessage {
	out := make([]byte, 0, len(suffix)+1)
	out = append(out, '[')
	out = append(out, suffix[1:]...)
	return append(out, ']')
}

// exportWriter writes an export document record by record, so that no
// more than one checkpoint is held to write it: every checkpoint (write),
// then the orphan writes (writeOrphan), then close.
type exportWriter struct {
	bw *bufio.Writer
	n  int
	// orphans counts the orphan writes' entries written.
	orphans int
}

func newExportWriter(w io.Writer, thread, fingerprint string) (*exportWriter, error) {
	if !utf8.ValidString(thread) {
		return nil, fmt.Errorf("%w: thread id %q is not UTF-8 and cannot be exported", ErrInvalidID, thread)
	}
	ew := &exportWriter{bw: bufio.NewWriterSize(w, 64<<10)}
	head, err := json.Marshal(exportHead{ExportFormat, ExportVersion, thread, fingerprint})
	if err != nil {
		return nil, err
	}
	ew.bw.Write(head[:len(head)-1])
	ew.bw.WriteString(`,"checkpoints":[`)
	return ew, nil
}

func (ew *exportWriter) write(er *exportRecord) error {
	if ew.orphans > 0 {
		return errors.New("persist: internal error: a checkpoint exported after the orphan writes")
	}
	if err := er.checkNames(); err != nil {
		return err
	}
	line, err := json.Marshal(er)
	if err != nil {
		return err
	}
	if ew.n > 0 {
		ew.bw.WriteByte(',')
	}
	ew.bw.WriteByte('\n')
	ew.n++
	_, err = ew.bw.Write(line)
	return err
}

// writeOrphan adds the writes against a checkpoint id the thread does not
// hold, after every checkpoint.
func (ew *exportWriter) writeOrphan(o *exportOrphan) error {
	for _, s := range []string{o.NS, o.Checkpoint} {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%w: writes at checkpoint %q: %q is not UTF-8 and cannot be exported", ErrInvalidID, o.Checkpoint, s)
		}
	}
	for _, w := range o.Writes {
		if err := exportableWrite(w.Task, w.Channel); err != nil {
			return err
		}
	}
	line, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if ew.orphans == 0 {
		ew.bw.WriteString("\n],\"orphan_writes\":[")
	} else {
		ew.bw.WriteByte(',')
	}
	ew.bw.WriteByte('\n')
	ew.orphans++
	_, err = ew.bw.Write(line)
	return err
}

// close ends the document; thread names the thread in the error for a
// document without checkpoints.
func (ew *exportWriter) close(thread string) error {
	if ew.n == 0 {
		return fmt.Errorf("%w: %q has no checkpoints", ErrThreadNotFound, thread)
	}
	ew.bw.WriteString("\n]}\n")
	return ew.bw.Flush()
}

// importItem is one validated checkpoint of an export, its state still a
// delta (or, from a version 1 export, whole).
type importItem struct {
	index          int // in the document, for errors
	ns, id, parent string
	v              int
	ts             time.Time
	md             mdRecord
	updated        []string
	// whole: versions, seen and values are the whole state, not a delta
	// (version 1).
	whole bool
	// parentMissing: the thread does not hold the parent (the export says
	// so: exportRecord.ParentMissing); the state is whole.
	parentMissing   bool
	versions        map[string]int64
	versionsRemoved []string
	values          map[string]any
	appended        map[string][]any
	seen            map[string]map[string]int64
	seenRemoved     []string
	writes          []importWrite
}

type importWrite struct {
	task string
	slot int64
	rec  []byte
}

// importOrphan is the validated writes against a checkpoint id the thread
// does not hold (exportFile.OrphanWrites).
type importOrphan struct {
	ns, id string
	writes []importWrite
}

// importState is a checkpoint's whole state while its children are
// rebuilt from it.
type importState struct {
	versions map[string]int64
	values   map[string]any
	seen     map[string]map[string]int64
	// appends are this checkpoint's lists that only grew (not inherited):
	// the store then encodes just the new elements, so importing a growing
	// list costs what it appended, as running it did.
	appends map[string]engine.ListAppend
}

// How Import reads a version 2 document. Every field the export writes
// is required, except those the format calls optional (parent_missing,
// versions_removed, values, appended, versions_seen_removed,
// orphan_writes): Go's decoder leaves a missing field at its zero value,
// and a zero is a meaning here — a missing "parent" would make a delta a
// root, a missing "metadata" step 0, a missing "task" the null task. The
// types below shadow those fields of the format's types with ones that
// say whether the document had them, so one pass decodes both, and each
// checks its fields and hands back the format's type.

// fileIn is an exportFile as read.
type fileIn struct {
	exportHead
	Fingerprint  *string    `json:"fingerprint"`
	Checkpoints  []recordIn `json:"checkpoints"`
	OrphanWrites []orphanIn `json:"orphan_writes"`
}

// recordIn is an exportRecord as read.
type recordIn struct {
	exportRecord
	NS              *string           `json:"ns"`
	ID              *string           `json:"id"`
	Parent          *string           `json:"parent"`
	V               *int              `json:"v"`
	TS              *time.Time        `json:"ts"`
	Metadata        *metadataIn       `json:"metadata"`
	UpdatedChannels present[[]string] `json:"updated_channels"`
	Writes          []writeIn         `json:"writes"`
}

// metadataIn is an exportMetadata as read.
type metadataIn struct {
	exportMetadata
	Source  *string                             `json:"source"`
	Step    *int                                `json:"step"`
	Parents present[map[string]string]          `json:"parents"`
	Extra   present[map[string]json.RawMessage] `json:"extra"`
}

// writeIn is an exportWrite as read; Value is nil when missing ("null"
// is a value).
type writeIn struct {
	exportWrite
	Task    *string `json:"task"`
	Slot    *int64  `json:"slot"`
	Channel *string `json:"channel"`
}

// orphanIn is an exportOrphan as read.
type orphanIn struct {
	exportOrphan
	NS         *string   `json:"ns"`
	Checkpoint *string   `json:"checkpoint"`
	Writes     []writeIn `json:"writes"`
}

// present is a field that may be null but must be there.
type present[T any] struct {
	v   T
	set bool
}

// UnmarshalJSON is called for null too, which is what tells null from
// missing.
func (p *present[T]) UnmarshalJSON(b []byte) error {
	p.set = true
	return json.Unmarshal(b, &p.v)
}

// missingField is the error of a required field the document lacks (or
// has as null where the format never writes null).
func missingField(name string) error { return fmt.Errorf("missing field %q", name) }

// record checks the required fields and returns the exportRecord.
func (in *recordIn) record() (*exportRecord, error) {
	er := &in.exportRecord
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"ns", in.NS != nil}, {"id", in.ID != nil}, {"parent", in.Parent != nil}, {"v", in.V != nil},
		{"ts", in.TS != nil}, {"metadata", in.Metadata != nil}, {"versions", er.Versions != nil},
		{"versions_seen", er.VersionsSeen != nil}, {"updated_channels", in.UpdatedChannels.set},
		{"writes", in.Writes != nil},
	} {
		if !f.ok {
			if in.ID != nil {
				er.ID = *in.ID // for the error's prefix
			}
			return nil, missingField(f.name)
		}
	}
	er.NS, er.ID, er.Parent, er.V, er.TS = *in.NS, *in.ID, *in.Parent, *in.V, *in.TS
	md := in.Metadata
	switch {
	case md.Source == nil:
		return nil, missingField("metadata.source")
	case md.Step == nil:
		return nil, missingField("metadata.step")
	case !md.Parents.set:
		return nil, missingField("metadata.parents")
	case !md.Extra.set:
		return nil, missingField("metadata.extra")
	}
	er.Metadata = exportMetadata{Source: *md.Source, Step: *md.Step, Parents: md.Parents.v, Extra: md.Extra.v}
	er.UpdatedChannels = in.UpdatedChannels.v
	var err error
	er.Writes, err = writesOf(in.Writes)
	return er, err
}

// orphan checks the required fields and returns the exportOrphan.
func (in *orphanIn) orphan() (*exportOrphan, error) {
	switch {
	case in.NS == nil:
		return nil, missingField("ns")
	case in.Checkpoint == nil:
		return nil, missingField("checkpoint")
	case in.Writes == nil:
		return nil, missingField("writes")
	}
	ws, err := writesOf(in.Writes)
	return &exportOrphan{NS: *in.NS, Checkpoint: *in.Checkpoint, Writes: ws}, err
}

// writesOf checks the required fields of each write.
func writesOf(in []writeIn) ([]exportWrite, error) {
	out := make([]exportWrite, len(in))
	for i, w := range in {
		var missing string
		switch {
		case w.Task == nil:
			missing = "task"
		case w.Slot == nil:
			missing = "slot"
		case w.Channel == nil:
			missing = "channel"
		case w.exportWrite.Value == nil:
			missing = "value"
		}
		if missing != "" {
			return nil, fmt.Errorf("write %d: %w", i, missingField(missing))
		}
		out[i] = exportWrite{Task: *w.Task, Slot: *w.Slot, Channel: *w.Channel, Value: w.exportWrite.Value}
	}
	return out, nil
}

// decodeStrict decodes one export document into f, refusing unknown fields
// and trailing data. A decoding error is returned as encoding/json's, for
// locateError; trailing data is ErrBadImport.
func decodeStrict(data []byte, f any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(f); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return badImportf("trailing data after the export")
	}
	return nil
}

// jsonWant says what JSON a Go type of the format's reads.
func jsonWant(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// jsonGot says what encoding/json's UnmarshalTypeError.Value is: "number
// 2.5" (a number it could not store), or a kind of JSON value.
func jsonGot(v string) string {
	switch v {
	case "number":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return v
}

type nsKey struct{ ns, id string }

func compareItems(a, b *importItem) int {
	switch {
	case a.ns != b.ns && a.ns < b.ns:
		return -1
	case a.ns != b.ns:
		return 1
	case a.id < b.id:
		return -1
	case a.id > b.id:
		return 1
	}
	return 0
}

// state applies the item to its parent's state (nil for a root); lists
// grow in lists.
func (it *importItem) state(base *importState, lists listArena) (*importState, error) {
	if it.whole || base == nil {
		if !it.whole && (len(it.versionsRemoved) > 0 || len(it.seenRemoved) > 0 || len(it.appended) > 0) {
			if it.parent != "" {
				return nil, fmt.Errorf("its parent %q is not in the export, so its state must be whole, but it removes or appends to its parent's channels", truncate(it.parent, 40))
			}
			return nil, errors.New("a checkpoint without a parent removes or appends to its parent's channels")
		}
		base = &importState{}
	}
	st := &importState{versions: maps.Clone(base.versions), values: maps.Clone(base.values), seen: maps.Clone(base.seen)}
	if st.versions == nil {
		st.versions, st.values, st.seen = map[string]int64{}, map[string]any{}, map[string]map[string]int64{}
	}
	for _, ch := range it.versionsRemoved {
		if _, ok := st.versions[ch]; !ok {
			return nil, fmt.Errorf("removes channel %q, which its parent does not have", truncate(ch, 40))
		}
		delete(st.versions, ch)
		delete(st.values, ch)
	}
	for ch, v := range it.versions {
		prev, hadPrev := st.values[ch]
		prevVersion := st.versions[ch]
		st.versions[ch] = v
		delete(st.values, ch)
		if val, ok := it.values[ch]; ok {
			st.values[ch] = val
		} else if elems, ok := it.appended[ch]; ok {
			list, isList := listElems(prev)
			if !hadPrev || !isList {
				return nil, fmt.Errorf("appends to channel %q, whose value at the parent is not a list", truncate(ch, 40))
			}
			st.values[ch] = lists.join(list, elems)
			if st.appends == nil {
				st.appends = map[string]engine.ListAppend{}
			}
			st.appends[ch] = engine.ListAppend{From: prevVersion, Len: len(list)}
		}
	}
	for _, n := range it.seenRemoved {
		if _, ok := st.seen[n]; !ok {
			return nil, fmt.Errorf("removes versions_seen of node %q, which its parent does not have", truncate(n, 40))
		}
		delete(st.seen, n)
	}
	maps.Copy(st.seen, it.seen)
	return st, nil
}

// listElems returns the elements of a decoded list value: []any, or the
// []Interruption the engine's codec makes of a list of interrupts.
func listElems(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case []engine.Interruption:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, true
	}
	return nil, false
}

// importCheckpointV1 validates one checkpoint of a version 1 export.
func importCheckpointV1(ec *exportCheckpointV1) (importItem, error) {
	it, err := importCommon(ec.NS, ec.ID, ec.Parent, ec.V, ec.TS, ec.Metadata, ec.UpdatedChannels, ec.Writes)
	if err != nil {
		return importItem{}, err
	}
	it.whole = true
	if it.versions, err = checkVersions(ec.Versions); err != nil {
		return it, err
	}
	it.values = make(map[string]any, len(ec.Values))
	for ch, raw := range ec.Values {
		if _, ok := ec.Versions[ch]; !ok {
			continue // an initial value: the graph rebuilds it (see Store.Put)
		}
		if it.values[ch], err = decodeImportValue(ch, raw); err != nil {
			return it, err
		}
	}
	it.seen, err = checkSeen(ec.VersionsSeen)
	return it, err
}

// importRecord validates one checkpoint of a version 2 export.
func importRecord(er *exportRecord) (importItem, error) {
	it, err := importCommon(er.NS, er.ID, er.Parent, er.V, er.TS, er.Metadata, er.UpdatedChannels, er.Writes)
	if err != nil {
		return importItem{}, err
	}
	if it.versions, err = checkVersions(er.Versions); err != nil {
		return it, err
	}
	for _, ch := range er.VersionsRemoved {
		if _, ok := er.Versions[ch]; ok {
			return it, fmt.Errorf("channel %q is both changed and removed", truncate(ch, 40))
		}
	}
	it.versionsRemoved = er.VersionsRemoved
	it.values = make(map[string]any, len(er.Values))
	for ch, raw := range er.Values {
		if _, ok := er.Versions[ch]; !ok {
			return it, fmt.Errorf("value of channel %q, which is not among its changed versions", truncate(ch, 40))
		}
		if it.values[ch], err = decodeImportValue(ch, raw); err != nil {
			return it, err
		}
	}
	it.appended = make(map[string][]any, len(er.Appended))
	for ch, raw := range er.Appended {
		if _, ok := er.Versions[ch]; !ok {
			return it, fmt.Errorf("appended elements of channel %q, which is not among its changed versions", truncate(ch, 40))
		}
		if _, ok := er.Values[ch]; ok {
			return it, fmt.Errorf("channel %q has both a value and appended elements", truncate(ch, 40))
		}
		v, err := decodeImportValue(ch, raw)
		if err != nil {
			return it, err
		}
		elems, ok := listElems(v)
		if !ok || len(elems) == 0 {
			return it, fmt.Errorf("appended elements of channel %q are not a non-empty list", truncate(ch, 40))
		}
		it.appended[ch] = elems
	}
	if it.seen, err = checkSeen(er.VersionsSeen); err != nil {
		return it, err
	}
	for _, n := range er.VersionsSeenRemoved {
		if _, ok := er.VersionsSeen[n]; ok {
			return it, fmt.Errorf("versions_seen of node %q is both changed and removed", truncate(n, 40))
		}
	}
	it.seenRemoved = er.VersionsSeenRemoved
	if er.ParentMissing && er.Parent == "" {
		return it, errors.New(`it is marked "parent_missing" but has no parent`)
	}
	it.parentMissing = er.ParentMissing
	return it, nil
}

func decodeImportValue(ch string, raw json.RawMessage) (any, error) {
	v, err := engine.DecodeValue(raw)
	if err != nil {
		return nil, fmt.Errorf("value of %q: %v", truncate(ch, 40), err)
	}
	return v, nil
}

// checkVersions checks an exported checkpoint's channel versions as Put
// does, and returns them in a map of the import's own.
func checkVersions(in map[string]int64) (map[string]int64, error) {
	if err := checkVersionNames(in); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(in))
	maps.Copy(out, in)
	return out, nil
}

// checkSeen checks an exported checkpoint's versions_seen as Put does,
// and returns it in a map of the import's own.
func checkSeen(in map[string]map[string]int64) (map[string]map[string]int64, error) {
	if err := checkSeenNames(in); err != nil {
		return nil, err
	}
	out := make(map[string]map[string]int64, len(in))
	maps.Copy(out, in)
	return out, nil
}

// importCommon validates what every export version's checkpoint has: ids,
// format version, metadata, updated channels and saved writes.
func importCommon(ns, id, parent string, v int, ts time.Time, emd exportMetadata, updated []string, writes []exportWrite) (importItem, error) {
	if err := checkImportIDs(ns, id, parent, v); err != nil {
		return importItem{}, err
	}
	mdr, err := importMetadata(emd)
	if err != nil {
		return importItem{}, err
	}
	if err := checkChannelNames("updated channel", updated); err != nil {
		return importItem{}, err
	}
	it := importItem{ns: ns, id: id, parent: parent, v: v, ts: ts, md: mdr, updated: updated}
	if it.writes, err = importWrites(writes); err != nil {
		return importItem{}, err
	}
	return it, nil
}

// checkImportIDs checks a checkpoint's namespace, id and parent, and that
// this build reads its format version.
func checkImportIDs(ns, id, parent string, v int) error {
	if err := CheckName("namespace", ns, MaxNSLen, true); err != nil {
		return err
	}
	if err := checkRecordName("checkpoint id", id, MaxIDLen, false); err != nil {
		return err
	}
	if err := checkRecordName("parent checkpoint id", parent, MaxIDLen, true); err != nil {
		return err
	}
	if parent == id {
		return fmt.Errorf("checkpoint %q is its own parent", truncate(id, 40))
	}
	// A newer layout may mean things this build would store wrongly
	// (LangGraph's "v", engine.CheckpointFormat).
	if v > engine.CheckpointFormat {
		return fmt.Errorf("checkpoint format version %d is newer than this superstep reads (%d): import it with a newer superstep", v, engine.CheckpointFormat)
	}
	if v < 0 {
		return fmt.Errorf("checkpoint format version %d is not a version", v)
	}
	return nil
}

// importMetadata checks an exported checkpoint's metadata and encodes it
// as the store keeps it.
func importMetadata(emd exportMetadata) (mdRecord, error) {
	if err := checkMetadataNames(emd.Source, emd.Parents); err != nil {
		return mdRecord{}, err
	}
	md := engine.Metadata{Source: emd.Source, Step: emd.Step, Parents: emd.Parents}
	if emd.Extra != nil {
		md.Extra = make(map[string]any, len(emd.Extra))
		for k, raw := range emd.Extra {
			val, err := engine.DecodeValue(raw)
			if err != nil {
				return mdRecord{}, fmt.Errorf("metadata %q: %v", truncate(k, 40), err)
			}
			md.Extra[k] = val
		}
	}
	return encodeMetadata(md)
}

// importWrites checks a checkpoint's saved writes (ids, each channel's
// slot, no slot of a task twice) and encodes them as the store keeps them.
func importWrites(writes []exportWrite) ([]importWrite, error) {
	type slotKey struct {
		task string
		slot int64
	}
	seen := make(map[slotKey]bool, len(writes))
	var out []importWrite
	for _, w := range writes {
		if err := CheckName("task id", w.Task, MaxIDLen, true); err != nil {
			return nil, err
		}
		if err := CheckName("write channel", w.Channel, MaxIDLen, false); err != nil {
			return nil, err
		}
		if want := int64(engine.WriteSlot(w.Channel, 0)); want < 0 && w.Slot != want {
			return nil, fmt.Errorf("write to %q has slot %d, want %d", w.Channel, w.Slot, want)
		} else if want >= 0 && (w.Slot < 0 || w.Slot > 1<<31) {
			return nil, fmt.Errorf("write to %q has slot %d", truncate(w.Channel, 40), w.Slot)
		}
		k := slotKey{w.Task, w.Slot}
		if seen[k] {
			return nil, fmt.Errorf("two writes of task %q in slot %d", truncate(w.Task, 40), w.Slot)
		}
		seen[k] = true
		val, err := engine.DecodeValue(w.Value)
		if err != nil {
			return nil, fmt.Errorf("write to %q: %v", truncate(w.Channel, 40), err)
		}
		enc, err := engine.EncodeValue(val)
		if err != nil {
			return nil, err
		}
		out = append(out, importWrite{task: w.Task, slot: w.Slot, rec: encodeWrite(w.Channel, enc)})
	}
	return out, nil
}
