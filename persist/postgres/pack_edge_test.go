package postgres_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// putValues puts checkpoint id on thread th after parent with the given
// values, all at the versions in vers.
func putValues(t *testing.T, s *postgres.Store, th, parent, id string, vers map[string]engine.Version, vals map[string]any) *engine.Checkpoint {
	t.Helper()
	cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, TS: time.Unix(1, 0).UTC(),
		ChannelValues: vals, ChannelVersions: vers, VersionsSeen: map[string]map[string]engine.Version{}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: th, CheckpointID: parent}, cp, engine.Metadata{Source: engine.SourceLoop}, nil); err != nil {
		t.Fatalf("Put %s: %v", id, err)
	}
	return cp
}

// wantValues checks that checkpoint cp of th reads back through s.
func wantValues(t *testing.T, s *postgres.Store, th string, cp *engine.Checkpoint) {
	t.Helper()
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: th, CheckpointID: cp.ID})
	if err != nil {
		t.Fatalf("GetTuple %s: %v", cp.ID, err)
	}
	if tup == nil {
		t.Fatalf("GetTuple %s: not found", cp.ID)
	}
	if !reflect.DeepEqual(tup.Checkpoint.ChannelValues, engine.Normalize(cp.ChannelValues)) ||
		!reflect.DeepEqual(tup.Checkpoint.ChannelVersions, cp.ChannelVersions) {
		t.Fatalf("%s reads back %v at %v, want %v at %v", cp.ID, tup.Checkpoint.ChannelValues, tup.Checkpoint.ChannelVersions,
			cp.ChannelValues, cp.ChannelVersions)
	}
}

// wantFresh checks that each of cps reads back through a store at u with
// nothing cached, and that Check is clean.
func wantFresh(t *testing.T, u, th string, cps []*engine.Checkpoint) {
	t.Helper()
	r := open(t, u, postgres.Options{})
	for _, cp := range cps {
		wantValues(t, r, th, cp)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestStore_PacksOfForksAtOneVersion: forks from one checkpoint (the
// engine's update_state and time travel) store values at a version that
// already has a pack. Each fork reads back its own values, whether they
// differ (another pack at that version), are equal (one pack shared),
// are a single value at that version, or are written at once by two
// goroutines through one store (a second store on the thread is refused
// by the thread claim, ErrThreadConflict, before any pack is written).
func TestStore_PacksOfForksAtOneVersion(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	v1 := map[string]engine.Version{"a": 1, "b": 1, "c": 1}
	v2 := map[string]engine.Version{"a": 2, "b": 2, "c": 2}
	root := putValues(t, s, "t", "", "01", v1, map[string]any{"a": "a1", "b": "b1", "c": []any{"x"}})
	var cps []*engine.Checkpoint
	cps = append(cps, root,
		putValues(t, s, "t", "01", "02", v2, map[string]any{"a": "a2", "b": "b2", "c": []any{"x", "y"}}),
		putValues(t, s, "t", "01", "03", v2, map[string]any{"a": "A2", "b": "b2", "c": []any{"x", "z"}}),
		putValues(t, s, "t", "01", "04", v2, map[string]any{"a": "a2", "b": "b2", "c": []any{"x", "y"}}),
		putValues(t, s, "t", "01", "05", map[string]engine.Version{"a": 2, "b": 1, "c": 1}, map[string]any{"a": "only a", "b": "b1", "c": []any{"x"}}),
	)
	// Two goroutines write forks at one version at once, through one
	// store (a second store on the thread is refused: ErrThreadConflict).
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				id := fmt.Sprintf("1%d%02d", i, j)
				cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, TS: time.Unix(1, 0).UTC(),
					ChannelValues:   map[string]any{"a": fmt.Sprintf("w%d-%d", i, j%3), "b": "b2", "c": []any{"x", fmt.Sprint(j % 2)}},
					ChannelVersions: map[string]engine.Version{"a": 3, "b": 3, "c": 3},
					VersionsSeen:    map[string]map[string]engine.Version{}}
				if _, err := s.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: "02"}, cp, engine.Metadata{Source: engine.SourceFork}, nil); err != nil {
					t.Errorf("Put %s: %v", id, err)
					return
				}
				mu.Lock()
				cps = append(cps, cp)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wantFresh(t, u, "t", cps)
}

// TestStore_ValueCrossesPackMax: a value that grows past packMax leaves
// the pack for a row of its own and comes back when it shrinks; a list
// whose chain runs through packs and rows of its own reads back at every
// checkpoint.
func TestStore_ValueCrossesPackMax(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	var cps []*engine.Checkpoint
	var list []any
	parent := ""
	for i, n := range []int{10, 1000, 1021, 1022, 1023, 1024, 1025, 5000, 3, 1023, 1, 2000, 0} {
		v := engine.Version(i + 1)
		list = append(list[:len(list):len(list)], strings.Repeat("m", n%300))
		id := fmt.Sprintf("%02d", i+1)
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, TS: time.Unix(1, 0).UTC(),
			ChannelValues:   map[string]any{"big": strings.Repeat("x", n), "step": float64(i), "list": list},
			ChannelVersions: map[string]engine.Version{"big": v, "step": v, "list": v},
			VersionsSeen:    map[string]map[string]engine.Version{}}
		if i > 0 {
			cp.Appends = map[string]engine.ListAppend{"list": {From: v - 1, Len: len(list) - 1}}
		}
		if _, err := s.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: parent}, cp, engine.Metadata{Source: engine.SourceLoop, Step: i}, nil); err != nil {
			t.Fatalf("Put %s: %v", id, err)
		}
		cps, parent = append(cps, cp), id
	}
	// A store with nothing cached goes on from each of the last few
	// checkpoints (their values in packs and in rows of their own): it
	// reads the parent's list back to append to it.
	for _, from := range cps[len(cps)-4:] {
		w := open(t, u, postgres.Options{})
		v := from.ChannelVersions["list"] + 100
		prev := from.ChannelValues["list"].([]any)
		grown := append(prev[:len(prev):len(prev)], "after "+from.ID)
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: "z" + from.ID, TS: time.Unix(2, 0).UTC(),
			ChannelValues:   map[string]any{"big": from.ChannelValues["big"], "step": float64(v), "list": grown},
			ChannelVersions: map[string]engine.Version{"big": from.ChannelVersions["big"], "step": v, "list": v},
			VersionsSeen:    map[string]map[string]engine.Version{},
			Appends:         map[string]engine.ListAppend{"list": {From: from.ChannelVersions["list"], Len: len(prev)}}}
		if _, err := w.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: from.ID}, cp, engine.Metadata{Source: engine.SourceFork}, nil); err != nil {
			t.Fatalf("Put %s: %v", cp.ID, err)
		}
		w.Close()
		cps = append(cps, cp)
	}
	wantFresh(t, u, "t", cps)
}

// TestStore_PacksMigrationKeepsPendingWrites: a schema 3 database whose
// last checkpoint has pending writes (a run interrupted mid-superstep)
// keeps them through the migration to 4, and the run goes on from them.
func TestStore_PacksMigrationKeepsPendingWrites(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	a := open(t, u, postgres.Options{})
	schema := a.Schema()
	q := pgx.Identifier{schema}.Sanitize()
	old := packedThread(t, a, "t", nil, 1<<30, 5)
	last := engine.Config{ThreadID: "t", CheckpointID: old[len(old)-1].ID}
	if err := a.PutWrites(ctx, last, "task-1", []engine.Write{{Channel: "messages", Value: "pending"}}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	adminExec(t, "COMMENT ON TABLE "+q+".blobs IS NULL", "DELETE FROM "+q+".schema_version WHERE version > 3")

	b := open(t, u, postgres.Options{})
	tup, err := b.GetTuple(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	if len(tup.PendingWrites) != 1 || tup.PendingWrites[0].TaskID != "task-1" || tup.PendingWrites[0].Value != "pending" {
		t.Fatalf("pending writes after the migration: %+v", tup.PendingWrites)
	}
	if err := b.PutWrites(ctx, last, "task-2", []engine.Write{{Channel: "step", Value: float64(7)}}); err != nil {
		t.Fatal(err)
	}
	more := packedThread(t, b, "t", old[len(old)-1], 0, 3)
	c := open(t, u, postgres.Options{})
	tup, err = c.GetTuple(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	if len(tup.PendingWrites) != 2 {
		t.Fatalf("pending writes: %+v, want task-1's and task-2's", tup.PendingWrites)
	}
	wantThread(t, c, "t", append(old, more...))
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestStore_RefusesNamesJSONCannotKeep: a checkpoint whose id, parent id,
// channel or node name is not UTF-8, or whose node name is empty, is
// refused with ErrInvalidID, and
// nothing is stored: its record is JSON, which would keep such a name
// with U+FFFD in place of its bytes, and the checkpoint would not read
// back (persist.CheckCheckpoint).
func TestStore_RefusesNamesJSONCannotKeep(t *testing.T) {
	t.Parallel()
	s := open(t, schemaURL(t), postgres.Options{})
	putValues(t, s, "t", "", "1", map[string]engine.Version{"a": 1}, map[string]any{"a": "x"})
	for name, c := range map[string]struct {
		parent string
		cp     *engine.Checkpoint
	}{
		"checkpoint id": {"1", &engine.Checkpoint{ID: "2\xff", ChannelVersions: map[string]engine.Version{"a": 2}, ChannelValues: map[string]any{"a": "y"}}},
		"parent id":     {"1\xff", &engine.Checkpoint{ID: "2", ChannelVersions: map[string]engine.Version{"a": 2}, ChannelValues: map[string]any{"a": "y"}}},
		"channel":       {"1", &engine.Checkpoint{ID: "2", ChannelVersions: map[string]engine.Version{"b\xfe": 2}, ChannelValues: map[string]any{"b\xfe": "y"}}},
		"node":          {"1", &engine.Checkpoint{ID: "2", VersionsSeen: map[string]map[string]engine.Version{"m\xc3": {"a": 1}}}},
	} {
		c.cp.V, c.cp.TS = engine.CheckpointFormat, time.Unix(2, 0).UTC()
		_, err := s.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: c.parent}, c.cp, engine.Metadata{}, nil)
		if !errors.Is(err, persist.ErrInvalidID) || !strings.Contains(err.Error(), "not UTF-8") {
			t.Errorf("%s: Put: %v, want ErrInvalidID: not UTF-8", name, err)
		}
	}
	// A name an export could not carry back into a store, as the bbolt
	// store refuses it: the thread would not copy.
	empty := &engine.Checkpoint{ID: "2", V: engine.CheckpointFormat, TS: time.Unix(2, 0).UTC(), VersionsSeen: map[string]map[string]engine.Version{"": {"a": 1}}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: "1"}, empty, engine.Metadata{}, nil); !errors.Is(err, persist.ErrInvalidID) || !strings.Contains(err.Error(), `node ""`) {
		t.Errorf("empty node: Put: %v, want ErrInvalidID naming node \"\"", err)
	}
	// A write's channel is named as a record's channels are.
	if err := s.PutWrites(ctx, engine.Config{ThreadID: "t", CheckpointID: "1"}, "task", []engine.Write{{Channel: "c\xff", Value: 1.0}}); !errors.Is(err, persist.ErrInvalidID) || !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("write channel: PutWrites: %v, want ErrInvalidID: not UTF-8", err)
	}
	hist, err := s.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil || len(hist) != 1 {
		t.Fatalf("List: %d checkpoints, %v; want the first only", len(hist), err)
	}
	if tp, err := s.GetTuple(ctx, engine.Config{ThreadID: "t", CheckpointID: "1"}); err != nil || len(tp.PendingWrites) != 0 {
		t.Fatalf("GetTuple: %v, want no pending write", err)
	}
}
