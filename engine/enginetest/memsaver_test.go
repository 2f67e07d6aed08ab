package enginetest_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
)

func TestMemorySaver_SaverSuite(t *testing.T) {
	enginetest.SaverSuite(t, func(*testing.T) engine.Saver { return engine.NewMemorySaver() }, nil)
}

func TestOutlineSaver_OutlinerSuite(t *testing.T) {
	enginetest.OutlinerSuite(t, func(*testing.T) engine.Saver { return enginetest.OutlineSaver{MemorySaver: engine.NewMemorySaver()} }, nil)
}

// Writes saved against a checkpoint id before that checkpoint is put are
// kept, and are the checkpoint's once it is (the contract does not make
// PutWrites wait for Put; LangGraph's in-memory saver keys writes by id
// alone).
func TestMemorySaver_WritesBeforeTheirCheckpoint(t *testing.T) {
	ctx := context.Background()
	s := engine.NewMemorySaver()
	id := enginetest.ID(2)
	cfg := engine.Config{ThreadID: "t", CheckpointID: id}
	if err := s.PutWrites(ctx, cfg, "task-a", []engine.Write{{Channel: "a", Value: 1.0}, {Channel: "b", Value: 2.0}, {Channel: "c", Value: 3.0}}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetTuple(ctx, cfg); err != nil || got != nil {
		t.Fatalf("GetTuple before Put = %v, %v; want nothing", got, err)
	}
	cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}, VersionsSeen: map[string]map[string]engine.Version{}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "t"}, cp, engine.Metadata{Source: engine.SourceLoop}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.PutWrites(ctx, cfg, "task-b", []engine.Write{{Channel: "d", Value: 4.0}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetTuple(ctx, cfg)
	if err != nil || got == nil {
		t.Fatalf("GetTuple = %v, %v", got, err)
	}
	want := []engine.PendingWrite{{TaskID: "task-a", Channel: "a", Value: 1.0}, {TaskID: "task-a", Channel: "b", Value: 2.0}, {TaskID: "task-a", Channel: "c", Value: 3.0}, {TaskID: "task-b", Channel: "d", Value: 4.0}}
	if !reflect.DeepEqual(got.PendingWrites, want) {
		t.Fatalf("pending writes %v, want %v", got.PendingWrites, want)
	}
}

// A wide superstep's writes (past the point where MemorySaver indexes them
// by task) keep the contract: a task's regular writes are stored once, the
// first wins, and its special writes replace each other.
func TestMemorySaver_ManyTasksWrites(t *testing.T) {
	ctx := context.Background()
	s := engine.NewMemorySaver()
	cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: enginetest.ID(1), ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}, VersionsSeen: map[string]map[string]engine.Version{}}
	cfg, err := s.Put(ctx, engine.Config{ThreadID: "t"}, cp, engine.Metadata{Source: engine.SourceLoop}, nil)
	if err != nil {
		t.Fatal(err)
	}
	put := func(task string, ws ...engine.Write) {
		t.Helper()
		if err := s.PutWrites(ctx, cfg, task, ws); err != nil {
			t.Fatal(err)
		}
	}
	task := func(i int) string { return fmt.Sprintf("task-%02d", i) }
	var want []engine.PendingWrite
	for i := 0; i < 40; i++ {
		put(task(i), engine.Write{Channel: "a", Value: float64(i)}, engine.Write{Channel: "b", Value: float64(i)})
		want = append(want, engine.PendingWrite{TaskID: task(i), Channel: "a", Value: float64(i)}, engine.PendingWrite{TaskID: task(i), Channel: "b", Value: float64(i)})
	}
	put(task(3), engine.Write{Channel: "a", Value: "again"}, engine.Write{Channel: engine.ErrorChannel, Value: "first"})
	put(task(3), engine.Write{Channel: engine.ErrorChannel, Value: "second"}, engine.Write{Channel: engine.ErrorChannel, Value: "third"})
	put(task(50), engine.Write{Channel: engine.InterruptChannel, Value: "x"}, engine.Write{Channel: engine.InterruptChannel, Value: "y"})
	// Sorted by task, special writes first.
	want = slices.Insert(want, 6, engine.PendingWrite{TaskID: task(3), Channel: engine.ErrorChannel, Value: "third"})
	want = append(want, engine.PendingWrite{TaskID: task(50), Channel: engine.InterruptChannel, Value: "y"})
	got, err := s.GetTuple(ctx, cfg)
	if err != nil || got == nil {
		t.Fatalf("GetTuple = %v, %v", got, err)
	}
	if !reflect.DeepEqual(got.PendingWrites, want) {
		t.Fatalf("pending writes\n%v\nwant\n%v", got.PendingWrites, want)
	}
}
