package enginetest_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
)

func TestMemorySaver_SaverSuite(t *testing.T) {
	enginetest.SaverSuite(t, func(*testing.T) engine.Saver { return engine.NewMemorySaver() }, nil)
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
