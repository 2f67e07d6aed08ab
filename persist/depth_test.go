package persist_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// deepList returns a value n lists deep.
func deepList(n int) any {
	var v any = 1.0
	for range n {
		v = []any{v}
	}
	return v
}

// TestStore_DepthLimit: a value nested deeper than engine.MaxValueDepth
// is refused when written, naming the channel, instead of being stored
// where it could never be read back and check would call the database
// corrupt; a value at the limit is stored, read back, checked, exported
// and imported (issue 17 item 10).
func TestStore_DepthLimit(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "db"), persist.Options{NoSync: true})
	put := func(th string, v any) error {
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id(1), TS: time.Unix(1700000000, 0).UTC(),
			ChannelValues:   map[string]any{"tree": v},
			ChannelVersions: map[string]engine.Version{"tree": 1},
			VersionsSeen:    map[string]map[string]engine.Version{}}
		_, err := s.Put(ctx, engine.Config{ThreadID: th}, cp, engine.Metadata{Source: engine.SourceInput, Step: -1, Parents: map[string]string{}}, map[string]engine.Version{"tree": 1})
		return err
	}
	for _, depth := range []int{engine.MaxValueDepth + 1, 10001} {
		err := put("deep", deepList(depth))
		if !errors.Is(err, engine.ErrValueTooDeep) || !errors.Is(err, persist.ErrInvalidCheckpoint) {
			t.Errorf("Put of a value %d deep: err = %v, want ErrInvalidCheckpoint and ErrValueTooDeep", depth, err)
		}
		err = s.PutWrites(ctx, engine.Config{ThreadID: "deep", CheckpointID: id(1)}, "task", []engine.Write{{Channel: "tree", Value: deepList(depth)}})
		if !errors.Is(err, engine.ErrValueTooDeep) {
			t.Errorf("PutWrites of a value %d deep: err = %v, want ErrValueTooDeep", depth, err)
		}
	}
	if err := put("legal", deepList(engine.MaxValueDepth)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutWrites(ctx, engine.Config{ThreadID: "legal", CheckpointID: id(1)}, "task", []engine.Write{{Channel: "tree", Value: deepList(engine.MaxValueDepth)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatalf("check after storing a value at the limit: %v", err)
	}
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "legal"})
	if err != nil || tup == nil {
		t.Fatalf("GetTuple: %v", err)
	}
	var buf bytes.Buffer
	if err := s.Export(ctx, "legal", &buf, ""); err != nil {
		t.Fatal(err)
	}
	dst := openAt(t, filepath.Join(t.TempDir(), "dst"), persist.Options{NoSync: true})
	if _, err := dst.Import(ctx, &buf, persist.ImportOptions{}); err != nil {
		t.Fatalf("the export of a value at the depth limit does not import: %v", err)
	}
	back, err := dst.GetTuple(ctx, engine.Config{ThreadID: "legal"})
	if err != nil || back == nil || len(back.PendingWrites) != 1 {
		t.Fatalf("imported thread: %v, %v", back, err)
	}
	if !reflect.DeepEqual(back.Checkpoint.ChannelValues["tree"], deepList(engine.MaxValueDepth)) {
		t.Error("the value at the depth limit reads back changed")
	}
	if err := dst.Check(); err != nil {
		t.Fatal(err)
	}
}
