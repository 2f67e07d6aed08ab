package persist

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
)

// The export format: one JSON object, self-contained (every checkpoint
// carries its full values), so it can be read without superstep and
// imported into any store.
const (
	ExportFormat  = "superstep-thread"
	ExportVersion = 1
)

// DefaultMaxImportBytes is the largest export Import reads unless
// ImportOptions.MaxBytes says otherwise.
const DefaultMaxImportBytes = 256 << 20

// maxImportCheckpoints bounds the checkpoints of one import.
const maxImportCheckpoints = 1 << 20

// ImportOptions configures Import.
type ImportOptions struct {
	// Overwrite replaces a thread of the same id; without it Import fails
	// with ErrThreadExists.
	Overwrite bool
	// MaxBytes caps the input (default DefaultMaxImportBytes).
	MaxBytes int64
	// Thread, when set, is the id the thread is imported under instead of
	// the exported one (a copy of a thread is an export imported anew).
	Thread string
}

type exportFile struct {
	Format      string             `json:"format"`
	Version     int                `json:"version"`
	Thread      string             `json:"thread"`
	Fingerprint string             `json:"fingerprint"`
	Checkpoints []exportCheckpoint `json:"checkpoints"`
}

type exportCheckpoint struct {
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

// Export writes every checkpoint of a thread, in all namespaces, with its
// metadata, parent, values, versions and pending writes, as one JSON
// document (format ExportFormat, version ExportVersion). fingerprint is
// recorded in it; "" records the thread's stored fingerprint.
//
// It reads one consistent snapshot. Errors: ErrThreadNotFound,
// ErrInvalidID (ids that are not UTF-8 cannot be exported as JSON),
// ErrClosed, ErrCorrupt, the context's error, or w's error.
func (s *Store) Export(ctx context.Context, threadID string, w io.Writer, fingerprint string) error {
	return s.view(ctx, func(tx *bolt.Tx) error {
		tb := tx.Bucket(bucketThreads).Bucket([]byte(threadID))
		if threadID == "" || tb == nil {
			return fmt.Errorf("%w: %q", ErrThreadNotFound, threadID)
		}
		if !utf8.ValidString(threadID) {
			return fmt.Errorf("%w: thread id %q is not UTF-8 and cannot be exported", ErrInvalidID, threadID)
		}
		if fingerprint == "" {
			fp, err := threadKeys(tb, threadID).Get(keyFingerprint)
			if err != nil {
				return err
			}
			fingerprint = string(fp)
		}
		bw := bufio.NewWriter(w)
		head, _ := json.Marshal(struct {
			Format      string `json:"format"`
			Version     int    `json:"version"`
			Thread      string `json:"thread"`
			Fingerprint string `json:"fingerprint"`
		}{ExportFormat, ExportVersion, threadID, fingerprint})
		bw.Write(head[:len(head)-1])
		bw.WriteString(`,"checkpoints":[`)
		n := 0
		err := tb.ForEachBucket(func(name []byte) error {
			if len(name) == 0 || name[0] != 'n' {
				return nil
			}
			ns := string(name[1:])
			b, err := nsIn(tb, threadID, ns, false)
			if err != nil {
				return err
			}
			memo := map[string]*cpState{}
			return b.cps.ForEach(func(k, v []byte) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				ec, err := b.exportCheckpoint(threadID, ns, k, v, memo)
				if err != nil {
					return err
				}
				line, err := json.Marshal(ec)
				if err != nil {
					return err
				}
				if n > 0 {
					bw.WriteByte(',')
				}
				bw.WriteString("\n")
				bw.Write(line)
				n++
				return nil
			})
		})
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%w: %q has no checkpoints", ErrThreadNotFound, threadID)
		}
		bw.WriteString("\n]}\n")
		return bw.Flush()
	})
}

func (b *nsBuckets) exportCheckpoint(thread, ns string, k, v []byte, memo map[string]*cpState) (*exportCheckpoint, error) {
	id, err := parseCheckpointKey(k)
	if err != nil {
		return nil, corruptf("checkpoint key %x: %v", k, err)
	}
	rec, err := decodeRecord(v)
	if err != nil {
		return nil, err
	}
	tup, err := b.tuple(thread, ns, id, rec, memo, nil)
	if err != nil {
		return nil, err
	}
	cp := tup.Checkpoint
	for _, s := range []string{ns, id, rec.Parent} {
		if !utf8.ValidString(s) {
			return nil, fmt.Errorf("%w: %q is not UTF-8 and cannot be exported", ErrInvalidID, s)
		}
	}
	ec := &exportCheckpoint{
		NS: ns, ID: id, Parent: rec.Parent, V: cp.V, TS: cp.TS,
		Metadata: exportMetadata{Source: rec.Meta.Source, Step: rec.Meta.Step, Parents: rec.Meta.Parents, Extra: rec.Meta.Extra},
		Values:   make(map[string]json.RawMessage, len(cp.ChannelValues)),
		Versions: cp.ChannelVersions, VersionsSeen: map[string]map[string]int64{},
		UpdatedChannels: cp.UpdatedChannels,
		Writes:          []exportWrite{},
	}
	for n, m := range cp.VersionsSeen {
		ec.VersionsSeen[n] = m
	}
	for ch, val := range cp.ChannelValues {
		if ec.Values[ch], err = engine.EncodeValue(val); err != nil {
			return nil, err
		}
	}
	writes, err := b.storedWrites(id)
	if err != nil {
		return nil, err
	}
	for _, w := range writes {
		if !utf8.ValidString(w.task) || !utf8.ValidString(w.channel) {
			return nil, fmt.Errorf("%w: write of task %q is not UTF-8 and cannot be exported", ErrInvalidID, w.task)
		}
		ec.Writes = append(ec.Writes, exportWrite{Task: w.task, Slot: w.slot, Channel: w.channel, Value: w.enc})
	}
	return ec, nil
}

// storedWrite is a pending write with its slot and undecoded value.
type storedWrite struct {
	task, channel string
	slot          int64
	enc           []byte // a copy
}

func (b *nsBuckets) storedWrites(id string) ([]storedWrite, error) {
	var out []storedWrite
	err := b.eachWrite(id, func(task string, slot int64, v []byte) error {
		ch, enc, err := splitWrite(v)
		if err != nil {
			return err
		}
		if !json.Valid(enc) {
			return corruptf("write record for %q: value is not JSON", ch)
		}
		out = append(out, storedWrite{task: task, channel: ch, slot: slot, enc: bytes.Clone(enc)})
		return nil
	})
	return out, err
}

// importItem is one validated checkpoint, ready to store.
type importItem struct {
	ns, parent string
	cp         *engine.Checkpoint
	md         mdRecord
	writes     []importWrite
}

type importWrite struct {
	task string
	slot int64
	rec  []byte
}

// Import reads a thread written by Export and stores it under the thread
// id it names, which it returns. The whole input is validated before
// anything is written, and it is written in one transaction: on error the
// store is unchanged.
//
// Errors: ErrImportTooLarge, ErrBadImport (wrapped with the reason),
// ErrThreadExists, ErrReadOnly, ErrClosed, ErrAsyncWrite, the reader's or
// the commit's error.
func (s *Store) Import(ctx context.Context, r io.Reader, opts ImportOptions) (string, error) {
	if err := s.writable(ctx); err != nil {
		return "", err
	}
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxImportBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return "", err
	}
	if int64(len(data)) > limit {
		return "", fmt.Errorf("%w: more than %d bytes", ErrImportTooLarge, limit)
	}
	thread, fp, items, err := parseExport(data)
	if err != nil {
		return "", err
	}
	if opts.Thread != "" {
		if err := checkID("thread id", opts.Thread, maxIDLen, false); err != nil {
			return "", err
		}
		thread = opts.Thread
	}
	err = s.w.submitWait(func(tx *bolt.Tx, rc *cache) error {
		threads := tx.Bucket(bucketThreads)
		caches{rc, s.cache}.dropThread(thread)
		if threads.Bucket([]byte(thread)) != nil {
			if !opts.Overwrite {
				return fmt.Errorf("%w: %q", ErrThreadExists, thread)
			}
			if err := dropThread(tx, thread); err != nil {
				return err
			}
		}
		for _, it := range items {
			if err := s.putTx(tx, rc, thread, it.ns, it.parent, it.cp, it.md); err != nil {
				return err
			}
			if len(it.writes) == 0 {
				continue
			}
			b, err := openNS(tx, thread, it.ns, true)
			if err != nil {
				return err
			}
			for _, w := range it.writes {
				if err := b.writes.Put(writeKey(it.cp.ID, w.task, w.slot), w.rec); err != nil {
					return err
				}
			}
		}
		tb := threads.Bucket([]byte(thread))
		if fp != "" {
			if err := threadKeys(tb, thread).Put(keyFingerprint, []byte(fp)); err != nil {
				return err
			}
		}
		return s.touch(tx, thread)
	})
	if err != nil {
		return "", err
	}
	return thread, nil
}

// parseExport validates an export and returns its checkpoints in an order
// where every parent comes before its children.
func parseExport(data []byte) (thread, fingerprint string, items []importItem, err error) {
	// Read the header loosely first, so a newer version is reported as
	// such rather than as an unknown field.
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return "", "", nil, badImportf("not JSON: %v", err)
	}
	if head.Format != ExportFormat {
		return "", "", nil, badImportf("format is %q, want %q", truncate(head.Format, 40), ExportFormat)
	}
	if head.Version != ExportVersion {
		return "", "", nil, badImportf("export version %d is not supported (this superstep reads version %d)", head.Version, ExportVersion)
	}
	var f exportFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return "", "", nil, badImportf("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", "", nil, badImportf("trailing data after the export")
	}
	if err := checkThreadID(f.Thread); err != nil {
		return "", "", nil, badImportf("%v", err)
	}
	if len(f.Fingerprint) > maxNSLen {
		return "", "", nil, badImportf("fingerprint longer than %d bytes", maxNSLen)
	}
	if len(f.Checkpoints) == 0 {
		return "", "", nil, badImportf("no checkpoints")
	}
	if len(f.Checkpoints) > maxImportCheckpoints {
		return "", "", nil, badImportf("more than %d checkpoints", maxImportCheckpoints)
	}
	type nsKey struct{ ns, id string }
	byKey := make(map[nsKey]int, len(f.Checkpoints))
	items = make([]importItem, len(f.Checkpoints))
	for i := range f.Checkpoints {
		ec := &f.Checkpoints[i]
		it, err := importCheckpoint(ec)
		if err != nil {
			return "", "", nil, badImportf("checkpoint %d (%q): %v", i, truncate(ec.ID, 40), err)
		}
		k := nsKey{ec.NS, ec.ID}
		if _, dup := byKey[k]; dup {
			return "", "", nil, badImportf("checkpoint %q appears twice in namespace %q", truncate(ec.ID, 40), truncate(ec.NS, 40))
		}
		byKey[k] = i
		items[i] = it
	}
	// Order parents before children (Kahn's algorithm, by id for a stable
	// result); a parent that is missing or a cycle is an error.
	children := make(map[int][]int)
	var ready []int
	for i, it := range items {
		if it.parent == "" {
			ready = append(ready, i)
			continue
		}
		p, ok := byKey[nsKey{it.ns, it.parent}]
		if !ok {
			return "", "", nil, badImportf("checkpoint %q: parent %q is not in the export", truncate(it.cp.ID, 40), truncate(it.parent, 40))
		}
		children[p] = append(children[p], i)
	}
	order := make([]importItem, 0, len(items))
	for len(ready) > 0 {
		slices.SortFunc(ready, func(a, b int) int { return compareItems(items[a], items[b]) })
		next := ready[0]
		ready = ready[1:]
		order = append(order, items[next])
		ready = append(ready, children[next]...)
	}
	if len(order) != len(items) {
		return "", "", nil, badImportf("parent links form a cycle")
	}
	return f.Thread, f.Fingerprint, order, nil
}

func compareItems(a, b importItem) int {
	if a.ns != b.ns {
		if a.ns < b.ns {
			return -1
		}
		return 1
	}
	if a.cp.ID < b.cp.ID {
		return -1
	}
	if a.cp.ID > b.cp.ID {
		return 1
	}
	return 0
}

// importCheckpoint validates one exported checkpoint.
func importCheckpoint(ec *exportCheckpoint) (importItem, error) {
	if err := checkID("namespace", ec.NS, maxNSLen, true); err != nil {
		return importItem{}, err
	}
	if err := checkID("checkpoint id", ec.ID, maxIDLen, false); err != nil {
		return importItem{}, err
	}
	if err := checkID("parent id", ec.Parent, maxIDLen, true); err != nil {
		return importItem{}, err
	}
	if ec.Parent == ec.ID {
		return importItem{}, errors.New("checkpoint is its own parent")
	}
	// A newer layout may mean things this build would store wrongly
	// (LangGraph's "v", engine.CheckpointFormat).
	if ec.V > engine.CheckpointFormat {
		return importItem{}, fmt.Errorf("checkpoint format version %d is newer than this superstep reads (%d): import it with a newer superstep", ec.V, engine.CheckpointFormat)
	}
	if ec.V < 0 {
		return importItem{}, fmt.Errorf("checkpoint format version %d is not a version", ec.V)
	}
	if len(ec.Metadata.Source) > 64 {
		return importItem{}, errors.New("metadata source longer than 64 bytes")
	}
	for k, v := range ec.Metadata.Parents {
		if err := checkID("metadata parent namespace", k, maxNSLen, true); err != nil {
			return importItem{}, err
		}
		if err := checkID("metadata parent id", v, maxIDLen, true); err != nil {
			return importItem{}, err
		}
	}
	md := engine.Metadata{Source: ec.Metadata.Source, Step: ec.Metadata.Step, Parents: ec.Metadata.Parents}
	if ec.Metadata.Extra != nil {
		md.Extra = make(map[string]any, len(ec.Metadata.Extra))
		for k, raw := range ec.Metadata.Extra {
			v, err := engine.DecodeValue(raw)
			if err != nil {
				return importItem{}, fmt.Errorf("metadata %q: %v", truncate(k, 40), err)
			}
			md.Extra[k] = v
		}
	}
	mdr, err := encodeMetadata(md)
	if err != nil {
		return importItem{}, err
	}
	cp := &engine.Checkpoint{
		V: ec.V, ID: ec.ID, TS: ec.TS,
		ChannelValues:   make(map[string]any, len(ec.Values)),
		ChannelVersions: make(map[string]engine.Version, len(ec.Versions)),
		VersionsSeen:    make(map[string]map[string]engine.Version, len(ec.VersionsSeen)),
		UpdatedChannels: ec.UpdatedChannels,
	}
	for ch, v := range ec.Versions {
		if err := checkID("channel", ch, maxIDLen, false); err != nil {
			return importItem{}, err
		}
		cp.ChannelVersions[ch] = v
	}
	for ch, raw := range ec.Values {
		if _, ok := ec.Versions[ch]; !ok {
			continue // an initial value: the graph rebuilds it (see Store.Put)
		}
		v, err := engine.DecodeValue(raw)
		if err != nil {
			return importItem{}, fmt.Errorf("value of %q: %v", truncate(ch, 40), err)
		}
		cp.ChannelValues[ch] = v
	}
	for n, m := range ec.VersionsSeen {
		if err := checkID("node", n, maxIDLen, false); err != nil {
			return importItem{}, err
		}
		for ch := range m {
			if err := checkID("channel", ch, maxIDLen, false); err != nil {
				return importItem{}, err
			}
		}
		cp.VersionsSeen[n] = m
	}
	for _, ch := range ec.UpdatedChannels {
		if err := checkID("updated channel", ch, maxIDLen, false); err != nil {
			return importItem{}, err
		}
	}
	it := importItem{ns: ec.NS, parent: ec.Parent, cp: cp, md: mdr}
	type slotKey struct {
		task string
		slot int64
	}
	seen := make(map[slotKey]bool, len(ec.Writes))
	for _, w := range ec.Writes {
		if err := checkID("task id", w.Task, maxIDLen, true); err != nil {
			return importItem{}, err
		}
		if err := checkID("write channel", w.Channel, maxIDLen, false); err != nil {
			return importItem{}, err
		}
		if want := int64(engine.WriteSlot(w.Channel, 0)); want < 0 && w.Slot != want {
			return importItem{}, fmt.Errorf("write to %q has slot %d, want %d", w.Channel, w.Slot, want)
		} else if want >= 0 && (w.Slot < 0 || w.Slot > 1<<31) {
			return importItem{}, fmt.Errorf("write to %q has slot %d", truncate(w.Channel, 40), w.Slot)
		}
		k := slotKey{w.Task, w.Slot}
		if seen[k] {
			return importItem{}, fmt.Errorf("two writes of task %q in slot %d", truncate(w.Task, 40), w.Slot)
		}
		seen[k] = true
		v, err := engine.DecodeValue(w.Value)
		if err != nil {
			return importItem{}, fmt.Errorf("write to %q: %v", truncate(w.Channel, 40), err)
		}
		enc, err := engine.EncodeValue(v)
		if err != nil {
			return importItem{}, err
		}
		it.writes = append(it.writes, importWrite{task: w.Task, slot: w.Slot, rec: encodeWrite(w.Channel, enc)})
	}
	return it, nil
}
