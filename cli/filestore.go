package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/superstep/superstep/engine"
)

// fileStore is the interim database until the bbolt store lands: a
// MemorySaver loaded from one JSON file at open and written back (atomically,
// by rename) at Close when something changed. It takes no lock on the file,
// keeps nothing of a process killed mid-run, and rewrites the whole file on
// every Close; it exists so the command line and its end-to-end tests work
// across processes today.
type fileStore struct {
	*engine.MemorySaver
	path     string
	readOnly bool
	dirty    atomic.Bool

	mu  sync.Mutex
	fps map[string]string
}

const (
	fileStoreFormat = "superstep-json-db"
	exportFormat    = "superstep-thread"
	dumpVersion     = 1
)

// dbDump is the file layout: every thread as its export.
type dbDump struct {
	Format  string       `json:"format"`
	Version int          `json:"version"`
	Threads []threadDump `json:"threads"`
}

// threadDump is one thread, oldest checkpoint first, so a reader can check
// that every parent comes before its children.
type threadDump struct {
	Format      string           `json:"format,omitempty"`
	Version     int              `json:"version,omitempty"`
	Thread      string           `json:"thread"`
	Fingerprint string           `json:"fingerprint,omitempty"`
	Checkpoints []checkpointDump `json:"checkpoints"`
}

type checkpointDump struct {
	NS       string                      `json:"ns,omitempty"`
	ID       string                      `json:"id"`
	Parent   string                      `json:"parent,omitempty"`
	V        int                         `json:"v"`
	TS       time.Time                   `json:"ts"`
	Values   map[string]json.RawMessage  `json:"values"`
	Versions map[string]int64            `json:"versions"`
	Seen     map[string]map[string]int64 `json:"versions_seen"`
	// Updated keeps nil ("unknown") apart from empty.
	Updated []string                   `json:"updated_channels"`
	Source  string                     `json:"source"`
	Step    int                        `json:"step"`
	Parents map[string]string          `json:"parents,omitempty"`
	Extra   map[string]json.RawMessage `json:"extra,omitempty"`
	Writes  []writeDump                `json:"writes,omitempty"`
}

type writeDump struct {
	Task    string          `json:"task"`
	Channel string          `json:"channel"`
	Value   json.RawMessage `json:"value"`
}

func openFileStore(path string, o storeOptions) (*fileStore, error) {
	s := &fileStore{MemorySaver: engine.NewMemorySaver(), path: path, readOnly: o.ReadOnly, fps: map[string]string{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	var db dbDump
	if err := strictUnmarshal(data, &db); err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrNotDatabase, path, jsonErrorAt(data, err))
	}
	if db.Format != fileStoreFormat {
		return nil, fmt.Errorf("%w: %s has no superstep header (a file of another program?)", ErrNotDatabase, path)
	}
	if db.Version > dumpVersion {
		return nil, fmt.Errorf("%w: %s has layout version %d, newer than this superstep reads (%d)", ErrNotDatabase, path, db.Version, dumpVersion)
	}
	ctx := context.Background()
	for _, t := range db.Threads {
		if err := s.load(ctx, t); err != nil {
			return nil, fmt.Errorf("%w: %s: thread %q: %v", ErrNotDatabase, path, t.Thread, err)
		}
	}
	return s, nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the document")
	}
	return nil
}

func (s *fileStore) writable() error {
	if s.readOnly {
		return ErrReadOnly
	}
	return nil
}

// Put implements engine.Saver.
func (s *fileStore) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, nv map[string]engine.Version) (engine.Config, error) {
	if err := s.writable(); err != nil {
		return engine.Config{}, err
	}
	s.dirty.Store(true)
	return s.MemorySaver.Put(ctx, cfg, cp, md, nv)
}

// PutWrites implements engine.Saver.
func (s *fileStore) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	if err := s.writable(); err != nil {
		return err
	}
	s.dirty.Store(true)
	return s.MemorySaver.PutWrites(ctx, cfg, taskID, writes)
}

// DeleteThread implements engine.Saver.
func (s *fileStore) DeleteThread(ctx context.Context, thread string) error {
	if err := s.writable(); err != nil {
		return err
	}
	s.dirty.Store(true)
	s.mu.Lock()
	delete(s.fps, thread)
	s.mu.Unlock()
	return s.MemorySaver.DeleteThread(ctx, thread)
}

func (s *fileStore) Threads(ctx context.Context) ([]ThreadInfo, error) {
	var out []ThreadInfo
	for _, id := range s.threadIDs() {
		list, err := s.List(ctx, engine.Config{ThreadID: id}, engine.ListOptions{})
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			continue
		}
		latest := list[0]
		out = append(out, ThreadInfo{
			ID: id, Checkpoints: len(list), Latest: latest.Checkpoint.ID,
			Step: latest.Metadata.Step, Source: latest.Metadata.Source, Updated: latest.Checkpoint.TS,
		})
	}
	return out, nil
}

func (s *fileStore) Fingerprint(_ context.Context, thread string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fps[thread], nil
}

func (s *fileStore) SetFingerprint(_ context.Context, thread, fp string) error {
	if err := s.writable(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fps[thread] != fp {
		s.fps[thread] = fp
		s.dirty.Store(true)
	}
	return nil
}

// dump reads a thread back out of the MemorySaver, oldest checkpoint first.
func (s *fileStore) dump(ctx context.Context, thread string) (threadDump, error) {
	list, err := s.List(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{AllNamespaces: true})
	if err != nil {
		return threadDump{}, err
	}
	if len(list) == 0 {
		return threadDump{}, fmt.Errorf("%w: %q", ErrThreadNotFound, thread)
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Checkpoint.ID < list[j].Checkpoint.ID })
	fp, _ := s.Fingerprint(ctx, thread)
	d := threadDump{Thread: thread, Fingerprint: fp}
	for _, t := range list {
		cp, md := t.Checkpoint, t.Metadata
		cd := checkpointDump{
			NS: t.Config.CheckpointNS, ID: cp.ID, Parent: t.ParentID, V: cp.V, TS: cp.TS,
			Values: map[string]json.RawMessage{}, Versions: cp.ChannelVersions, Seen: cp.VersionsSeen,
			Updated: cp.UpdatedChannels, Source: md.Source, Step: md.Step, Parents: md.Parents,
		}
		for k, v := range cp.ChannelValues {
			if cd.Values[k], err = engine.EncodeValue(v); err != nil {
				return threadDump{}, fmt.Errorf("checkpoint %s channel %q: %w", cp.ID, k, err)
			}
		}
		if len(md.Extra) > 0 {
			cd.Extra = map[string]json.RawMessage{}
			for k, v := range md.Extra {
				if cd.Extra[k], err = engine.EncodeValue(v); err != nil {
					return threadDump{}, fmt.Errorf("checkpoint %s metadata %q: %w", cp.ID, k, err)
				}
			}
		}
		for _, w := range t.PendingWrites {
			b, err := engine.EncodeValue(w.Value)
			if err != nil {
				return threadDump{}, fmt.Errorf("checkpoint %s write %s/%s: %w", cp.ID, w.TaskID, w.Channel, err)
			}
			cd.Writes = append(cd.Writes, writeDump{Task: w.TaskID, Channel: w.Channel, Value: b})
		}
		d.Checkpoints = append(d.Checkpoints, cd)
	}
	return d, nil
}

// load validates a thread dump and stores it; nothing is stored when it is
// invalid.
func (s *fileStore) load(ctx context.Context, d threadDump) error {
	type item struct {
		cfg    engine.Config
		cp     *engine.Checkpoint
		md     engine.Metadata
		writes [][]engine.Write
		tasks  []string
	}
	if d.Thread == "" {
		return errors.New("no thread id")
	}
	seen := map[string]bool{}
	var items []item
	for i, c := range d.Checkpoints {
		where := fmt.Sprintf("checkpoint %d (%s)", i, c.ID)
		if c.ID == "" {
			return fmt.Errorf("checkpoint %d has no id", i)
		}
		key := c.NS + "\x00" + c.ID
		if seen[key] {
			return fmt.Errorf("%s appears twice", where)
		}
		if c.Parent != "" && !seen[c.NS+"\x00"+c.Parent] {
			return fmt.Errorf("%s: parent %s is missing or comes after it", where, c.Parent)
		}
		seen[key] = true
		cp := &engine.Checkpoint{
			V: c.V, ID: c.ID, TS: c.TS, ChannelValues: map[string]any{},
			ChannelVersions: nonNil(c.Versions), VersionsSeen: c.Seen, UpdatedChannels: c.Updated,
		}
		if cp.VersionsSeen == nil {
			cp.VersionsSeen = map[string]map[string]engine.Version{}
		}
		for k, raw := range c.Values {
			v, err := engine.DecodeValue(raw)
			if err != nil {
				return fmt.Errorf("%s: channel %q: %v", where, k, err)
			}
			cp.ChannelValues[k] = v
		}
		md := engine.Metadata{Source: c.Source, Step: c.Step, Parents: c.Parents}
		if md.Parents == nil {
			md.Parents = map[string]string{}
		}
		if len(c.Extra) > 0 {
			md.Extra = map[string]any{}
			for k, raw := range c.Extra {
				v, err := engine.DecodeValue(raw)
				if err != nil {
					return fmt.Errorf("%s: metadata %q: %v", where, k, err)
				}
				md.Extra[k] = v
			}
		}
		it := item{cfg: engine.Config{ThreadID: d.Thread, CheckpointNS: c.NS, CheckpointID: c.Parent}, cp: cp, md: md}
		// Writes go back one call per task, in the order they were listed,
		// so each task's regular writes keep their indexes.
		byTask := map[string]int{}
		for _, w := range c.Writes {
			v, err := engine.DecodeValue(w.Value)
			if err != nil {
				return fmt.Errorf("%s: write %s/%s: %v", where, w.Task, w.Channel, err)
			}
			j, ok := byTask[w.Task]
			if !ok {
				j = len(it.tasks)
				byTask[w.Task] = j
				it.tasks = append(it.tasks, w.Task)
				it.writes = append(it.writes, nil)
			}
			it.writes[j] = append(it.writes[j], engine.Write{Channel: w.Channel, Value: v})
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return errors.New("no checkpoints")
	}
	for _, it := range items {
		if _, err := s.MemorySaver.Put(ctx, it.cfg, it.cp, it.md, nil); err != nil {
			return err
		}
		at := engine.Config{ThreadID: it.cfg.ThreadID, CheckpointNS: it.cfg.CheckpointNS, CheckpointID: it.cp.ID}
		for j, task := range it.tasks {
			if err := s.MemorySaver.PutWrites(ctx, at, task, it.writes[j]); err != nil {
				return err
			}
		}
	}
	s.mu.Lock()
	if d.Fingerprint != "" {
		s.fps[d.Thread] = d.Fingerprint
	}
	s.mu.Unlock()
	return nil
}

func nonNil[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return M{}
	}
	return m
}

func (s *fileStore) Export(ctx context.Context, thread string, w io.Writer, fingerprint string) error {
	d, err := s.dump(ctx, thread)
	if err != nil {
		return err
	}
	d.Format, d.Version, d.Fingerprint = exportFormat, dumpVersion, fingerprint
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(d)
}

func (s *fileStore) Import(ctx context.Context, r io.Reader, overwrite bool) (string, error) {
	if err := s.writable(); err != nil {
		return "", err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	var d threadDump
	if err := strictUnmarshal(data, &d); err != nil {
		return "", fmt.Errorf("%w: %s", ErrBadImport, jsonErrorAt(data, err))
	}
	if d.Format != exportFormat {
		return "", fmt.Errorf("%w: format is %q, want %q", ErrBadImport, d.Format, exportFormat)
	}
	if d.Version > dumpVersion {
		return "", fmt.Errorf("%w: version %d is newer than this superstep reads (%d)", ErrBadImport, d.Version, dumpVersion)
	}
	if slices.Contains(s.threadIDs(), d.Thread) {
		if !overwrite {
			return "", fmt.Errorf("%w: %q", ErrThreadExists, d.Thread)
		}
		// Validate into a scratch store first so a bad file never costs
		// the thread it was meant to replace.
		scratch := &fileStore{MemorySaver: engine.NewMemorySaver(), fps: map[string]string{}}
		if err := scratch.load(ctx, d); err != nil {
			return "", fmt.Errorf("%w: %v", ErrBadImport, err)
		}
		if err := s.DeleteThread(ctx, d.Thread); err != nil {
			return "", err
		}
	}
	if err := s.load(ctx, d); err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadImport, err)
	}
	s.dirty.Store(true)
	return d.Thread, nil
}

// Check re-reads the file and verifies that it loads, that every parent is
// stored before its children and that every value decodes. (The engine
// checkpoints values of some channels that have no version yet, such as an
// empty task topic, so a value without a version is not damage.)
func (s *fileStore) Check() error {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var db dbDump
	if err := strictUnmarshal(data, &db); err != nil {
		return fmt.Errorf("%w: %s", ErrNotDatabase, jsonErrorAt(data, err))
	}
	var errs []error
	for _, t := range db.Threads {
		scratch := &fileStore{MemorySaver: engine.NewMemorySaver(), fps: map[string]string{}}
		if err := scratch.load(context.Background(), t); err != nil {
			errs = append(errs, fmt.Errorf("thread %q: %v", t.Thread, err))
		}
	}
	return errors.Join(errs...)
}

// Close writes the database back if anything changed.
func (s *fileStore) Close() error {
	if s.readOnly || !s.dirty.Load() {
		return nil
	}
	ctx := context.Background()
	db := dbDump{Format: fileStoreFormat, Version: dumpVersion, Threads: []threadDump{}}
	for _, id := range s.threadIDs() {
		d, err := s.dump(ctx, id)
		if errors.Is(err, ErrThreadNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		db.Threads = append(db.Threads, d)
	}
	data, err := json.Marshal(db)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".superstep-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return err
	}
	s.dirty.Store(false)
	return nil
}

var _ Store = (*fileStore)(nil)

// threadIDs lists the stored threads (MemorySaver never fails to).
func (s *fileStore) threadIDs() []string {
	ids, _ := s.MemorySaver.Threads(context.Background())
	return ids
}
