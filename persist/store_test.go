package persist_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
)

// openTemp opens a store in a fresh temporary directory and closes it when
// the test ends.
func openTemp(t testing.TB, opts persist.Options) *persist.Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "superstep.db"), opts)
}

func openAt(t testing.TB, path string, opts persist.Options) *persist.Store {
	t.Helper()
	s, err := persist.Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore_SaverSuite(t *testing.T) {
	for _, d := range []persist.Durability{persist.DurabilitySync, persist.DurabilityAsync, persist.DurabilityExit} {
		t.Run(d.String(), func(t *testing.T) {
			opts := persist.Options{Durability: d, NoSync: true}
			enginetest.SaverSuite(t, func(t *testing.T) engine.Saver { return openTemp(t, opts) }, reopenChecked(opts))
		})
	}
}

func TestStore_OutlinerSuite(t *testing.T) {
	opts := persist.Options{NoSync: true}
	enginetest.OutlinerSuite(t, func(t *testing.T) engine.Saver { return openTemp(t, opts) }, reopenChecked(opts))
}

// reopenChecked closes a suite's store, opens its file again with opts
// and checks it.
func reopenChecked(opts persist.Options) func(t *testing.T, s engine.Saver) engine.Saver {
	return func(t *testing.T, s engine.Saver) engine.Saver {
		st := s.(*persist.Store)
		if err := st.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		re := openAt(t, st.Path(), opts)
		if err := re.Check(); err != nil {
			t.Fatalf("Check after reopen: %v", err)
		}
		return re
	}
}

var ctx = context.Background()

func id(n int) string { return fmt.Sprintf("%032x", n) }

// chain is enginetest.Conversation, compact under the race detector.
func chain(t testing.TB, s engine.Saver, th string, n int) []*engine.Checkpoint {
	t.Helper()
	return enginetest.Conversation(t, s, th, n, raceEnabled)
}

func TestOpen_LockTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	openAt(t, path, persist.Options{})
	start := time.Now()
	s, err := persist.Open(path, persist.Options{Timeout: 50 * time.Millisecond})
	if err == nil {
		s.Close()
		t.Fatal("second Open of a locked file succeeded")
	}
	if !errors.Is(err, persist.ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	// The holder is this test's own process: the error says so, rather
	// than that another process holds the file (cli's tests, which run
	// the command as a process of its own, check that message).
	if want := "database " + path + " is already open in this process, pid " + strconv.Itoa(os.Getpid()); !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
	if !strings.Contains(err.Error(), "share that Store") {
		t.Errorf("error %q does not say to share the open Store", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Open took %v to give up, want about the 50ms timeout", d)
	}
}

func TestOpen_Garbage(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"short":  []byte("not a database"),
		"text":   bytes.Repeat([]byte("hello, world\n"), 1000),
		"zeros":  make([]byte, 64<<10),
		"random": randomBytes(64 << 10),
		"page":   randomBytes(4096),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := persist.Open(path, persist.Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open of a garbage file succeeded")
			}
			if !errors.Is(err, persist.ErrNotDatabase) {
				t.Errorf("Open: %v, want ErrNotDatabase", err)
			}
			var oe *persist.OpenError
			if !errors.As(err, &oe) || oe.Path != path {
				t.Errorf("Open: %v is not an *OpenError naming the file", err)
			}
		})
	}
}

func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestOpen_ForeignBolt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "foreign.db")
	writeForeignBolt(t, path)
	for _, ro := range []bool{false, true} {
		if _, err := persist.Open(path, persist.Options{ReadOnly: ro}); !errors.Is(err, persist.ErrForeign) {
			t.Errorf("Open(read-only %v): %v, want ErrForeign", ro, err)
		}
	}
}

// rawUpdate edits a closed store's file with bbolt directly.
func rawUpdate(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

func TestOpen_NewerFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "newer.db")
	s := openAt(t, path, persist.Options{})
	s.Close()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		// A newer build seals its layout as this one does.
		meta := tx.Bucket([]byte("meta"))
		if err := meta.Put([]byte("seal"), persist.LayoutSealForTest([]byte("superstep"), []byte{0, 0, 0, 7})); err != nil {
			return err
		}
		return meta.Put([]byte("layout"), []byte{0, 0, 0, 7})
	})
	_, err := persist.Open(path, persist.Options{})
	var fe *persist.FormatError
	if !errors.Is(err, persist.ErrNewerFormat) || !errors.As(err, &fe) || fe.Found != 7 || fe.Supported != 3 {
		t.Fatalf("Open: %v, want a FormatError for layout 7 (this build: 3)", err)
	}
	// The message names the file and both versions.
	for _, want := range []string{path, "layout version 7", "(3)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open: %q does not say %q", err, want)
		}
	}
	if _, err := persist.Open(path, persist.Options{ReadOnly: true}); !errors.Is(err, persist.ErrNewerFormat) {
		t.Errorf("read-only Open: %v, want ErrNewerFormat", err)
	}
}

func TestStore_UnknownValueFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openAt(t, path, persist.Options{NoSync: true})
	chain(t, s, "t", 3)
	s.Close()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		cps := persist.RawRecordsForTest(tx, "t", "", "cp")
		k, v := cps.Last()
		// A newer build's record: another format byte, sealed.
		v = v[:len(v)-4]
		v[0] = 200
		return cps.Put(k, persist.SealCheckpointForTest("t", "", k, v))
	})
	s = openAt(t, path, persist.Options{})
	if _, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"}); !errors.Is(err, persist.ErrUnknownValueFormat) {
		t.Errorf("GetTuple: %v, want ErrUnknownValueFormat", err)
	}
	if err := s.Check(); !errors.Is(err, persist.ErrCorrupt) || !errors.Is(err, persist.ErrUnknownValueFormat) {
		t.Errorf("Check: %v, want ErrCorrupt wrapping ErrUnknownValueFormat", err)
	}
}

func TestOpen_ReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ro.db")
	s := openAt(t, path, persist.Options{NoSync: true})
	chain(t, s, "t", 2)
	s.Close()
	ro := openAt(t, path, persist.Options{ReadOnly: true})
	// A shared lock: a second reader may open it too.
	openAt(t, path, persist.Options{ReadOnly: true})
	if tup, err := ro.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil || tup == nil || tup.Config.CheckpointID != id(2) {
		t.Fatalf("GetTuple on a read-only store: %v, %v", tup, err)
	}
	if err := ro.PutWrites(ctx, engine.Config{ThreadID: "t", CheckpointID: id(2)}, "x", []engine.Write{{Channel: "a", Value: 1}}); !errors.Is(err, persist.ErrReadOnly) {
		t.Errorf("PutWrites on a read-only store: %v, want ErrReadOnly", err)
	}
	if err := ro.DeleteThread(ctx, "t"); !errors.Is(err, persist.ErrReadOnly) {
		t.Errorf("DeleteThread on a read-only store: %v, want ErrReadOnly", err)
	}
	if err := ro.Check(); err != nil {
		t.Errorf("Check on a read-only store: %v", err)
	}
}

func TestOpen_CreatesDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "superstep.db")
	openAt(t, path, persist.Options{})
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("SUPERSTEP_DB", "/tmp/x/explicit.db")
	t.Setenv("XDG_DATA_HOME", "/xdg")
	t.Setenv("HOME", "/home/u")
	check := func(want string) {
		t.Helper()
		if got, err := persist.DefaultPath(); err != nil || got != want {
			t.Errorf("DefaultPath() = %q, %v; want %q", got, err, want)
		}
	}
	check("/tmp/x/explicit.db")
	t.Setenv("SUPERSTEP_DB", "")
	check("/xdg/superstep/superstep.db")
	t.Setenv("XDG_DATA_HOME", "relative/ignored")
	check("/home/u/.local/share/superstep/superstep.db")
	t.Setenv("XDG_DATA_HOME", "")
	check("/home/u/.local/share/superstep/superstep.db")
}

func TestStore_Closed(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	chain(t, s, "t", 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"}); !errors.Is(err, persist.ErrClosed) {
		t.Errorf("GetTuple after Close: %v", err)
	}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "t"}, &engine.Checkpoint{ID: id(9)}, engine.Metadata{}, nil); !errors.Is(err, persist.ErrClosed) {
		t.Errorf("Put after Close: %v", err)
	}
	if _, err := s.Threads(ctx); !errors.Is(err, persist.ErrClosed) {
		t.Errorf("Threads after Close: %v", err)
	}
}

func TestStore_PutRejects(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	good := &engine.Checkpoint{ID: id(1), ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}}
	for name, tc := range map[string]struct {
		cfg  engine.Config
		cp   *engine.Checkpoint
		want error
	}{
		"empty thread":   {engine.Config{}, good, persist.ErrInvalidID},
		"empty id":       {engine.Config{ThreadID: "t"}, &engine.Checkpoint{}, persist.ErrInvalidID},
		"long id":        {engine.Config{ThreadID: "t"}, &engine.Checkpoint{ID: strings.Repeat("x", 2000)}, persist.ErrInvalidID},
		"own parent":     {engine.Config{ThreadID: "t", CheckpointID: id(1)}, good, persist.ErrInvalidCheckpoint},
		"nil checkpoint": {engine.Config{ThreadID: "t"}, nil, persist.ErrInvalidCheckpoint},
		"unencodable value": {engine.Config{ThreadID: "t"}, &engine.Checkpoint{ID: id(1),
			ChannelValues: map[string]any{"a": math.NaN()}, ChannelVersions: map[string]engine.Version{"a": 1}}, persist.ErrInvalidCheckpoint},
	} {
		if _, err := s.Put(ctx, tc.cfg, tc.cp, engine.Metadata{}, nil); !errors.Is(err, tc.want) {
			t.Errorf("%s: Put: %v, want %v", name, err, tc.want)
		}
	}
	if err := s.PutWrites(ctx, engine.Config{ThreadID: "t", CheckpointID: id(1)}, "task", []engine.Write{{Channel: "a", Value: math.Inf(1)}}); !errors.Is(err, persist.ErrInvalidCheckpoint) {
		t.Errorf("PutWrites of an unencodable value: %v", err)
	}
	if th, err := s.Threads(ctx); err != nil || len(th) != 0 {
		t.Errorf("rejected puts left threads behind: %v, %v", th, err)
	}
	// Reads of the empty thread id find nothing rather than failing.
	if tup, err := s.GetTuple(ctx, engine.Config{}); tup != nil || err != nil {
		t.Errorf("GetTuple of the empty thread = %v, %v", tup, err)
	}
	if l, err := s.List(ctx, engine.Config{}, engine.ListOptions{AllNamespaces: true}); len(l) != 0 || err != nil {
		t.Errorf("List of the empty thread = %v, %v", l, err)
	}
	if err := s.DeleteThread(ctx, ""); err != nil {
		t.Errorf("DeleteThread(\"\") = %v", err)
	}
}

func TestStore_Durability(t *testing.T) {
	for _, d := range []persist.Durability{persist.DurabilitySync, persist.DurabilityAsync, persist.DurabilityExit} {
		t.Run(d.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.db")
			s := openAt(t, path, persist.Options{Durability: d, NoSync: true})
			cps := chain(t, s, "t", 20)
			// Reads see writes that are still queued.
			tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
			if err != nil || tup == nil || tup.Config.CheckpointID != cps[19].ID || len(tup.PendingWrites) != 1 {
				t.Fatalf("GetTuple before Flush: %v, %v", tup, err)
			}
			chain(t, s, "u", 5)
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			chain(t, s, "v", 5)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s = openAt(t, path, persist.Options{ReadOnly: true})
			for _, th := range []string{"t", "u", "v"} {
				if tup, err := s.GetTuple(ctx, engine.Config{ThreadID: th}); err != nil || tup == nil {
					t.Errorf("thread %s after reopen: %v, %v", th, tup, err)
				}
			}
		})
	}
	if d, err := persist.ParseDurability("async"); err != nil || d != persist.DurabilityAsync {
		t.Errorf("ParseDurability(async) = %v, %v", d, err)
	}
	if _, err := persist.ParseDurability("sometimes"); err == nil {
		t.Error("ParseDurability accepted an unknown mode")
	}
}

// TestStore_AsyncFailureIsSticky makes a buffered write fail (a thread id
// bucket that exists as a plain key cannot be opened) and checks that the
// failure surfaces from Flush and later writes.
func TestStore_AsyncFailureIsSticky(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	s := openAt(t, path, persist.Options{NoSync: true})
	s.Close()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("threads")).Put([]byte("bad"), []byte("not a bucket"))
	})
	s = openAt(t, path, persist.Options{Durability: persist.DurabilityAsync, NoSync: true})
	cp := &engine.Checkpoint{ID: id(1), ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "bad"}, cp, engine.Metadata{}, nil); err != nil {
		t.Fatalf("async Put returned %v before committing", err)
	}
	if err := s.Flush(); !errors.Is(err, persist.ErrAsyncWrite) {
		t.Fatalf("Flush: %v, want ErrAsyncWrite", err)
	}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "good"}, cp, engine.Metadata{}, nil); !errors.Is(err, persist.ErrAsyncWrite) {
		t.Errorf("Put after a failed async write: %v, want ErrAsyncWrite", err)
	}
	if err := s.Close(); !errors.Is(err, persist.ErrAsyncWrite) {
		t.Errorf("Close: %v, want ErrAsyncWrite", err)
	}
}

func TestStore_ThreadsTreeChildren(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := openTemp(t, persist.Options{NoSync: true, Now: func() time.Time { return now }})
	chain(t, s, "alpha", 5)
	// A fork from checkpoint 3 of alpha.
	fork := &engine.Checkpoint{V: 4, ID: id(10), ChannelValues: map[string]any{"step": 99.0}, ChannelVersions: map[string]engine.Version{"step": 6}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "alpha", CheckpointID: id(3)}, fork, engine.Metadata{Source: engine.SourceFork, Step: 3}, nil); err != nil {
		t.Fatal(err)
	}
	// t1 waits for an answer; t2 finished beside it.
	if err := s.PutWrites(ctx, engine.Config{ThreadID: "alpha", CheckpointID: id(10)}, "t1",
		[]engine.Write{{Channel: engine.InterruptChannel, Value: []engine.Interruption{{ID: "i", Value: "ok?"}}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutWrites(ctx, engine.Config{ThreadID: "alpha", CheckpointID: id(10)}, "t2",
		[]engine.Write{{Channel: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	// A subgraph namespace in alpha, and a second thread.
	sub := &engine.Checkpoint{V: 4, ID: id(11), ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "alpha", CheckpointNS: "inner:1"}, sub, engine.Metadata{Source: engine.SourceLoop}, nil); err != nil {
		t.Fatal(err)
	}
	chain(t, s, "beta", 2)
	if err := s.SetFingerprint(ctx, "beta", "sha256:abc"); err != nil {
		t.Fatal(err)
	}

	threads, err := s.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []persist.ThreadInfo{
		{ID: "alpha", Checkpoints: 6, Namespaces: 2, LastID: id(10), LastStep: 3, LastSource: engine.SourceFork,
			PendingWrites: 2, Interrupted: true, Updated: now},
		{ID: "beta", Checkpoints: 2, Namespaces: 1, LastID: id(2), LastStep: 1, LastSource: engine.SourceLoop,
			LastTS: time.Unix(1700000000, 2).UTC(), PendingWrites: 1, Fingerprint: "sha256:abc", Updated: now},
	}
	if len(threads) != 2 {
		t.Fatalf("Threads: %+v", threads)
	}
	for i := range want {
		if got := threads[i]; got.ID != want[i].ID || got.Checkpoints != want[i].Checkpoints || got.Namespaces != want[i].Namespaces ||
			got.LastID != want[i].LastID || got.LastStep != want[i].LastStep || got.LastSource != want[i].LastSource ||
			!got.LastTS.Equal(want[i].LastTS) || got.PendingWrites != want[i].PendingWrites || got.Interrupted != want[i].Interrupted ||
			got.Fingerprint != want[i].Fingerprint || !got.Updated.Equal(want[i].Updated) {
			t.Errorf("Threads[%d] =\n %+v\nwant\n %+v", i, got, want[i])
		}
	}

	tree, err := s.Tree(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range tree {
		got = append(got, fmt.Sprintf("%d<-%d %s/%d", idNum(n.ID), idNum(n.ParentID), n.Source, n.Step))
	}
	if w := []string{"1<-0 loop/0", "2<-1 loop/1", "3<-2 loop/2", "4<-3 loop/3", "5<-4 loop/4", "10<-3 fork/3"}; !slices.Equal(got, w) {
		t.Errorf("Tree = %v, want %v", got, w)
	}
	kids, err := s.Children(ctx, engine.Config{ThreadID: "alpha", CheckpointID: id(3)})
	if err != nil || !slices.Equal(kids, []string{id(4), id(10)}) {
		t.Errorf("Children(3) = %v, %v", kids, err)
	}
	if kids, err := s.Children(ctx, engine.Config{ThreadID: "alpha", CheckpointID: id(5)}); err != nil || len(kids) != 0 {
		t.Errorf("Children(5) = %v, %v", kids, err)
	}
	pws, err := s.PendingWrites(ctx, engine.Config{ThreadID: "alpha"})
	if err != nil || len(pws) != 2 || pws[0].Channel != engine.InterruptChannel || pws[1].Channel != "x" {
		t.Errorf("PendingWrites(latest) = %v, %v", pws, err)
	}
	if fp, err := s.Fingerprint(ctx, "beta"); err != nil || fp != "sha256:abc" {
		t.Errorf("Fingerprint(beta) = %q, %v", fp, err)
	}
	if fp, err := s.Fingerprint(ctx, "nope"); err != nil || fp != "" {
		t.Errorf("Fingerprint(nope) = %q, %v", fp, err)
	}
	if tree, err := s.Tree(ctx, "nope"); err != nil || len(tree) != 0 {
		t.Errorf("Tree(nope) = %v, %v", tree, err)
	}
}

func idNum(s string) int {
	var n int
	fmt.Sscanf(s, "%x", &n)
	return n
}

// TestStore_GrowingMessages is the append-compaction check: a thread that
// appends one message per checkpoint reads back exactly, and its file stays
// small and grows roughly linearly.
func TestStore_GrowingMessages(t *testing.T) {
	sizes := map[int]int64{}
	for _, n := range []int{100, 1000} {
		path := filepath.Join(t.TempDir(), "grow.db")
		s := openAt(t, path, persist.Options{NoSync: true})
		cps := chain(t, s, "t", n)
		for _, i := range []int{0, 1, 62, 63, 64, 65, n / 2, n - 2, n - 1} {
			tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "t", CheckpointID: cps[i].ID})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tup.Checkpoint.ChannelValues, cps[i].ChannelValues) {
				t.Fatalf("checkpoint %d of %d reads back wrong", i+1, n)
			}
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		sizes[n] = fi.Size()
		// bbolt grows its file in powers of two; blocks show what was written.
		allocated := allocatedBytes(fi)
		t.Logf("%4d checkpoints: file %7d bytes, %7s bytes allocated", n, fi.Size(), allocated)
	}
	if sizes[1000] >= 4<<20 {
		t.Errorf("1000 checkpoints take %d bytes, want < 4 MiB", sizes[1000])
	}
	if sizes[1000] > 15*sizes[100] {
		t.Errorf("1000 checkpoints take %d bytes, more than 15× the %d of 100", sizes[1000], sizes[100])
	}
}

// A channel without a version holds its initial value, which the graph
// rebuilds: the engine checkpoints such values (as LangGraph.js does) and
// the store accepts them without storing them.
func TestStore_PutSkipsInitialValues(t *testing.T) {
	ctx := context.Background()
	s, err := persist.Open(filepath.Join(t.TempDir(), "db"), persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cp := &engine.Checkpoint{ID: id(1), ChannelValues: map[string]any{"a": 1.0, "topic": []any{}}, ChannelVersions: map[string]engine.Version{"a": 1}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "t"}, cp, engine.Metadata{}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, stored := got.Checkpoint.ChannelValues["topic"]; stored || got.Checkpoint.ChannelValues["a"] != 1.0 {
		t.Fatalf("values read back: %v", got.Checkpoint.ChannelValues)
	}
}

// TestStore_SetDurability switches the mode while threads write (the
// debugger's run settings do it between runs): every write reaches the
// file, Durability reports the mode set, and the race detector sees the
// switch guarded.
func TestStore_SetDurability(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.db")
	s := openAt(t, path, persist.Options{Durability: persist.DurabilityExit, NoSync: true})
	chain(t, s, "t", 5)
	modes := []persist.Durability{persist.DurabilityAsync, persist.DurabilitySync, persist.DurabilityExit, persist.DurabilityAsync, persist.DurabilitySync}
	done := make(chan error)
	go func() {
		for _, d := range modes {
			if err := s.SetDurability(d); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	chain(t, s, "u", 20)
	if err := <-done; err != nil {
		t.Fatalf("SetDurability: %v", err)
	}
	if got := s.Durability(); got != persist.DurabilitySync {
		t.Errorf("Durability() = %v after setting sync", got)
	}
	chain(t, s, "v", 3)
	if err := s.SetDurability(persist.Durability(9)); err == nil {
		t.Error("SetDurability accepted an unknown mode")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDurability(persist.DurabilityAsync); !errors.Is(err, persist.ErrClosed) {
		t.Errorf("SetDurability after Close = %v, want ErrClosed", err)
	}
	s = openAt(t, path, persist.Options{ReadOnly: true})
	for th, n := range map[string]int{"t": 5, "u": 20, "v": 3} {
		h, err := s.List(ctx, engine.Config{ThreadID: th}, engine.ListOptions{})
		if err != nil || len(h) != n {
			t.Errorf("thread %s after reopen: %d checkpoints, %v; want %d", th, len(h), err, n)
		}
	}
	if err := s.SetDurability(persist.DurabilitySync); !errors.Is(err, persist.ErrReadOnly) {
		t.Errorf("SetDurability on a read-only store = %v, want ErrReadOnly", err)
	}
}
