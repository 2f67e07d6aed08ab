package persist_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
)

// The threads of testdata/layout2.db, a layout 2 file written by the
// build before layout 3 (superstep run of approve, research with a fork,
// mapreduce, hostile_names and two subgraph scenarios), and their exports
// by that build (testdata/layout2/THREAD.json).
var layout2Threads = []string{"approve", "grandchild", "hostile", "mapreduce", "research", "sub"}

// copyLayout2 copies the layout 2 fixture to a temporary file.
func copyLayout2(t *testing.T) string { return copyFixture(t, "layout2.db") }

// copyFixture copies testdata/name to a temporary file, which tests may
// write.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func wantExport(t *testing.T, thread string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "layout2", thread+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(data)
}

func exportOf(t *testing.T, s *persist.Store, thread string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Export(ctx, thread, &buf, ""); err != nil {
		t.Fatalf("Export %q: %v", thread, err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

// fileLayout reads the layout version of the file at path.
func fileLayout(t *testing.T, path string) uint32 {
	t.Helper()
	var layout uint32
	rawView(t, path, func(tx *bolt.Tx) error {
		layout = persist.Layout(tx)
		return nil
	})
	return layout
}

func rawView(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(fn); err != nil {
		t.Fatal(err)
	}
}

// TestLayout2_ReadAsWritten: every thread of a layout 2 file reads back
// as the build that wrote it exported it, in every namespace, through
// Export, List, Heads, Tree, Children and Threads, read-only and
// writable; and the file stays layout 2.
func TestLayout2_ReadAsWritten(t *testing.T) {
	path := copyLayout2(t)
	for _, readOnly := range []bool{true, false} {
		s := openAt(t, path, persist.Options{ReadOnly: readOnly, NoSync: true})
		if err := s.Check(); err != nil {
			t.Fatalf("Check (read-only %v): %v", readOnly, err)
		}
		infos, err := s.Threads(ctx)
		if err != nil || len(infos) != len(layout2Threads) {
			t.Fatalf("Threads: %d, %v; want %d", len(infos), err, len(layout2Threads))
		}
		for i, th := range layout2Threads {
			want := wantExport(t, th)
			sameExport(t, th, exportOf(t, s, th), want)
			all, err := s.List(ctx, engine.Config{ThreadID: th}, engine.ListOptions{AllNamespaces: true})
			if err != nil {
				t.Fatalf("List %q: %v", th, err)
			}
			n, root := exportedCheckpoints(t, want)
			if len(all) != n {
				t.Errorf("List %q: %d checkpoints in every namespace, its export has %d", th, len(all), n)
			}
			heads, err := s.Heads(ctx, engine.Config{ThreadID: th})
			if err != nil || len(heads) != root {
				t.Errorf("Heads %q: %d, %v; want %d", th, len(heads), err, root)
			}
			tree, err := s.Tree(ctx, th)
			if err != nil || len(tree) != root {
				t.Errorf("Tree %q: %d, %v; want %d", th, len(tree), err, root)
			}
			for _, n := range tree {
				if n.ParentID == "" {
					continue
				}
				kids, err := s.Children(ctx, engine.Config{ThreadID: th, CheckpointID: n.ParentID})
				if err != nil || !containsString(kids, n.ID) {
					t.Errorf("Children of %q in %q: %v, %v; want %q among them", n.ParentID, th, kids, err, n.ID)
				}
			}
			if infos[i].ID != th || infos[i].Checkpoints != root || infos[i].Err != nil {
				t.Errorf("Threads[%d] = %+v, want %q with %d checkpoints", i, infos[i], th, root)
			}
		}
		s.Close()
	}
	if got := fileLayout(t, path); got != 2 {
		t.Fatalf("layout after reading: %d, want 2", got)
	}
}

// sameExport compares two exports of a thread as JSON values: the
// command that wrote the fixtures escapes characters a terminal would
// act on, which Export leaves as they are.
func sameExport(t *testing.T, thread string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("export of %q differs from the one its build made:\n got %.400s\nwant %.400s", thread, got, want)
	}
}

// exportedCheckpoints counts an export's checkpoints, all and in the
// root namespace.
func exportedCheckpoints(t *testing.T, export []byte) (all, root int) {
	t.Helper()
	var doc struct {
		Checkpoints []struct {
			NS string `json:"ns"`
		} `json:"checkpoints"`
	}
	if err := json.Unmarshal(export, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Checkpoints {
		if c.NS == "" {
			root++
		}
	}
	return len(doc.Checkpoints), root
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestLayout2_KeepsItsLayout: writing to a layout 2 file (new threads, a
// thread continued, a thread deleted and made again) writes layout 2:
// builds that know only layout 2 still open it, and it checks clean.
func TestLayout2_KeepsItsLayout(t *testing.T) {
	path := copyLayout2(t)
	s := openAt(t, path, persist.Options{NoSync: true})
	chain(t, s, "new", 4)
	last, err := s.GetTuple(ctx, engine.Config{ThreadID: "research"})
	if err != nil || last == nil {
		t.Fatalf("GetTuple research: %v", err)
	}
	cp := *last.Checkpoint
	cp.ID = "ffffffff-ffff-ffff-ffff-ffffffffffff"
	cp.ChannelValues = maps.Clone(cp.ChannelValues)
	cp.ChannelVersions = maps.Clone(cp.ChannelVersions)
	cp.ChannelValues["question"] = "continued"
	cp.ChannelVersions["question"] += 100
	if _, err := s.Put(ctx, last.Config, &cp, engine.Metadata{Source: engine.SourceUpdate, Step: 99}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.PutWrites(ctx, engine.Config{ThreadID: "research", CheckpointID: cp.ID}, "task", []engine.Write{{Channel: "question", Value: "w"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteThread(ctx, "approve"); err != nil {
		t.Fatal(err)
	}
	chain(t, s, "approve", 2)
	if err := s.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "research"})
	if err != nil || tup.Checkpoint.ID != cp.ID || tup.Checkpoint.ChannelValues["question"] != "continued" || len(tup.PendingWrites) != 1 {
		t.Fatalf("GetTuple research after the write: %+v, %v", tup, err)
	}
	s.Close()
	if got := fileLayout(t, path); got != 2 {
		t.Fatalf("layout after writing: %d, want 2", got)
	}
	rawView(t, path, func(tx *bolt.Tx) error {
		for _, th := range []string{"new", "approve", "research"} {
			if tx.Bucket([]byte("threads")).Bucket([]byte(th)).Bucket([]byte("n")).Bucket([]byte("cp")) == nil {
				t.Errorf("thread %q has no layout 2 cp bucket", th)
			}
		}
		return nil
	})
}

// TestLayout2_ImportedIntoLayout3: a layout 2 thread exported and
// imported into a new file is stored in layout 3 and exports the same.
func TestLayout2_ImportedIntoLayout3(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	s := openAt(t, path, persist.Options{NoSync: true})
	for _, th := range layout2Threads {
		want := wantExport(t, th)
		if _, err := s.Import(ctx, bytes.NewReader(want), persist.ImportOptions{}); err != nil {
			t.Fatalf("Import %q: %v", th, err)
		}
		sameExport(t, th, exportOf(t, s, th), want)
	}
	if err := s.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	s.Close()
	if got := fileLayout(t, path); got != 3 {
		t.Fatalf("layout of a new file: %d, want 3", got)
	}
	rawView(t, path, func(tx *bolt.Tx) error {
		tb := tx.Bucket([]byte("threads")).Bucket([]byte("grandchild"))
		if tb.Bucket([]byte("n")) != nil {
			t.Errorf("layout 3 thread has a root namespace bucket")
		}
		return tb.ForEachBucket(func(name []byte) error {
			nb := tb.Bucket(name)
			return nb.ForEachBucket(func(sub []byte) error {
				t.Errorf("layout 3 namespace %q has a bucket %q", name, sub)
				return nil
			})
		})
	})
}

// TestLayout3_SaverSuiteOnLayout2: the saver suite passes on a layout 2
// file too (its own threads beside the fixture's), so the nested branch
// stays as correct as the ordered one.
func TestLayout3_SaverSuiteOnLayout2(t *testing.T) {
	opts := persist.Options{NoSync: true}
	enginetest.SaverSuite(t,
		func(t *testing.T) engine.Saver { return openAt(t, copyLayout2(t), opts) },
		func(t *testing.T, s engine.Saver) engine.Saver {
			st := s.(*persist.Store)
			if err := st.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if got := fileLayout(t, st.Path()); got != 2 {
				t.Fatalf("layout: %d, want 2", got)
			}
			re := openAt(t, st.Path(), opts)
			if err := re.Check(); err != nil {
				t.Fatalf("Check after reopen: %v", err)
			}
			return re
		})
}

// TestCheck_OrderedLayoutRules: in layout 3, a key of no known kind in a
// thread's or namespace's bucket, a bucket inside a namespace's bucket,
// a root namespace bucket, and a value a checkpoint names that is gone
// are each reported, naming the thread.
func TestCheck_OrderedLayoutRules(t *testing.T) {
	cases := map[string]struct {
		damage func(tx *bolt.Tx) error
		want   string
	}{
		"a record key of an unknown kind": {func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("threads")).Bucket([]byte("t")).Put([]byte("rx\x00\x00z"), []byte("v"))
		}, `thread "t": unknown key "rx\x00\x00z"`},
		"a value key cut short": {func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("threads")).Bucket([]byte("t")).Put([]byte("b\x80\x00"), []byte("v"))
		}, `thread "t": unknown key`},
		"a key in a namespace's bucket": {func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("threads")).Bucket([]byte("t")).Bucket([]byte("nsub")).Put([]byte("cp"), []byte("v"))
		}, `thread "t" namespace "sub": unknown key "cp"`},
		"a bucket in a namespace's bucket": {func(tx *bolt.Tx) error {
			_, err := tx.Bucket([]byte("threads")).Bucket([]byte("t")).Bucket([]byte("nsub")).CreateBucket([]byte("cp"))
			return err
		}, `thread "t" namespace "sub": unknown bucket "cp"`},
		"a root namespace bucket": {func(tx *bolt.Tx) error {
			_, err := tx.Bucket([]byte("threads")).Bucket([]byte("t")).CreateBucket([]byte("n"))
			return err
		}, `thread "t": unknown bucket "n"`},
		"a checkpoint record cut short": {func(tx *bolt.Tx) error {
			cps := persist.RawRecordsForTest(tx, "t", "sub", "cp")
			k, v := cps.Last()
			return cps.Put(k, v[:len(v)-3])
		}, `thread "t" namespace "sub": the record of checkpoint`},
		"a root write cut short": {func(tx *bolt.Tx) error {
			ws := persist.RawRecordsForTest(tx, "t", "", "w")
			k, v := ws.First()
			if k == nil {
				return errors.New("no write to damage")
			}
			return ws.Put(k, v[:1])
		}, `thread "t": write 0 of task`},
		"a value moved to another version": {func(tx *bolt.Tx) error {
			blobs := persist.RawRecordsForTest(tx, "t", "", "blob")
			k, v := blobs.Last()
			if err := blobs.Delete(k); err != nil {
				return err
			}
			k[len(k)-9]++ // the version's last byte (then the seq's 8)
			return blobs.Put(k, v)
		}, `thread "t": the value of "step" at version 4/0 fails its checksum`},
		"a value gone": {func(tx *bolt.Tx) error {
			blobs := persist.RawRecordsForTest(tx, "t", "sub", "blob")
			k, _ := blobs.Last()
			return blobs.Delete(k)
		}, `is missing`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.db")
			s := openAt(t, path, persist.Options{NoSync: true})
			chain(t, s, "t", 3)
			enginetest.Conversation(t, namespaced{s, "sub"}, "t", 3, true)
			if err := s.Check(); err != nil {
				t.Fatalf("Check before the damage: %v", err)
			}
			s.Close()
			rawUpdate(t, path, c.damage)
			s = openAt(t, path, persist.Options{ReadOnly: true})
			err := s.Check()
			if !errors.Is(err, persist.ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check: %v, want ErrCorrupt saying %s", err, c.want)
			}
		})
	}
}

// namespaced is a saver whose Put and PutWrites go to namespace ns.
type namespaced struct {
	*persist.Store
	ns string
}

func (n namespaced) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, nv map[string]engine.Version) (engine.Config, error) {
	cfg.CheckpointNS = n.ns
	return n.Store.Put(ctx, cfg, cp, md, nv)
}

func (n namespaced) PutWrites(ctx context.Context, cfg engine.Config, task string, writes []engine.Write) error {
	cfg.CheckpointNS = n.ns
	return n.Store.PutWrites(ctx, cfg, task, writes)
}
