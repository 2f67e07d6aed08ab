package persist_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// askThread runs a thread of a counter that loops 30 times and then asks
// a question (an interrupt), and forks it once with update_state.
func askThread(t *testing.T, s *persist.Store) *engine.Graph {
	t.Helper()
	ctx := context.Background()
	g, err := engine.NewStateGraph(engine.LastValueKey("n"), engine.LastValueKey("answer")).
		AddNode("tick", func(_ context.Context, st any) (any, error) {
			n, _ := st.(map[string]any)["n"].(float64)
			return map[string]any{"n": n + 1}, nil
		}).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			a, err := engine.Interrupt(ctx, "how many?")
			return map[string]any{"answer": a}, err
		}).
		AddEdge(engine.Start, "tick").
		AddConditionalEdges("tick", func(_ context.Context, st map[string]any) (any, error) {
			if n, _ := st["n"].(float64); n < 30 {
				return "tick", nil
			}
			return "ask", nil
		}, "tick", "ask").
		AddEdge("ask", engine.End).
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{ThreadID: "t"}
	if _, err := g.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("t"), engine.WithRecursionLimit(100)); err != nil {
		t.Fatal(err)
	}
	h, err := g.History(ctx, cfg, engine.ListOptions{})
	if err != nil || len(h) < 30 {
		t.Fatalf("%d checkpoints, %v", len(h), err)
	}
	if _, err := g.UpdateState(ctx, engine.Config{ThreadID: "t", CheckpointID: h[10].Config.CheckpointID}, map[string]any{"n": -1.0}, "tick"); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestHeads_ReadRecordsOnly: a thread's heads come from its checkpoint
// records alone. They match List's, and they still read when every value
// and pending write of the thread is gone (List then reports damage).
func TestHeads_ReadRecordsOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "heads.db")
	s := openAt(t, path, persist.Options{})
	askThread(t, s)
	cfg := engine.Config{ThreadID: "t"}
	list, err := s.List(ctx, cfg, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	heads, err := s.Heads(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != len(list) {
		t.Fatalf("%d heads, %d checkpoints", len(heads), len(list))
	}
	sources := map[string]bool{}
	for i, h := range heads {
		l := list[i]
		want := engine.CheckpointHead{ID: l.Checkpoint.ID, ParentID: l.ParentID, Step: l.Metadata.Step, Source: l.Metadata.Source}
		if h != want {
			t.Fatalf("head %d = %+v, want %+v", i, h, want)
		}
		sources[h.Source] = true
	}
	if !sources[engine.SourceInput] || !sources[engine.SourceLoop] || !sources[engine.SourceUpdate] {
		t.Fatalf("the thread lacks a source: %v", sources)
	}
	s.Close()

	rawUpdate(t, path, func(tx *bolt.Tx) error {
		for _, name := range []string{"blob", "w"} {
			b := persist.RawRecordsForTest(tx, "t", "", name)
			for _, k := range b.Keys() {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
		}
		return nil
	})
	s = openAt(t, path, persist.Options{ReadOnly: true})
	defer s.Close()
	again, err := s.Heads(ctx, cfg)
	if err != nil || len(again) != len(heads) || again[len(again)-1] != heads[len(heads)-1] || again[0] != heads[0] {
		t.Fatalf("heads without values or writes: %d, %v", len(again), err)
	}
	if _, err := s.List(ctx, cfg, engine.ListOptions{}); !errors.Is(err, persist.ErrCorrupt) {
		t.Fatalf("List without the values: %v, want ErrCorrupt", err)
	}
}

// TestOutline_LeavesStateWritesUndecoded: an outline decodes the pending
// writes that show what a checkpoint's tasks did or wait for (interrupts,
// answers, errors) and those planning reads (the channels keep accepts),
// not a task's output to a state key: the bulk of a thread's writes.
func TestOutline_LeavesStateWritesUndecoded(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "outline.db"), persist.Options{})
	defer s.Close()
	askThread(t, s)
	cfg := engine.Config{ThreadID: "t"}
	keep := func(ch string) bool { return ch != "n" && ch != "answer" }
	outline, err := s.Outline(ctx, cfg, engine.ListOptions{}, keep)
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx, cfg, engine.ListOptions{})
	if err != nil || len(list) != len(outline) {
		t.Fatalf("%d checkpoints listed, %d outlined, %v", len(list), len(outline), err)
	}
	var stateWrites, interrupts, kept int
	for i, o := range outline {
		full := list[i]
		if len(o.PendingWrites) != len(full.PendingWrites) {
			t.Fatalf("checkpoint %d: %d writes outlined, %d stored", i, len(o.PendingWrites), len(full.PendingWrites))
		}
		for j, w := range o.PendingWrites {
			fw := full.PendingWrites[j]
			if w.TaskID != fw.TaskID || w.Channel != fw.Channel {
				t.Fatalf("checkpoint %d write %d: %+v, stored %+v", i, j, w, fw)
			}
			switch {
			case engine.IsControlWrite(w.Channel) || keep(w.Channel):
				if engine.IsControlWrite(w.Channel) {
					interrupts++
				} else {
					kept++
				}
				if engine.DiffValues(w.Value, fw.Value) != nil {
					t.Errorf("checkpoint %d: %s write %v, stored %v", i, w.Channel, w.Value, fw.Value)
				}
			case w.Value != nil:
				t.Errorf("checkpoint %d: the outline decoded the write to state key %s (%v)", i, w.Channel, w.Value)
			default:
				stateWrites++
			}
		}
		for ch := range o.Checkpoint.ChannelValues {
			if !keep(ch) {
				t.Errorf("checkpoint %d: the outline loaded the value of %s", i, ch)
			}
		}
	}
	if stateWrites < 30 || interrupts == 0 || kept == 0 {
		t.Fatalf("the thread has %d state writes, %d control writes, %d kept writes", stateWrites, interrupts, kept)
	}
	asked := false
	for _, o := range outline {
		for _, in := range engine.ReadSavedWrites(o.PendingWrites).WaitingInterrupts() {
			asked = asked || in.Value == "how many?"
		}
	}
	if !asked {
		t.Error("the outline lost the question the thread waits on")
	}
}

// TestHeads_ReportDamage: a checkpoint record that fails its checksum
// makes Heads say the thread is damaged; it never lists the records
// before it as if they were the whole thread.
func TestHeads_ReportDamage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "damaged.db")
	s := openAt(t, path, persist.Options{})
	askThread(t, s)
	s.Close()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		cps := persist.RawRecordsForTest(tx, "t", "", "cp")
		k, d := cps.First() // the oldest: listed last
		d[len(d)/2] ^= 0x20
		return cps.Put(k, d)
	})
	s = openAt(t, path, persist.Options{ReadOnly: true})
	defer s.Close()
	if heads, err := s.Heads(ctx, engine.Config{ThreadID: "t"}); !errors.Is(err, persist.ErrCorrupt) {
		t.Fatalf("Heads of a thread with a damaged record: %d heads, %v; want ErrCorrupt", len(heads), err)
	}
}
