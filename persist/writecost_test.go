package persist

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
)

// zeros returns a list of n zeros.
func zeros(n int) []any {
	l := make([]any, n)
	for i := range l {
		l[i] = 0.0
	}
	return l
}

// TestStore_AppendCostsWhatWasAdded: a superstep that appends one element
// to a list encodes the same bytes whether the list holds a thousand
// elements or fifty thousand (issue 17 item 8). Before, every Put encoded
// the whole list (and compared it with the previous one).
func TestStore_AppendCostsWhatWasAdded(t *testing.T) {
	const from, window = 10, 100
	perWindow := map[int]int64{}
	for _, size := range []int{1000, 50000} {
		s, err := Open(filepath.Join(t.TempDir(), "db"), Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		var start, end int64
		g := enginetest.AppendLoop(t, s, from+window+1, func(step int) {
			// Under sync durability the previous superstep's checkpoint
			// is encoded and stored when the node runs again.
			switch step {
			case from:
				start = s.encoded.Load()
			case from + window:
				end = s.encoded.Load()
			}
		})
		res, err := g.Invoke(context.Background(), map[string]any{"items": zeros(size), "n": 0}, engine.OnThread("t"), engine.WithRecursionLimit(from+window+10))
		if err != nil || res.Status != engine.StatusDone {
			t.Fatalf("run with %d items: %v %v", size, res, err)
		}
		got, err := s.GetTuple(context.Background(), engine.Config{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		items := got.Checkpoint.ChannelValues["items"].([]any)
		if len(items) != size+from+window+1 || items[size+from] != float64(from) {
			t.Fatalf("items read back wrong: %d elements", len(items))
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		perWindow[size] = end - start
		t.Logf("%6d items: %d bytes encoded in %d supersteps", size, end-start, window)
	}
	if small, big := perWindow[1000], perWindow[50000]; big != small || big > 200*window {
		t.Errorf("bytes encoded per %d supersteps: %d at 1000 items, %d at 50000; want equal and under 200 per superstep", window, small, big)
	}
}

// TestStore_GrowingListReadsBack: the append chain's full images come
// when the appended bytes outweigh the last one, and every version of the
// list reads back exactly, across several of them.
func TestStore_GrowingListReadsBack(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const steps = 300
	g := enginetest.AppendLoop(t, s, steps, nil)
	if _, err := g.Invoke(context.Background(), map[string]any{"items": []any{"x"}, "n": 0}, engine.OnThread("t"), engine.WithRecursionLimit(steps+10)); err != nil {
		t.Fatal(err)
	}
	hist, err := s.List(context.Background(), engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tup := range hist {
		items, _ := tup.Checkpoint.ChannelValues["items"].([]any)
		step := tup.Metadata.Step
		if step < 1 {
			continue
		}
		if len(items) != step+1 || items[0] != "x" || items[len(items)-1] != float64(step-1) {
			t.Fatalf("step %d: items = %v", step, items)
		}
	}
	full := 0
	s.read(func(tx *bolt.Tx) error {
		b, _ := openNS(tx, "t", "", false)
		return b.blobs.ForEach(func(k, v []byte) error {
			if ch, _, _, _ := parseBlobKey(k); ch == "items" && v[1] == blobFull {
				full++
			}
			return nil
		})
	})
	t.Logf("%d full images of the list in %d supersteps", full, steps)
	// Doubling: about log2(final/initial size) full images, not steps/256.
	if full < 3 || full > 12 {
		t.Errorf("%d full images of the list in %d supersteps, want a handful", full, steps)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestWriter_BoundedByBytes: under exit durability buffered checkpoints
// are bounded by their bytes, not only their count: a run writing a fresh
// 20 KB value per superstep commits early instead of holding all of them
// (issue 17 item 7; before, up to 16,384 checkpoints stayed in memory
// whatever their size).
func TestWriter_BoundedByBytes(t *testing.T) {
	for _, mode := range []Durability{DurabilityExit, DurabilityAsync} {
		t.Run(mode.String(), func(t *testing.T) {
			const bound, steps, size = 256 << 10, 100, 20 << 10
			s, err := Open(filepath.Join(t.TempDir(), "db"), Options{NoSync: true, Durability: mode, MaxBuffered: bound})
			if err != nil {
				t.Fatal(err)
			}
			g, err := engine.NewStateGraph(engine.LastValueKey("blob"), engine.LastValueKey("n")).
				AddNode("write", func(_ context.Context, in any) (any, error) {
					n := in.(map[string]any)["n"].(float64)
					return engine.Update{{Key: "blob", Value: strings.Repeat(fmt.Sprint(int(n)%10), size)}, {Key: "n", Value: n + 1}}, nil
				}).
				AddEdge(engine.Start, "write").
				AddConditionalEdges("write", func(_ context.Context, st map[string]any) (any, error) {
					if st["n"].(float64) < steps {
						return "write", nil
					}
					return engine.End, nil
				}, "write", engine.End).
				Compile(engine.WithSaver(s))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.Invoke(context.Background(), map[string]any{"n": 0}, engine.OnThread("t"), engine.WithRecursionLimit(steps+10)); err != nil {
				t.Fatal(err)
			}
			s.w.mu.Lock()
			peak, held := s.w.peak, s.w.held
			s.w.mu.Unlock()
			// One superstep's writes (its checkpoint and the task's
			// write, each with the 20 KB value) may pass the bound by
			// themselves before they wait.
			if limit := bound + 2*(size+1024); peak > limit {
				t.Errorf("peak buffered bytes %d, want at most %d", peak, limit)
			}
			if mode == DurabilityExit && s.w.commits.Load() == 0 {
				t.Errorf("no commit before Close: %d bytes of buffered writes all held", held)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, err = Open(s.Path(), Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			hist, err := s.List(context.Background(), engine.Config{ThreadID: "t"}, engine.ListOptions{})
			if err != nil || len(hist) != steps+2 {
				t.Fatalf("%d checkpoints stored, want %d (%v)", len(hist), steps+2, err)
			}
		})
	}
}

// TestImport_AppendCostsWhatWasAdded: importing a thread whose list grew
// one element a superstep encodes each checkpoint's new elements, not the
// whole list again at every checkpoint (the export stores them as
// appended; issue 17 items 6 and 8). Before, each imported checkpoint
// encoded its whole list: steps × the list's size.
func TestImport_AppendCostsWhatWasAdded(t *testing.T) {
	const size, steps = 20000, 60
	ctx := context.Background()
	src, err := Open(filepath.Join(t.TempDir(), "src"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	g := enginetest.AppendLoop(t, src, steps, nil)
	if res, err := g.Invoke(ctx, map[string]any{"items": zeros(size), "n": 0}, engine.OnThread("t"), engine.WithRecursionLimit(steps+10)); err != nil || res.Status != engine.StatusDone {
		t.Fatalf("run: %v %v", res, err)
	}
	var export strings.Builder
	if err := src.Export(ctx, "t", &export, ""); err != nil {
		t.Fatal(err)
	}
	dst, err := Open(filepath.Join(t.TempDir(), "dst"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	before := dst.encoded.Load()
	if _, err := dst.Import(ctx, strings.NewReader(export.String()), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	encoded := dst.encoded.Load() - before
	whole, _ := engine.EncodeValue(zeros(size))
	if limit := int64(2*len(whole) + 200*steps); encoded > limit {
		t.Errorf("import encoded %d bytes for a %d-byte list grown over %d supersteps; want at most %d", encoded, len(whole), steps, limit)
	}
	got, err := dst.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if items := got.Checkpoint.ChannelValues["items"].([]any); len(items) != size+steps {
		t.Fatalf("imported list has %d elements, want %d", len(items), size+steps)
	}
	if err := dst.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestStore_SyncSuperstepIsOneCommit: under sync a superstep of one task
// costs one commit: the task's writes (engine.WriteDeferrer) share the
// commit of the checkpoint that follows, and the engine reports the task
// only once that commit is done. Saving them in a commit of their own
// doubled the fsyncs of every such superstep.
func TestStore_SyncSuperstepIsOneCommit(t *testing.T) {
	const steps = 60
	s, err := Open(filepath.Join(t.TempDir(), "db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := enginetest.AppendLoop(t, s, steps, nil)
	before := s.w.commits.Load()
	res, err := g.Invoke(context.Background(), map[string]any{"items": []any{}, "n": 0}, engine.OnThread("t"), engine.WithRecursionLimit(steps+10))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("run: %v %v", res, err)
	}
	commits := s.w.commits.Load() - before
	// steps+1 checkpoints (input, then one per superstep), a few more
	// for the run's own bookkeeping at most.
	if commits > steps+5 {
		t.Errorf("%d commits for %d one-task supersteps; want about one each", commits, steps)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
