package persist_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
)

// hostileNames are names the Saver methods accept (any bytes, 1 to 1024
// of them) chosen against the ordered layout's keys: the range and kind
// bytes, the string terminator and its escape, names that are prefixes
// of one another, and the longest names.
var hostileNames = []string{
	"c", "c\x00", "c\x00\x00c", "c\x00\xffk", "c\xff", "c\x00c",
	"k", "w", "r", "b", "n", "rc", "\x00", "\x00\x00", "\xff", "\xff\xff",
	strings.Repeat("\x00", 1024), strings.Repeat("\xff", 1024), strings.Repeat("r", 1024),
}

// TestLayout3_HostileNames: on a layout 3 file, checkpoints, channels,
// namespaces and tasks named with the bytes the ordered keys are built
// from read back exactly as written: no record, value, pending write or
// child is attributed to a neighbouring name. The line's versions go
// down as well as up (forks and old checkpoints store values mid-range).
// The thread deleted and written again reads back the same, and Check is
// clean throughout.
func TestLayout3_HostileNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	openAt(t, path, persist.Options{NoSync: true}).Close()
	if l := fileLayout(t, path); l != 3 {
		t.Fatalf("new file has layout %d, want 3", l)
	}
	hostileNamesOn(t, path)
}

// TestLayout2_HostileNames is TestLayout3_HostileNames on a layout 2 file.
func TestLayout2_HostileNames(t *testing.T) {
	path := copyLayout2(t)
	hostileNamesOn(t, path)
	if l := fileLayout(t, path); l != 2 {
		t.Fatalf("file has layout %d after the writes, want 2", l)
	}
}

func hostileNamesOn(t *testing.T, path string) {
	s := openAt(t, path, persist.Options{NoSync: true})
	// Records are JSON: checkpoint ids and channel names are UTF-8
	// (CheckCheckpoint); namespaces and task ids are keys only.
	var ids []string
	for _, n := range hostileNames {
		if utf8.ValidString(n) {
			ids = append(ids, n)
		}
	}
	slices.Sort(ids)
	namespaces := []string{"", "c", "c\x00", "\x00", "\xff", "n", strings.Repeat("\x00", 1024), strings.Repeat("\xff", 1024)}
	channels := []string{"a", "a\x00", "\x00", "\u00ff", "b", "r"}

	type want struct {
		cp     *engine.Checkpoint
		writes []engine.PendingWrite
		kids   []string
	}
	write := func() map[string]map[string]*want {
		all := map[string]map[string]*want{}
		for _, ns := range namespaces {
			byID := map[string]*want{}
			all[ns] = byID
			parent := ""
			for i, cid := range ids {
				vals := map[string]any{}
				vers := map[string]engine.Version{}
				for j, ch := range channels {
					// Versions go down along the line for some channels.
					v := engine.Version(1 + (i*7+j*3)%len(ids))
					vers[ch] = v
					vals[ch] = fmt.Sprintf("%q/%q/%d", ns, cid, v)
				}
				cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: cid, TS: time.Unix(int64(i), 0).UTC(),
					ChannelValues: vals, ChannelVersions: vers, VersionsSeen: map[string]map[string]engine.Version{}}
				cfg := engine.Config{ThreadID: "t\x00r\xff", CheckpointNS: ns, CheckpointID: parent}
				if _, err := s.Put(ctx, cfg, cp, engine.Metadata{Source: engine.SourceLoop, Step: i}, nil); err != nil {
					t.Fatalf("Put %.40q in %.40q: %.200v", cid, ns, err)
				}
				w := &want{cp: cp}
				byID[cid] = w
				if parent != "" {
					byID[parent].kids = append(byID[parent].kids, cid)
				}
				// Each checkpoint gets writes of a task named like it and
				// of a neighbouring name.
				cfg.CheckpointID = cid
				for _, task := range []string{cid, ids[(i+1)%len(ids)], ("\xff" + cid)[:min(len(cid)+1, 1024)]} {
					ws := []engine.Write{{Channel: channels[i%len(channels)], Value: fmt.Sprintf("w %q %q", cid, task)}}
					if err := s.PutWrites(ctx, cfg, task, ws); err != nil {
						t.Fatalf("PutWrites %.40q %.40q: %.200v", cid, task, err)
					}
					w.writes = append(w.writes, engine.PendingWrite{TaskID: task, Channel: ws[0].Channel, Value: ws[0].Value})
				}
				parent = cid
			}
		}
		return all
	}
	verify := func(all map[string]map[string]*want) {
		t.Helper()
		for ns, byID := range all {
			for cid, w := range byID {
				cfg := engine.Config{ThreadID: "t\x00r\xff", CheckpointNS: ns, CheckpointID: cid}
				tup, err := s.GetTuple(ctx, cfg)
				if err != nil || tup == nil {
					t.Fatalf("GetTuple %.40q in %.40q: %v, %.200v", cid, ns, tup, err)
				}
				if !reflect.DeepEqual(tup.Checkpoint.ChannelValues, engine.Normalize(w.cp.ChannelValues)) ||
					!reflect.DeepEqual(tup.Checkpoint.ChannelVersions, w.cp.ChannelVersions) {
					t.Fatalf("%q in %q reads back %v at %v, want %v at %v", cid, ns, tup.Checkpoint.ChannelValues,
						tup.Checkpoint.ChannelVersions, w.cp.ChannelValues, w.cp.ChannelVersions)
				}
				got := slices.Clone(tup.PendingWrites)
				wantW := slices.Clone(w.writes)
				byTask := func(a, b engine.PendingWrite) int { return strings.Compare(a.TaskID, b.TaskID) }
				slices.SortFunc(got, byTask)
				slices.SortFunc(wantW, byTask)
				if !reflect.DeepEqual(got, wantW) {
					t.Fatalf("%q in %q: pending writes %q, want %q", cid, ns, got, wantW)
				}
				kids, err := s.Children(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(kids, w.kids) {
					t.Fatalf("%q in %q: children %q, want %q", cid, ns, kids, w.kids)
				}
			}
			hist, err := s.List(ctx, engine.Config{ThreadID: "t\x00r\xff", CheckpointNS: ns}, engine.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != len(byID) {
				t.Fatalf("namespace %q: List has %d checkpoints, want %d", ns, len(hist), len(byID))
			}
			for i, tup := range hist {
				if want := ids[len(ids)-1-i]; tup.Checkpoint.ID != want {
					t.Fatalf("namespace %q: List's %dth is %q, want %q", ns, i, tup.Checkpoint.ID, want)
				}
			}
			before, err := s.List(ctx, engine.Config{ThreadID: "t\x00r\xff", CheckpointNS: ns}, engine.ListOptions{Before: "c\x00"})
			if err != nil {
				t.Fatal(err)
			}
			var wantBefore []string
			for _, cid := range ids {
				if cid < "c\x00" {
					wantBefore = append([]string{cid}, wantBefore...)
				}
			}
			var gotBefore []string
			for _, tup := range before {
				gotBefore = append(gotBefore, tup.Checkpoint.ID)
			}
			if !slices.Equal(gotBefore, wantBefore) {
				t.Fatalf("namespace %q: List before %q: %q, want %q", ns, "c\x00", gotBefore, wantBefore)
			}
		}
		every, err := s.List(ctx, engine.Config{ThreadID: "t\x00r\xff"}, engine.ListOptions{AllNamespaces: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(every) != len(ids)*len(namespaces) {
			t.Fatalf("List of all namespaces: %d checkpoints, want %d", len(every), len(ids)*len(namespaces))
		}
		infos, err := s.Threads(ctx)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, info := range infos {
			if info.ID == "t\x00r\xff" {
				found = true
				if info.Namespaces != len(namespaces) || info.Checkpoints != len(ids) {
					t.Fatalf("Threads: %d namespaces, %d checkpoints; want %d and %d", info.Namespaces, info.Checkpoints, len(namespaces), len(ids))
				}
			}
		}
		if !found {
			t.Fatalf("Threads: %d threads, not ours", len(infos))
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	}
	verify(write())
	if err := s.DeleteThread(ctx, "t\x00r\xff"); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatalf("Check after DeleteThread: %v", err)
	}
	verify(write())
	s.Close()
	s = openAt(t, path, persist.Options{ReadOnly: true})
	if err := s.Check(); err != nil {
		t.Fatalf("Check after reopening: %v", err)
	}
}

// TestStore_RefusesNamesJSONCannotKeep: a checkpoint whose id, parent id,
// channel or node name is not UTF-8 is refused with ErrInvalidID naming
// it, and nothing is stored; before, the record's JSON kept such a name
// with U+FFFD in place of its bytes, and the checkpoint did not read back
// ("value of \"\ufffd\" at version 7 is missing", "delta base ...
// is missing").
func TestStore_RefusesNamesJSONCannotKeep(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	good := func() *engine.Checkpoint {
		return &engine.Checkpoint{V: engine.CheckpointFormat, ID: "2", TS: time.Unix(2, 0).UTC(),
			ChannelValues: map[string]any{"a": "x"}, ChannelVersions: map[string]engine.Version{"a": 2},
			VersionsSeen: map[string]map[string]engine.Version{"n": {"a": 1}}}
	}
	root := good()
	root.ID = "1"
	if _, err := s.Put(ctx, engine.Config{ThreadID: "t"}, root, engine.Metadata{}, nil); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		parent string
		edit   func(cp *engine.Checkpoint)
		want   string
	}{
		"checkpoint id": {"1", func(cp *engine.Checkpoint) { cp.ID = "2\xff" }, "checkpoint id"},
		"parent id":     {"1\xff", func(*engine.Checkpoint) {}, "parent checkpoint id"},
		"channel": {"1", func(cp *engine.Checkpoint) {
			cp.ChannelValues["b\xfe"], cp.ChannelVersions["b\xfe"] = "y", 2
		}, "channel"},
		"node":         {"1", func(cp *engine.Checkpoint) { cp.VersionsSeen["m\xc3"] = map[string]engine.Version{"a": 1} }, "node"},
		"seen channel": {"1", func(cp *engine.Checkpoint) { cp.VersionsSeen["n"] = map[string]engine.Version{"\xc0\x80": 1} }, "channel"},
	}
	for name, c := range cases {
		cp := good()
		c.edit(cp)
		_, err := s.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: c.parent}, cp, engine.Metadata{}, nil)
		if !errors.Is(err, persist.ErrInvalidID) || !strings.Contains(err.Error(), c.want+" ") || !strings.Contains(err.Error(), "not UTF-8") {
			t.Errorf("%s: Put: %v, want ErrInvalidID naming the %s", name, err, c.want)
		}
	}
	hist, err := s.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil || len(hist) != 1 {
		t.Fatalf("List: %d checkpoints, %v; want the root only", len(hist), err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestLayout3_ReadersDuringWrites: readers of one store (as the debugger
// reads while a run writes) always see whole supersteps on a layout 3
// file: a history that only grows, every listed checkpoint readable with
// its values, and Check clean at every moment.
func TestLayout3_ReadersDuringWrites(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	done := make(chan struct{})
	errs := make(chan error, 4)
	for r := range 3 {
		go func() {
			last := 0
			for i := 0; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				hist, err := s.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{AllNamespaces: true})
				if err == nil && len(hist) < last {
					err = fmt.Errorf("history shrank from %d to %d", last, len(hist))
				}
				if err == nil && len(hist) > 0 {
					last = len(hist)
					var tup *engine.CheckpointTuple
					cfg := hist[i%len(hist)].Config
					if tup, err = s.GetTuple(ctx, cfg); err == nil && tup == nil {
						err = fmt.Errorf("listed checkpoint %s not found", cfg.CheckpointID)
					}
				}
				if err == nil && r == 0 {
					err = s.Check()
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	chain(t, s, "t", 30)
	enginetest.Conversation(t, namespaced{s, "sub"}, "t", 30, true)
	close(done)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
