package persist

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/superstep/superstep/engine"
)

// ThreadDoc is one thread of an export document (ExportFormat), decoded:
// what another store (persist/postgres) reads and writes so that every
// store exports and imports the one format this package owns.
type ThreadDoc struct {
	Thread      string // the thread's id
	Fingerprint string // the graph fingerprint the thread was recorded with
	// Checkpoints of every namespace. ReadExport returns them with each
	// parent before its children; WriteExport takes any order. A
	// checkpoint's Parent may be an id the thread does not hold
	// (engine.Saver takes any): it is stored with that parent id.
	Checkpoints []DocCheckpoint
	// Orphans are the writes saved against checkpoint ids the thread does
	// not hold, which a later Put of the id adopts. WriteExport writes
	// them by namespace and id, whatever their order here.
	Orphans []DocOrphan
}

// DocOrphan is the writes saved against one checkpoint id that a thread
// does not hold.
type DocOrphan struct {
	NS         string     // the namespace of the id
	Checkpoint string     // the checkpoint id the writes were saved against
	Writes     []DocWrite // in the store's order: by task, special slots first
}

// DocCheckpoint is one checkpoint of a ThreadDoc with its saved writes.
type DocCheckpoint struct {
	NS         string             // the checkpoint namespace ("" for the root)
	Parent     string             // "" for a root
	Checkpoint *engine.Checkpoint // the whole checkpoint (the document stores a delta)
	Metadata   engine.Metadata    // its metadata
	Writes     []DocWrite         // the pending writes saved against it
}

// DocWrite is one saved write, in its slot (engine.WriteSlot); Value is the
// engine's encoding (engine.EncodeValue).
type DocWrite struct {
	Task    string // the task that wrote it (engine.NullTaskID for none)
	Slot    int64  // its index among the task's writes (engine.WriteSlot)
	Channel string // the channel written
	Value   []byte // the value, encoded by engine.EncodeValue
}

// ReadExport reads and validates an export document, as Import does, without
// storing it. Errors: ErrImportTooLarge (maxBytes, default
// DefaultMaxImportBytes), ErrBadImport wrapped with the reason, or the
// reader's error.
func ReadExport(r io.Reader, maxBytes int64) (*ThreadDoc, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxImportBytes
	}
	dr := &docRead{}
	thread, fp, err := readExport(r, maxBytes, dr)
	if err != nil {
		return nil, err
	}
	dr.doc.Thread, dr.doc.Fingerprint = thread, fp
	return &dr.doc, nil
}

// CheckExport reads and validates an export document as Import does,
// without storing or keeping it, and returns its thread id: a caller can
// refuse a bad document before it opens a database. The document is read
// as a stream (Import's memory, without the database). Errors:
// ErrImportTooLarge (maxBytes, default DefaultMaxImportBytes),
// ErrBadImport wrapped with the reason, or the reader's error.
func CheckExport(r io.Reader, maxBytes int64) (string, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxImportBytes
	}
	thread, _, err := readExport(r, maxBytes, discardSink{})
	return thread, err
}

// discardSink is CheckExport's: the checks are readExport's.
type discardSink struct{}

func (discardSink) begin(string) error                               { return nil }
func (discardSink) checkpoint(*importItem, *engine.Checkpoint) error { return nil }
func (discardSink) orphan(*importOrphan) error                       { return nil }

// docRead is the sink of ReadExport's read: the document, whole.
type docRead struct{ doc ThreadDoc }

func (dr *docRead) begin(string) error { return nil }

func (dr *docRead) checkpoint(it *importItem, cp *engine.Checkpoint) error {
	md, err := decodeMetadata(it.md)
	if err != nil {
		return badImportf("checkpoint %q: %v", truncate(it.id, 40), err)
	}
	ws, err := docWrites(it.writes)
	if err != nil {
		return err
	}
	dr.doc.Checkpoints = append(dr.doc.Checkpoints, DocCheckpoint{NS: it.ns, Parent: it.parent, Checkpoint: cp, Metadata: md, Writes: ws})
	return nil
}

func (dr *docRead) orphan(o *importOrphan) error {
	ws, err := docWrites(o.writes)
	if err != nil {
		return err
	}
	if ws == nil {
		ws = []DocWrite{}
	}
	dr.doc.Orphans = append(dr.doc.Orphans, DocOrphan{NS: o.ns, Checkpoint: o.id, Writes: ws})
	return nil
}

// docWrites are imported writes as a ThreadDoc holds them.
func docWrites(writes []importWrite) ([]DocWrite, error) {
	var out []DocWrite
	for _, w := range writes {
		ch, enc, err := splitWrite(w.rec)
		if err != nil {
			return nil, err
		}
		out = append(out, DocWrite{Task: w.task, Slot: w.slot, Channel: ch, Value: enc})
	}
	return out, nil
}

// WriteExport writes doc as an export document that Import and ReadExport
// read back. Errors: ErrThreadNotFound for a document without checkpoints,
// ErrInvalidID for ids that are not UTF-8 (JSON cannot carry them), an
// encoding error of a value, or w's error.
func WriteExport(w io.Writer, doc *ThreadDoc) error {
	if len(doc.Checkpoints) == 0 {
		return fmt.Errorf("%w: %q has no checkpoints", ErrThreadNotFound, doc.Thread)
	}
	ew, err := newExportWriter(w, doc.Thread, doc.Fingerprint)
	if err != nil {
		return err
	}
	byKey := make(map[nsKey]*engine.Checkpoint, len(doc.Checkpoints))
	for i := range doc.Checkpoints {
		dc := &doc.Checkpoints[i]
		byKey[nsKey{dc.NS, dc.Checkpoint.ID}] = dc.Checkpoint
	}
	for i := range doc.Checkpoints {
		er, err := docRecord(&doc.Checkpoints[i], byKey)
		if err != nil {
			return err
		}
		if err := ew.write(er); err != nil {
			return err
		}
	}
	// Sorted as the bbolt store's export writes them, so that every store
	// writes a thread as the same document.
	orphans := slices.Clone(doc.Orphans)
	slices.SortFunc(orphans, func(a, b DocOrphan) int {
		return cmp.Or(strings.Compare(a.NS, b.NS), strings.Compare(a.Checkpoint, b.Checkpoint))
	})
	for _, o := range orphans {
		if len(o.Writes) == 0 {
			continue // nothing to carry, and Import refuses an empty entry
		}
		eo := &exportOrphan{NS: o.NS, Checkpoint: o.Checkpoint, Writes: make([]exportWrite, 0, len(o.Writes))}
		for _, w := range o.Writes {
			eo.Writes = append(eo.Writes, exportWrite{Task: w.Task, Slot: w.Slot, Channel: w.Channel, Value: w.Value})
		}
		if err := ew.writeOrphan(eo); err != nil {
			return err
		}
	}
	return ew.close(doc.Thread)
}

// docRecord is the export record of dc, its state a delta from its
// parent's when the document has the parent.
func docRecord(dc *DocCheckpoint, byKey map[nsKey]*engine.Checkpoint) (*exportRecord, error) {
	cp := dc.Checkpoint.Materialize()
	mdr, err := encodeMetadata(dc.Metadata)
	if err != nil {
		return nil, err
	}
	er, err := newExportRecord(dc.NS, cp.ID, dc.Parent, cp.V, cp.TS, mdr, cp.UpdatedChannels)
	if err != nil {
		return nil, err
	}
	var base *engine.Checkpoint
	if p := byKey[nsKey{dc.NS, dc.Parent}]; dc.Parent != "" && p != nil {
		base = p.Materialize()
	} else {
		base = &engine.Checkpoint{}
		er.ParentMissing = dc.Parent != ""
	}
	for ch, ver := range cp.ChannelVersions {
		if old, ok := base.ChannelVersions[ch]; ok && old == ver {
			continue // the same version has the same value
		}
		er.Versions[ch] = ver
		val, has := cp.ChannelValues[ch]
		if !has {
			continue
		}
		enc, err := engine.EncodeValue(val)
		if err != nil {
			return nil, err
		}
		var prev []byte
		if pv, ok := base.ChannelValues[ch]; ok && len(enc) > 0 && enc[0] == '[' {
			prev, _ = engine.EncodeValue(pv) // a parent value that does not encode is not a list to extend
		}
		er.setValue(ch, enc, prev)
	}
	er.VersionsRemoved = removedKeys(base.ChannelVersions, cp.ChannelVersions)
	er.setSeen(cp.VersionsSeen, base.VersionsSeen)
	for _, w := range dc.Writes {
		if err := er.addWrite(w.Task, w.Channel, w.Slot, w.Value); err != nil {
			return nil, err
		}
	}
	return er, nil
}
