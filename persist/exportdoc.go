package persist

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/superstep/superstep/engine"
)

// ThreadDoc is one thread of an export document (ExportFormat), decoded:
// what another store (persist/postgres) reads and writes so that every
// store exports and imports the one format this package owns.
type ThreadDoc struct {
	Thread      string
	Fingerprint string
	// Checkpoints of every namespace. ReadExport returns them with each
	// parent before its children; WriteExport takes any order.
	Checkpoints []DocCheckpoint
}

// DocCheckpoint is one checkpoint of a ThreadDoc with its saved writes.
type DocCheckpoint struct {
	NS         string
	Parent     string // "" for a root
	Checkpoint *engine.Checkpoint
	Metadata   engine.Metadata
	Writes     []DocWrite
}

// DocWrite is one saved write, in its slot (engine.WriteSlot); Value is the
// engine's encoding (engine.EncodeValue).
type DocWrite struct {
	Task    string
	Slot    int64
	Channel string
	Value   []byte
}

// ReadExport reads and validates an export document, as Import does, without
// storing it. Errors: ErrImportTooLarge (maxBytes, default
// DefaultMaxImportBytes), ErrBadImport wrapped with the reason, or the
// reader's error.
func ReadExport(r io.Reader, maxBytes int64) (*ThreadDoc, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxImportBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrImportTooLarge, maxBytes)
	}
	thread, fp, items, err := parseExport(data)
	if err != nil {
		return nil, err
	}
	doc := &ThreadDoc{Thread: thread, Fingerprint: fp, Checkpoints: make([]DocCheckpoint, len(items))}
	for i, it := range items {
		md, err := decodeMetadata(it.md)
		if err != nil {
			return nil, badImportf("checkpoint %q: %v", truncate(it.cp.ID, 40), err)
		}
		dc := DocCheckpoint{NS: it.ns, Parent: it.parent, Checkpoint: it.cp, Metadata: md}
		for _, w := range it.writes {
			ch, enc, err := splitWrite(w.rec)
			if err != nil {
				return nil, err
			}
			dc.Writes = append(dc.Writes, DocWrite{Task: w.task, Slot: w.slot, Channel: ch, Value: enc})
		}
		doc.Checkpoints[i] = dc
	}
	return doc, nil
}

// WriteExport writes doc as an export document that Import and ReadExport
// read back. Errors: ErrThreadNotFound for a document without checkpoints,
// ErrInvalidID for ids that are not UTF-8 (JSON cannot carry them), an
// encoding error of a value, or w's error.
func WriteExport(w io.Writer, doc *ThreadDoc) error {
	if len(doc.Checkpoints) == 0 {
		return fmt.Errorf("%w: %q has no checkpoints", ErrThreadNotFound, doc.Thread)
	}
	if !utf8.ValidString(doc.Thread) {
		return fmt.Errorf("%w: thread id %q is not UTF-8 and cannot be exported", ErrInvalidID, doc.Thread)
	}
	bw := bufio.NewWriter(w)
	head, _ := json.Marshal(struct {
		Format      string `json:"format"`
		Version     int    `json:"version"`
		Thread      string `json:"thread"`
		Fingerprint string `json:"fingerprint"`
	}{ExportFormat, ExportVersion, doc.Thread, doc.Fingerprint})
	bw.Write(head[:len(head)-1])
	bw.WriteString(`,"checkpoints":[`)
	for i := range doc.Checkpoints {
		ec, err := docCheckpoint(&doc.Checkpoints[i])
		if err != nil {
			return err
		}
		line, err := json.Marshal(ec)
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n")
		bw.Write(line)
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

func docCheckpoint(dc *DocCheckpoint) (*exportCheckpoint, error) {
	cp := dc.Checkpoint.Materialize()
	for _, s := range []string{dc.NS, cp.ID, dc.Parent} {
		if !utf8.ValidString(s) {
			return nil, fmt.Errorf("%w: %q is not UTF-8 and cannot be exported", ErrInvalidID, s)
		}
	}
	mdr, err := encodeMetadata(dc.Metadata)
	if err != nil {
		return nil, err
	}
	ec := &exportCheckpoint{
		NS: dc.NS, ID: cp.ID, Parent: dc.Parent, V: cp.V, TS: cp.TS,
		Metadata:        exportMetadata{Source: mdr.Source, Step: mdr.Step, Parents: mdr.Parents, Extra: mdr.Extra},
		Values:          make(map[string]json.RawMessage, len(cp.ChannelValues)),
		Versions:        cp.ChannelVersions,
		VersionsSeen:    cp.VersionsSeen,
		UpdatedChannels: cp.UpdatedChannels,
		Writes:          make([]exportWrite, 0, len(dc.Writes)),
	}
	if ec.VersionsSeen == nil {
		ec.VersionsSeen = map[string]map[string]int64{}
	}
	for ch, val := range cp.ChannelValues {
		if ec.Values[ch], err = engine.EncodeValue(val); err != nil {
			return nil, err
		}
	}
	for _, w := range dc.Writes {
		if !utf8.ValidString(w.Task) || !utf8.ValidString(w.Channel) {
			return nil, fmt.Errorf("%w: write of task %q is not UTF-8 and cannot be exported", ErrInvalidID, w.Task)
		}
		ec.Writes = append(ec.Writes, exportWrite{Task: w.Task, Slot: w.Slot, Channel: w.Channel, Value: w.Value})
	}
	return ec, nil
}
