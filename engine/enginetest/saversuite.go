package enginetest

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// SaverSuite runs the engine.Saver conformance suite against the savers
// newSaver returns, one fresh saver per subtest.
//
// When reopen is not nil, every subtest reads its data again through the
// saver reopen returns (typically: close the store and open the same file),
// so a persistent saver is checked for what it keeps, not only for what it
// caches. reopen owns s from then on; newSaver and reopen should register
// their own cleanup with t.Cleanup.
//
// Checkpoint ids in the suite are fixed-width lowercase hex strings, which
// sort as bytes in creation order, as the engine's ids do.
//
// The suite holds the engine to LangGraph's rule that a channel whose
// version did not change since the parent checkpoint has the same value
// (or the same absence of value) as in the parent: savers may share the
// parent's stored value instead of storing it again. A value that changes
// or disappears (an ephemeral channel cleared) comes with a new version.
func SaverSuite(t *testing.T, newSaver func(t *testing.T) engine.Saver, reopen func(t *testing.T, s engine.Saver) engine.Saver) {
	t.Helper()
	cases := []struct {
		name string
		fn   func(h *harness)
	}{
		{"PutGet/RoundTrip", testRoundTrip},
		{"PutGet/EmptyChannel", testEmptyChannel},
		{"PutGet/UpdatedChannels", testUpdatedChannels},
		{"PutGet/Metadata", testMetadata},
		{"PutGet/Missing", testMissing},
		{"PutGet/LatestIsGreatestID", testLatestIsGreatestID},
		{"PutGet/OddThreadIDs", testOddThreadIDs},
		{"Put/ReplaceSameID", testReplaceSameID},
		{"Put/ForkWithCollidingVersions", testForkCollidingVersions},
		{"Put/LongChain", testLongChain},
		{"PutWrites/Order", testWritesOrder},
		{"PutWrites/RegularFirstWins", testWritesFirstWins},
		{"PutWrites/SpecialOverwrites", testWritesSpecialOverwrite},
		{"PutWrites/NullTaskFirstWins", testWritesNullTask},
		{"PutWrites/KeptApart", testWritesKeptApart},
		{"PutWrites/Values", testWritesValues},
		{"PutWrites/Concurrent", testWritesConcurrent},
		{"PutWrites/TaskErrors", testWritesTaskErrors},
		{"List/NewestFirst", testListNewestFirst},
		{"List/BeforeLimit", testListBeforeLimit},
		{"List/Filter", testListFilter},
		{"List/Namespaces", testListNamespaces},
		{"DeleteThread", testDeleteThread},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := &harness{t: t, s: newSaver(t), reopenFn: reopen, ctx: t.Context()}
			c.fn(h)
		})
	}
}

// harness carries one subtest's saver and the checkpoints it put, so a test
// can compute the newVersions argument the way the engine does.
type harness struct {
	t        *testing.T
	s        engine.Saver
	reopenFn func(t *testing.T, s engine.Saver) engine.Saver
	ctx      context.Context
}

// checkAgain runs check now and, when the suite has a reopen function, once
// more on the reopened saver.
func (h *harness) checkAgain(check func()) {
	h.t.Helper()
	check()
	if h.reopenFn != nil && !h.t.Failed() {
		h.s = h.reopenFn(h.t, h.s)
		check()
	}
}

// ID returns the fixed-width id the suite uses for checkpoint n.
func ID(n int) string { return fmt.Sprintf("%032x", n) }

var baseTime = time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)

// cp builds a checkpoint; maps may be nil.
func cp(n int, values map[string]any, versions map[string]engine.Version, seen map[string]map[string]engine.Version, updated []string) *engine.Checkpoint {
	if values == nil {
		values = map[string]any{}
	}
	if versions == nil {
		versions = map[string]engine.Version{}
	}
	if seen == nil {
		seen = map[string]map[string]engine.Version{}
	}
	return &engine.Checkpoint{
		V:               engine.CheckpointFormat,
		ID:              ID(n),
		TS:              baseTime.Add(time.Duration(n) * time.Millisecond),
		ChannelValues:   values,
		ChannelVersions: versions,
		VersionsSeen:    seen,
		UpdatedChannels: updated,
	}
}

// newVersions is what the engine passes to Put: the channels whose version
// differs from the parent's.
func newVersions(parent, child *engine.Checkpoint) map[string]engine.Version {
	out := map[string]engine.Version{}
	for ch, v := range child.ChannelVersions {
		if parent == nil || parent.ChannelVersions[ch] != v {
			out[ch] = v
		}
	}
	return out
}

func loopMD(step int) engine.Metadata {
	return engine.Metadata{Source: engine.SourceLoop, Step: step, Parents: map[string]string{}}
}

// put stores child under parent (nil for none) and checks the returned config.
func (h *harness) put(thread, ns string, parent, child *engine.Checkpoint, md engine.Metadata) {
	h.t.Helper()
	cfg := engine.Config{ThreadID: thread, CheckpointNS: ns}
	if parent != nil {
		cfg.CheckpointID = parent.ID
	}
	got, err := h.s.Put(h.ctx, cfg, child, md, newVersions(parent, child))
	if err != nil {
		h.t.Fatalf("Put(%s/%q/%s): %v", thread, ns, child.ID, err)
	}
	want := engine.Config{ThreadID: thread, CheckpointNS: ns, CheckpointID: child.ID}
	if got != want {
		h.t.Fatalf("Put returned %+v, want %+v", got, want)
	}
}

func (h *harness) putWrites(thread, ns, id, task string, writes ...engine.Write) {
	h.t.Helper()
	cfg := engine.Config{ThreadID: thread, CheckpointNS: ns, CheckpointID: id}
	if err := h.s.PutWrites(h.ctx, cfg, task, writes); err != nil {
		h.t.Fatalf("PutWrites(%s/%q/%s, %s): %v", thread, ns, id, task, err)
	}
}

func (h *harness) get(thread, ns, id string) *engine.CheckpointTuple {
	h.t.Helper()
	tup, err := h.s.GetTuple(h.ctx, engine.Config{ThreadID: thread, CheckpointNS: ns, CheckpointID: id})
	if err != nil {
		h.t.Fatalf("GetTuple(%s/%q/%s): %v", thread, ns, id, err)
	}
	return tup
}

func (h *harness) mustGet(thread, ns, id string) *engine.CheckpointTuple {
	h.t.Helper()
	tup := h.get(thread, ns, id)
	if tup == nil {
		h.t.Fatalf("GetTuple(%s/%q/%q) = nil, want a checkpoint", thread, ns, id)
	}
	return tup
}

func (h *harness) list(cfg engine.Config, opt engine.ListOptions) []*engine.CheckpointTuple {
	h.t.Helper()
	out, err := h.s.List(h.ctx, cfg, opt)
	if err != nil {
		h.t.Fatalf("List(%+v, %+v): %v", cfg, opt, err)
	}
	return out
}

func ids(tups []*engine.CheckpointTuple) []string {
	out := make([]string, len(tups))
	for i, tp := range tups {
		out[i] = tp.Config.CheckpointID
	}
	return out
}

func (h *harness) wantIDs(what string, got []*engine.CheckpointTuple, want ...string) {
	h.t.Helper()
	if g := ids(got); !slices.Equal(g, want) && !(len(g) == 0 && len(want) == 0) {
		h.t.Errorf("%s: ids %v, want %v", what, shortIDs(g), shortIDs(want))
	}
}

func shortIDs(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf("%x", []byte(id))
		if len(id) == 32 {
			var n int
			if _, err := fmt.Sscanf(id, "%x", &n); err == nil {
				out[i] = fmt.Sprint(n)
			}
		}
	}
	return out
}

// checkTuple compares a stored tuple with what was put.
func (h *harness) checkTuple(got *engine.CheckpointTuple, thread, ns string, want *engine.Checkpoint, md engine.Metadata, parentID string) {
	h.t.Helper()
	if got == nil {
		h.t.Fatalf("checkpoint %s/%q/%s missing", thread, ns, want.ID)
	}
	wantCfg := engine.Config{ThreadID: thread, CheckpointNS: ns, CheckpointID: want.ID}
	if got.Config != wantCfg {
		h.t.Errorf("tuple config %+v, want %+v", got.Config, wantCfg)
	}
	if got.ParentID != parentID {
		h.t.Errorf("checkpoint %s: parent %q, want %q", shortIDs([]string{want.ID}), got.ParentID, parentID)
	}
	checkCheckpoint(h.t, got.Checkpoint, want)
	checkMetadata(h.t, want.ID, got.Metadata, md)
}

func checkCheckpoint(t *testing.T, got, want *engine.Checkpoint) {
	t.Helper()
	if got == nil {
		t.Fatalf("checkpoint %s: nil Checkpoint in tuple", want.ID)
	}
	name := shortIDs([]string{want.ID})[0]
	if got.ID != want.ID || got.V != want.V {
		t.Errorf("checkpoint %s: id/v %q/%d, want %q/%d", name, got.ID, got.V, want.ID, want.V)
	}
	if !got.TS.Equal(want.TS) {
		t.Errorf("checkpoint %s: ts %v, want %v", name, got.TS, want.TS)
	}
	if got.ChannelValues == nil || got.ChannelVersions == nil || got.VersionsSeen == nil {
		t.Errorf("checkpoint %s: nil maps in a returned checkpoint (values %v, versions %v, seen %v)", name,
			got.ChannelValues == nil, got.ChannelVersions == nil, got.VersionsSeen == nil)
	}
	if g, w := engine.Normalize(got.ChannelValues), engine.Normalize(want.ChannelValues); !reflect.DeepEqual(g, w) {
		t.Errorf("checkpoint %s: values\n got %s\nwant %s", name, engine.MustEncode(got.ChannelValues), engine.MustEncode(want.ChannelValues))
	}
	if !maps.Equal(got.ChannelVersions, want.ChannelVersions) {
		t.Errorf("checkpoint %s: versions\n got %v\nwant %v", name, got.ChannelVersions, want.ChannelVersions)
	}
	if !seenEqual(got.VersionsSeen, want.VersionsSeen) {
		t.Errorf("checkpoint %s: versions seen\n got %v\nwant %v", name, got.VersionsSeen, want.VersionsSeen)
	}
	// nil ("unknown") and empty ("nothing changed") mean different things to
	// the planner, so they must survive the round trip.
	if (got.UpdatedChannels == nil) != (want.UpdatedChannels == nil) || !slices.Equal(got.UpdatedChannels, want.UpdatedChannels) {
		t.Errorf("checkpoint %s: updated channels %#v, want %#v", name, got.UpdatedChannels, want.UpdatedChannels)
	}
}

func seenEqual(a, b map[string]map[string]engine.Version) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !maps.Equal(av, bv) {
			return false
		}
	}
	return true
}

func checkMetadata(t *testing.T, id string, got, want engine.Metadata) {
	t.Helper()
	name := shortIDs([]string{id})[0]
	if got.Source != want.Source || got.Step != want.Step {
		t.Errorf("checkpoint %s: metadata source/step %q/%d, want %q/%d", name, got.Source, got.Step, want.Source, want.Step)
	}
	if !maps.Equal(got.Parents, want.Parents) {
		t.Errorf("checkpoint %s: metadata parents %v, want %v", name, got.Parents, want.Parents)
	}
	if g, w := engine.Normalize(anyMap(got.Extra)), engine.Normalize(anyMap(want.Extra)); !reflect.DeepEqual(g, w) {
		t.Errorf("checkpoint %s: metadata extra %v, want %v", name, got.Extra, want.Extra)
	}
}

// anyMap treats nil and empty maps alike.
func anyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func (h *harness) wantWrites(what string, got []engine.PendingWrite, want ...engine.PendingWrite) {
	h.t.Helper()
	g := make([]engine.PendingWrite, len(got))
	for i, w := range got {
		g[i] = engine.PendingWrite{TaskID: w.TaskID, Channel: w.Channel, Value: engine.Normalize(w.Value)}
	}
	wn := make([]engine.PendingWrite, len(want))
	for i, w := range want {
		wn[i] = engine.PendingWrite{TaskID: w.TaskID, Channel: w.Channel, Value: engine.Normalize(w.Value)}
	}
	if !reflect.DeepEqual(g, wn) && !(len(g) == 0 && len(wn) == 0) {
		h.t.Errorf("%s: pending writes\n got %s\nwant %s", what, fmtWrites(got), fmtWrites(want))
	}
}

func fmtWrites(ws []engine.PendingWrite) string {
	s := "["
	for i, w := range ws {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("{%s %s %s}", w.TaskID, w.Channel, engine.MustEncode(w.Value))
	}
	return s + "]"
}

func pw(task, ch string, v any) engine.PendingWrite {
	return engine.PendingWrite{TaskID: task, Channel: ch, Value: v}
}

func wr(ch string, v any) engine.Write { return engine.Write{Channel: ch, Value: v} }

// Task ids are fixed-width like the engine's, so their order is obvious.
const (
	taskA = "aaaaaaaa-0000-0000-0000-000000000001"
	taskB = "bbbbbbbb-0000-0000-0000-000000000002"
	taskC = "cccccccc-0000-0000-0000-000000000003"
)

func testRoundTrip(h *harness) {
	const th = "thread-1"
	c1 := cp(1, map[string]any{"__start__": map[string]any{"question": "hi"}},
		map[string]engine.Version{"__start__": 1},
		map[string]map[string]engine.Version{"__input__": {}}, nil)
	md1 := engine.Metadata{Source: engine.SourceInput, Step: -1, Parents: map[string]string{}}
	c2 := cp(2, map[string]any{
		"question": "hi",
		"count":    42.5,
		"flag":     true,
		"nothing":  nil,
		"nested": map[string]any{
			"list": []any{1.0, "two", []any{3.0, map[string]any{"four": 4.0}}, nil, false},
			"map":  map[string]any{"a": map[string]any{"b": []any{}}, "empty": map[string]any{}},
		},
		"__pregel_tasks": []any{
			engine.Send{Node: "worker", Arg: map[string]any{"item": 1.0, "tags": []any{"x"}}},
			engine.Send{Node: "worker", Arg: []any{engine.Send{Node: "inner", Arg: "deep"}}},
		},
		"unicode": "héllo ✓ \u0000 \"quoted\"",
	}, map[string]engine.Version{
		"__start__": 2, "question": 2, "count": 2, "flag": 2, "nothing": 2, "nested": 2,
		"__pregel_tasks": 2, "unicode": 2, "branch:to:agent": 2,
	}, map[string]map[string]engine.Version{
		"__input__": {},
		"__start__": {"__start__": 1},
		"agent":     {"branch:to:agent": 1, "question": 1},
	}, []string{"__pregel_tasks", "count", "question"})
	md2 := engine.Metadata{Source: engine.SourceLoop, Step: 0, Parents: map[string]string{},
		Extra: map[string]any{"run_id": "r-1", "attempt": 2.0, "tagged": true}}

	h.put(th, "", nil, c1, md1)
	h.put(th, "", c1, c2, md2)
	h.checkAgain(func() {
		h.checkTuple(h.mustGet(th, "", c1.ID), th, "", c1, md1, "")
		h.checkTuple(h.mustGet(th, "", c2.ID), th, "", c2, md2, c1.ID)
		h.checkTuple(h.mustGet(th, "", ""), th, "", c2, md2, c1.ID)
	})
}

func testEmptyChannel(h *harness) {
	const th = "t"
	// "later" has a version but no value (LangGraph's "empty" blob).
	c1 := cp(1, map[string]any{"a": "x"}, map[string]engine.Version{"a": 1, "later": 1}, nil, nil)
	c2 := cp(2, map[string]any{"a": "x", "later": "now"}, map[string]engine.Version{"a": 1, "later": 2}, nil, []string{"later"})
	c3 := cp(3, map[string]any{"a": "x"}, map[string]engine.Version{"a": 1, "later": 3}, nil, []string{"later"})
	h.put(th, "", nil, c1, loopMD(0))
	h.put(th, "", c1, c2, loopMD(1))
	h.put(th, "", c2, c3, loopMD(2))
	h.checkAgain(func() {
		h.checkTuple(h.mustGet(th, "", c1.ID), th, "", c1, loopMD(0), "")
		h.checkTuple(h.mustGet(th, "", c2.ID), th, "", c2, loopMD(1), c1.ID)
		h.checkTuple(h.mustGet(th, "", c3.ID), th, "", c3, loopMD(2), c2.ID)
	})
}

func testUpdatedChannels(h *harness) {
	const th = "t"
	c1 := cp(1, nil, nil, nil, nil)
	c2 := cp(2, nil, nil, nil, []string{})
	c3 := cp(3, map[string]any{"a": 1.0}, map[string]engine.Version{"a": 1}, nil, []string{"a"})
	c4 := cp(4, map[string]any{"a": 1.0}, map[string]engine.Version{"a": 1}, nil, nil)
	h.put(th, "", nil, c1, loopMD(0))
	h.put(th, "", c1, c2, loopMD(1))
	h.put(th, "", c2, c3, loopMD(2))
	h.put(th, "", c3, c4, loopMD(3))
	h.checkAgain(func() {
		for i, c := range []*engine.Checkpoint{c1, c2, c3, c4} {
			checkCheckpoint(h.t, h.mustGet(th, "", c.ID).Checkpoint, c)
			_ = i
		}
	})
}

func testMetadata(h *harness) {
	const th = "t"
	mds := []engine.Metadata{
		{Source: engine.SourceInput, Step: -1, Parents: map[string]string{}},
		{Source: engine.SourceLoop, Step: 0, Parents: map[string]string{"": ID(7)}},
		{Source: engine.SourceUpdate, Step: 1, Parents: map[string]string{"": ID(7), "outer:abc": ID(8)},
			Extra: map[string]any{"writes": "x", "n": 3.0, "ok": false, "none": nil}},
		{Source: engine.SourceFork, Step: 12345, Parents: map[string]string{}, Extra: map[string]any{}},
		{Source: engine.SourceLoop, Step: 2, Parents: nil},
	}
	var parent *engine.Checkpoint
	for i, md := range mds {
		c := cp(i+1, nil, nil, nil, nil)
		h.put(th, "", parent, c, md)
		parent = c
	}
	h.checkAgain(func() {
		for i, md := range mds {
			got := h.mustGet(th, "", ID(i+1))
			checkMetadata(h.t, ID(i+1), got.Metadata, md)
		}
	})
}

func testMissing(h *harness) {
	c1 := cp(1, map[string]any{"a": "x"}, map[string]engine.Version{"a": 1}, nil, nil)
	h.put("present", "", nil, c1, loopMD(0))
	h.putWrites("present", "", c1.ID, taskA, wr("a", "y"))
	h.checkAgain(func() {
		for _, cfg := range []engine.Config{
			{ThreadID: "absent"},
			{ThreadID: "absent", CheckpointID: c1.ID},
			{ThreadID: "present", CheckpointID: ID(99)},
			{ThreadID: "present", CheckpointNS: "child:1"},
			{ThreadID: "present", CheckpointNS: "child:1", CheckpointID: c1.ID},
		} {
			got, err := h.s.GetTuple(h.ctx, cfg)
			if err != nil || got != nil {
				h.t.Errorf("GetTuple(%+v) = %v, %v; want nil, nil", cfg, got, err)
			}
		}
		if got := h.list(engine.Config{ThreadID: "absent"}, engine.ListOptions{}); len(got) != 0 {
			h.t.Errorf("List(absent) returned %d tuples", len(got))
		}
		if got := h.list(engine.Config{ThreadID: "absent"}, engine.ListOptions{AllNamespaces: true}); len(got) != 0 {
			h.t.Errorf("List(absent, all namespaces) returned %d tuples", len(got))
		}
	})
}

func testLatestIsGreatestID(h *harness) {
	const th = "t"
	c5 := cp(5, map[string]any{"a": 5.0}, map[string]engine.Version{"a": 5}, nil, nil)
	c3 := cp(3, map[string]any{"a": 3.0}, map[string]engine.Version{"a": 3}, nil, nil)
	h.put(th, "", nil, c5, loopMD(5))
	h.put(th, "", nil, c3, loopMD(3))
	h.checkAgain(func() {
		h.checkTuple(h.mustGet(th, "", ""), th, "", c5, loopMD(5), "")
	})
}

func testOddThreadIDs(h *harness) {
	threads := []string{"a/b", "ü∂✓", "with space", "x\x00y", "0", "a", "ab", "a\xffb"}
	// Values go through a JSON codec, so they carry the index, not the id
	// (which need not be UTF-8).
	for i, th := range threads {
		c := cp(1, map[string]any{"who": float64(i)}, map[string]engine.Version{"who": 1}, nil, nil)
		h.put(th, "", nil, c, loopMD(i))
	}
	h.checkAgain(func() {
		for i, th := range threads {
			c := cp(1, map[string]any{"who": float64(i)}, map[string]engine.Version{"who": 1}, nil, nil)
			h.checkTuple(h.mustGet(th, "", ""), th, "", c, loopMD(i), "")
		}
	})
}

// testReplaceSameID puts a checkpoint again under the same id: the new one
// replaces it (as a dict assignment does in LangGraph's savers), and its
// children keep reading back exactly what was put for them.
func testReplaceSameID(h *harness) {
	const th = "t"
	c1 := cp(1, map[string]any{"a": "one", "list": []any{"m1"}}, map[string]engine.Version{"a": 1, "list": 1},
		map[string]map[string]engine.Version{"n": {"a": 1}}, nil)
	c2 := cp(2, map[string]any{"a": "two", "list": []any{"m1", "m2"}}, map[string]engine.Version{"a": 2, "list": 2},
		map[string]map[string]engine.Version{"n": {"a": 2}}, []string{"a", "list"})
	c3 := cp(3, map[string]any{"a": "two", "list": []any{"m1", "m2", "m3"}}, map[string]engine.Version{"a": 2, "list": 3},
		map[string]map[string]engine.Version{"n": {"a": 2}, "m": {"list": 3}}, []string{"list"})
	h.put(th, "", nil, c1, loopMD(0))
	h.put(th, "", c1, c2, loopMD(1))
	h.put(th, "", c2, c3, loopMD(2))
	h.putWrites(th, "", c2.ID, taskA, wr("a", "w"))

	c2b := cp(2, map[string]any{"a": "other", "b": 1.0}, map[string]engine.Version{"a": 5, "b": 5},
		map[string]map[string]engine.Version{"x": {"b": 4}}, nil)
	md2b := engine.Metadata{Source: engine.SourceUpdate, Step: 9, Parents: map[string]string{}}
	h.put(th, "", c1, c2b, md2b)
	h.checkAgain(func() {
		got := h.mustGet(th, "", c2.ID)
		h.checkTuple(got, th, "", c2b, md2b, c1.ID)
		h.wantWrites("writes of the replaced checkpoint", got.PendingWrites, pw(taskA, "a", "w"))
		h.checkTuple(h.mustGet(th, "", c3.ID), th, "", c3, loopMD(2), c2.ID)
		h.checkTuple(h.mustGet(th, "", c1.ID), th, "", c1, loopMD(0), "")
		h.wantIDs("list", h.list(engine.Config{ThreadID: th}, engine.ListOptions{}), ID(3), ID(2), ID(1))
	})
}

// testForkCollidingVersions forks a thread: two children of one parent give
// a channel the same next version with different values, as a replay or
// update_state from an old checkpoint does. Each must keep its own value.
func testForkCollidingVersions(h *harness) {
	const th = "t"
	c1 := cp(1, map[string]any{"a": "base", "msgs": []any{"m1"}}, map[string]engine.Version{"a": 1, "msgs": 1}, nil, nil)
	c2 := cp(2, map[string]any{"a": "left", "msgs": []any{"m1", "left"}}, map[string]engine.Version{"a": 2, "msgs": 2}, nil, []string{"a", "msgs"})
	c3 := cp(3, map[string]any{"a": "right", "msgs": []any{"m1", "right"}}, map[string]engine.Version{"a": 2, "msgs": 2}, nil, []string{"a", "msgs"})
	c4 := cp(4, map[string]any{"a": "right", "msgs": []any{"m1", "right", "more"}}, map[string]engine.Version{"a": 2, "msgs": 3}, nil, []string{"msgs"})
	c5 := cp(5, map[string]any{"a": "left", "msgs": []any{"m1", "left", "again"}}, map[string]engine.Version{"a": 2, "msgs": 3}, nil, []string{"msgs"})
	h.put(th, "", nil, c1, loopMD(0))
	h.put(th, "", c1, c2, loopMD(1))
	h.put(th, "", c1, c3, engine.Metadata{Source: engine.SourceFork, Step: 1, Parents: map[string]string{}})
	h.put(th, "", c3, c4, loopMD(2))
	h.put(th, "", c2, c5, loopMD(2))
	h.checkAgain(func() {
		for _, c := range []*engine.Checkpoint{c1, c2, c3, c4, c5} {
			checkCheckpoint(h.t, h.mustGet(th, "", c.ID).Checkpoint, c)
		}
	})
}

// testLongChain grows a thread the way a chat agent does: a message list
// that only appends, a counter, alternating branch channels, a channel that
// comes and goes, and versions_seen that change every step. It is long
// enough to cross any periodic full image a delta-encoding saver keeps.
func testLongChain(h *harness) {
	const th, n = "chain", 200
	var want []*engine.Checkpoint
	var mds []engine.Metadata
	var parent *engine.Checkpoint
	msgs := []any{}
	for i := 1; i <= n; i++ {
		v := engine.Version(i)
		msgs = append(slices.Clip(msgs), map[string]any{"role": "ai", "content": fmt.Sprintf("message %d", i), "id": fmt.Sprint(i)})
		values := map[string]any{"messages": msgs, "count": float64(i)}
		versions := map[string]engine.Version{"messages": v, "count": v}
		seen := map[string]map[string]engine.Version{"__input__": {}}
		updated := []string{"count", "messages"}
		if parent != nil {
			maps.Copy(versions, parent.ChannelVersions)
			versions["messages"], versions["count"] = v, v
			for k, m := range parent.VersionsSeen {
				seen[k] = m
			}
		}
		node := fmt.Sprintf("node%d", i%3)
		branch := "branch:to:" + node
		versions[branch] = v
		updated = append(updated, branch)
		seen[node] = map[string]engine.Version{branch: v - 1, "messages": v - 1}
		if i%50 == 25 {
			versions["scratch"] = v
			values["scratch"] = fmt.Sprintf("scratch %d", i)
			updated = append(updated, "scratch")
		} else if i%50 == 30 {
			delete(versions, "scratch")
			delete(seen, "node0")
		} else if _, ok := versions["scratch"]; ok {
			values["scratch"] = parent.ChannelValues["scratch"]
		}
		slices.Sort(updated)
		c := cp(i, values, versions, seen, updated)
		md := loopMD(i - 1)
		h.put(th, "", parent, c, md)
		want = append(want, c)
		mds = append(mds, md)
		parent = c
	}
	h.checkAgain(func() {
		for i, c := range want {
			parentID := ""
			if i > 0 {
				parentID = want[i-1].ID
			}
			h.checkTuple(h.mustGet(th, "", c.ID), th, "", c, mds[i], parentID)
			if h.t.Failed() {
				return
			}
		}
		all := h.list(engine.Config{ThreadID: th}, engine.ListOptions{})
		if len(all) != n {
			h.t.Fatalf("List returned %d tuples, want %d", len(all), n)
		}
		for i, tup := range all {
			checkCheckpoint(h.t, tup.Checkpoint, want[n-1-i])
		}
	})
}

func testWritesOrder(h *harness) {
	const th = "t"
	c1 := cp(1, nil, nil, nil, nil)
	h.put(th, "", nil, c1, loopMD(0))
	// Calls arrive in no particular task order; specials are mixed in.
	h.putWrites(th, "", c1.ID, taskC, wr("x", "c0"))
	h.putWrites(th, "", c1.ID, taskB, wr("x", "b0"), wr(engine.InterruptChannel, []engine.Interruption{{ID: "i1", Value: "why?"}}), wr("y", "b2"))
	h.putWrites(th, "", c1.ID, taskA, wr(engine.ErrorChannel, "boom"), wr("x", "a1"))
	h.putWrites(th, "", c1.ID, taskB, wr(engine.ScheduledChannel, nil), wr(engine.ResumeChannel, []any{"yes"}))
	h.checkAgain(func() {
		got := h.mustGet(th, "", "")
		h.wantWrites("GetTuple", got.PendingWrites,
			pw(taskA, engine.ErrorChannel, "boom"),
			pw(taskA, "x", "a1"),
			pw(taskB, engine.ResumeChannel, []any{"yes"}),
			pw(taskB, engine.InterruptChannel, []engine.Interruption{{ID: "i1", Value: "why?"}}),
			pw(taskB, engine.ScheduledChannel, nil),
			pw(taskB, "x", "b0"),
			pw(taskB, "y", "b2"),
			pw(taskC, "x", "c0"),
		)
		lst := h.list(engine.Config{ThreadID: th}, engine.ListOptions{})
		if len(lst) != 1 {
			h.t.Fatalf("List: %d tuples, want 1", len(lst))
		}
		h.wantWrites("List", lst[0].PendingWrites, got.PendingWrites...)
	})
}

func testWritesFirstWins(h *harness) {
	const th = "t"
	c1 := cp(1, nil, nil, nil, nil)
	h.put(th, "", nil, c1, loopMD(0))
	h.putWrites(th, "", c1.ID, taskA, wr("a", 1.0))
	h.putWrites(th, "", c1.ID, taskA, wr("a", 2.0), wr("b", 3.0))
	h.putWrites(th, "", c1.ID, taskA, wr("c", 4.0))
	h.checkAgain(func() {
		h.wantWrites("regular writes", h.mustGet(th, "", "").PendingWrites,
			pw(taskA, "a", 1.0), pw(taskA, "b", 3.0))
	})
}

func testWritesSpecialOverwrite(h *harness) {
	const th = "t"
	c1 := cp(1, nil, nil, nil, nil)
	h.put(th, "", nil, c1, loopMD(0))
	h.putWrites(th, "", c1.ID, taskA, wr(engine.ErrorChannel, "first"), wr("x", 1.0))
	h.putWrites(th, "", c1.ID, taskA, wr(engine.ErrorChannel, "second"))
	h.putWrites(th, "", c1.ID, taskB, wr(engine.InterruptChannel, []engine.Interruption{{ID: "i", Value: 1.0}}))
	h.putWrites(th, "", c1.ID, taskB, wr(engine.InterruptChannel, []engine.Interruption{{ID: "i", Value: 2.0}}))
	h.checkAgain(func() {
		h.wantWrites("special writes", h.mustGet(th, "", "").PendingWrites,
			pw(taskA, engine.ErrorChannel, "second"),
			pw(taskA, "x", 1.0),
			pw(taskB, engine.InterruptChannel, []engine.Interruption{{ID: "i", Value: 2.0}}))
	})
}

// testWritesNullTask: the null task's writes (Command input, answers) keep
// a slot's first write like any task's, across calls: "two" and "four" go
// to slots 0 and 1, which "one" and "three" hold; the answer, special, is
// the last one.
func testWritesNullTask(h *harness) {
	const th = "t"
	c1 := cp(1, nil, nil, nil, nil)
	h.put(th, "", nil, c1, loopMD(0))
	h.putWrites(th, "", c1.ID, engine.NullTaskID, wr("x", "one"))
	h.putWrites(th, "", c1.ID, engine.NullTaskID, wr("x", "two"), wr("y", "three"))
	h.putWrites(th, "", c1.ID, engine.NullTaskID, wr(engine.ResumeChannel, "r1"))
	h.putWrites(th, "", c1.ID, engine.NullTaskID, wr(engine.ResumeChannel, "r2"), wr("z", "four"))
	h.checkAgain(func() {
		h.wantWrites("null task writes", h.mustGet(th, "", "").PendingWrites,
			pw(engine.NullTaskID, engine.ResumeChannel, "r2"),
			pw(engine.NullTaskID, "x", "one"),
			pw(engine.NullTaskID, "y", "three"))
	})
}

func testWritesKeptApart(h *harness) {
	const th = "t"
	c1 := cp(1, nil, nil, nil, nil)
	c2 := cp(2, nil, nil, nil, nil)
	h.put(th, "", nil, c1, loopMD(0))
	h.put(th, "", c1, c2, loopMD(1))
	h.put(th, "child:1", nil, c1, loopMD(0))
	h.put("other", "", nil, c1, loopMD(0))
	h.putWrites(th, "", c1.ID, taskA, wr("x", "root c1"))
	h.putWrites(th, "", c2.ID, taskA, wr("x", "root c2"))
	h.putWrites(th, "child:1", c1.ID, taskA, wr("x", "child c1"))
	h.putWrites("other", "", c1.ID, taskA, wr("x", "other c1"))
	h.checkAgain(func() {
		h.wantWrites("root c1", h.mustGet(th, "", c1.ID).PendingWrites, pw(taskA, "x", "root c1"))
		h.wantWrites("root c2", h.mustGet(th, "", c2.ID).PendingWrites, pw(taskA, "x", "root c2"))
		h.wantWrites("child c1", h.mustGet(th, "child:1", c1.ID).PendingWrites, pw(taskA, "x", "child c1"))
		h.wantWrites("other c1", h.mustGet("other", "", c1.ID).PendingWrites, pw(taskA, "x", "other c1"))
	})
}

func testWritesValues(h *harness) {
	const th = "t"
	c1 := cp(1, nil, nil, nil, nil)
	h.put(th, "", nil, c1, loopMD(0))
	values := []any{
		nil, true, 0.0, -1.5, 1e300, "", "text ✓",
		[]any{}, map[string]any{},
		map[string]any{"a": []any{1.0, map[string]any{"b": nil}}},
		engine.Send{Node: "n", Arg: map[string]any{"k": []any{"v"}}},
		[]any{engine.Send{Node: "a", Arg: nil}, engine.Send{Node: "b", Arg: 2.0}},
	}
	var writes []engine.Write
	var want []engine.PendingWrite
	for i, v := range values {
		ch := fmt.Sprintf("ch%02d", i)
		writes = append(writes, wr(ch, v))
		want = append(want, pw(taskA, ch, v))
	}
	h.putWrites(th, "", c1.ID, taskA, writes...)
	h.checkAgain(func() {
		h.wantWrites("values", h.mustGet(th, "", "").PendingWrites, want...)
	})
}

func testWritesConcurrent(h *harness) {
	const th, tasks = "t", 64
	c1 := cp(1, nil, nil, nil, nil)
	h.put(th, "", nil, c1, loopMD(0))
	var wg sync.WaitGroup
	errs := make(chan error, tasks)
	for i := range tasks {
		wg.Go(func() {
			task := fmt.Sprintf("task-%04d", i)
			cfg := engine.Config{ThreadID: th, CheckpointID: c1.ID}
			err := h.s.PutWrites(h.ctx, cfg, task, []engine.Write{wr("out", float64(i)), wr("log", task)})
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		h.t.Fatalf("concurrent PutWrites: %v", err)
	}
	var want []engine.PendingWrite
	for i := range tasks {
		task := fmt.Sprintf("task-%04d", i)
		want = append(want, pw(task, "out", float64(i)), pw(task, "log", task))
	}
	h.checkAgain(func() {
		h.wantWrites("concurrent", h.mustGet(th, "", "").PendingWrites, want...)
	})
}

// listThread puts ten checkpoints with steps -1..8, sources input, then
// loop and update alternating, and an extra "run" that switches halfway.
func listThread(h *harness, th string) []engine.Metadata {
	var mds []engine.Metadata
	var parent *engine.Checkpoint
	for i := 1; i <= 10; i++ {
		md := engine.Metadata{Source: engine.SourceLoop, Step: i - 2, Parents: map[string]string{},
			Extra: map[string]any{"run": "r1", "n": float64(i)}}
		switch {
		case i == 1:
			md.Source = engine.SourceInput
		case i%2 == 0:
			md.Source = engine.SourceUpdate
		}
		if i > 5 {
			md.Extra["run"] = "r2"
		}
		c := cp(i, map[string]any{"i": float64(i)}, map[string]engine.Version{"i": engine.Version(i)}, nil, nil)
		h.put(th, "", parent, c, md)
		mds = append(mds, md)
		parent = c
	}
	return mds
}

func testListNewestFirst(h *harness) {
	mds := listThread(h, "t")
	h.checkAgain(func() {
		got := h.list(engine.Config{ThreadID: "t"}, engine.ListOptions{})
		h.wantIDs("List", got, ID(10), ID(9), ID(8), ID(7), ID(6), ID(5), ID(4), ID(3), ID(2), ID(1))
		for _, tup := range got {
			var n int
			fmt.Sscanf(tup.Config.CheckpointID, "%x", &n)
			checkMetadata(h.t, tup.Config.CheckpointID, tup.Metadata, mds[n-1])
			if want := ""; n > 1 {
				want = ID(n - 1)
				if tup.ParentID != want {
					h.t.Errorf("List: %d has parent %q, want %q", n, tup.ParentID, want)
				}
			}
			if got := engine.Normalize(tup.Checkpoint.ChannelValues["i"]); got != float64(n) {
				h.t.Errorf("List: %d has value %v", n, got)
			}
		}
		h.wantIDs("List with a checkpoint id", h.list(engine.Config{ThreadID: "t", CheckpointID: ID(4)}, engine.ListOptions{}), ID(4))
	})
}

func testListBeforeLimit(h *harness) {
	listThread(h, "t")
	cfg := engine.Config{ThreadID: "t"}
	h.checkAgain(func() {
		h.wantIDs("Limit 3", h.list(cfg, engine.ListOptions{Limit: 3}), ID(10), ID(9), ID(8))
		h.wantIDs("Before 5", h.list(cfg, engine.ListOptions{Before: ID(5)}), ID(4), ID(3), ID(2), ID(1))
		h.wantIDs("Before 5 Limit 2", h.list(cfg, engine.ListOptions{Before: ID(5), Limit: 2}), ID(4), ID(3))
		h.wantIDs("Before 1", h.list(cfg, engine.ListOptions{Before: ID(1)}))
		h.wantIDs("Before a missing id", h.list(cfg, engine.ListOptions{Before: ID(100)}),
			ID(10), ID(9), ID(8), ID(7), ID(6), ID(5), ID(4), ID(3), ID(2), ID(1))
		h.wantIDs("Before an id between ids", h.list(cfg, engine.ListOptions{Before: ID(3) + "0"}), ID(3), ID(2), ID(1))
		h.wantIDs("Limit 100", h.list(cfg, engine.ListOptions{Limit: 100}),
			ID(10), ID(9), ID(8), ID(7), ID(6), ID(5), ID(4), ID(3), ID(2), ID(1))
	})
}

func testListFilter(h *harness) {
	listThread(h, "t")
	cfg := engine.Config{ThreadID: "t"}
	h.checkAgain(func() {
		h.wantIDs("source=input", h.list(cfg, engine.ListOptions{Filter: map[string]any{"source": "input"}}), ID(1))
		h.wantIDs("source=loop", h.list(cfg, engine.ListOptions{Filter: map[string]any{"source": "loop"}}), ID(9), ID(7), ID(5), ID(3))
		h.wantIDs("step=3 (int)", h.list(cfg, engine.ListOptions{Filter: map[string]any{"step": 3}}), ID(5))
		h.wantIDs("step=3 (float)", h.list(cfg, engine.ListOptions{Filter: map[string]any{"step": 3.0}}), ID(5))
		h.wantIDs("step=-1", h.list(cfg, engine.ListOptions{Filter: map[string]any{"step": -1}}), ID(1))
		h.wantIDs("run=r2", h.list(cfg, engine.ListOptions{Filter: map[string]any{"run": "r2"}}), ID(10), ID(9), ID(8), ID(7), ID(6))
		h.wantIDs("n=4", h.list(cfg, engine.ListOptions{Filter: map[string]any{"n": 4}}), ID(4))
		h.wantIDs("run=r2 source=update", h.list(cfg, engine.ListOptions{Filter: map[string]any{"run": "r2", "source": "update"}}), ID(10), ID(8), ID(6))
		h.wantIDs("run=r2 source=update Limit 2", h.list(cfg, engine.ListOptions{Filter: map[string]any{"run": "r2", "source": "update"}, Limit: 2}), ID(10), ID(8))
		h.wantIDs("run=r2 Before 8", h.list(cfg, engine.ListOptions{Filter: map[string]any{"run": "r2"}, Before: ID(8)}), ID(7), ID(6))
		h.wantIDs("unknown key", h.list(cfg, engine.ListOptions{Filter: map[string]any{"nope": "x"}}))
		h.wantIDs("run=r3", h.list(cfg, engine.ListOptions{Filter: map[string]any{"run": "r3"}}))
	})
}

func testListNamespaces(h *harness) {
	const th = "t"
	root1 := cp(1, map[string]any{"where": "root"}, map[string]engine.Version{"where": 1}, nil, nil)
	childNS := "inner:4a8e|deeper:77"
	child2 := cp(2, map[string]any{"where": "child"}, map[string]engine.Version{"where": 1}, nil, nil)
	root3 := cp(3, map[string]any{"where": "root"}, map[string]engine.Version{"where": 1}, nil, nil)
	child4 := cp(4, map[string]any{"where": "child"}, map[string]engine.Version{"where": 1}, nil, nil)
	// The same id in two namespaces is two checkpoints.
	other3 := cp(3, map[string]any{"where": "other"}, map[string]engine.Version{"where": 7}, nil, nil)
	childMD := engine.Metadata{Source: engine.SourceLoop, Step: 0, Parents: map[string]string{"": root1.ID}}
	h.put(th, "", nil, root1, loopMD(0))
	h.put(th, childNS, nil, child2, childMD)
	h.put(th, "", root1, root3, loopMD(1))
	h.put(th, childNS, child2, child4, childMD)
	h.put(th, "other:1", nil, other3, loopMD(0))
	h.putWrites(th, childNS, child4.ID, taskA, wr("x", "child"))
	h.checkAgain(func() {
		h.wantIDs("root", h.list(engine.Config{ThreadID: th}, engine.ListOptions{}), ID(3), ID(1))
		h.wantIDs("child", h.list(engine.Config{ThreadID: th, CheckpointNS: childNS}, engine.ListOptions{}), ID(4), ID(2))
		all := h.list(engine.Config{ThreadID: th}, engine.ListOptions{AllNamespaces: true})
		h.wantIDs("all", all, ID(4), ID(3), ID(3), ID(2), ID(1))
		var nss []string
		for _, tup := range all {
			nss = append(nss, tup.Config.CheckpointNS)
		}
		if want := []string{childNS, "", "other:1", childNS, ""}; !slices.Equal(nss, want) {
			h.t.Errorf("all namespaces: namespaces %q, want %q", nss, want)
		}
		h.wantIDs("all, Limit 2", h.list(engine.Config{ThreadID: th}, engine.ListOptions{AllNamespaces: true, Limit: 2}), ID(4), ID(3))
		h.wantIDs("all, Before 3", h.list(engine.Config{ThreadID: th}, engine.ListOptions{AllNamespaces: true, Before: ID(3)}), ID(2), ID(1))
		h.checkTuple(h.mustGet(th, childNS, ""), th, childNS, child4, childMD, child2.ID)
		h.checkTuple(h.mustGet(th, "", ""), th, "", root3, loopMD(1), root1.ID)
		h.checkTuple(h.mustGet(th, "other:1", ID(3)), th, "other:1", other3, loopMD(0), "")
		h.checkTuple(h.mustGet(th, "", ID(3)), th, "", root3, loopMD(1), root1.ID)
		h.wantWrites("child writes", h.mustGet(th, childNS, "").PendingWrites, pw(taskA, "x", "child"))
		h.wantWrites("root writes", h.mustGet(th, "", "").PendingWrites)
	})
}

func testDeleteThread(h *harness) {
	c1 := cp(1, map[string]any{"a": "x"}, map[string]engine.Version{"a": 1}, nil, nil)
	c2 := cp(2, map[string]any{"a": "y"}, map[string]engine.Version{"a": 2}, nil, nil)
	for _, th := range []string{"keep", "drop"} {
		h.put(th, "", nil, c1, loopMD(0))
		h.put(th, "", c1, c2, loopMD(1))
		h.put(th, "sub:1", nil, c1, loopMD(0))
		h.putWrites(th, "", c2.ID, taskA, wr("a", th))
	}
	if err := h.s.DeleteThread(h.ctx, "drop"); err != nil {
		h.t.Fatalf("DeleteThread: %v", err)
	}
	if err := h.s.DeleteThread(h.ctx, "never-existed"); err != nil {
		h.t.Fatalf("DeleteThread of a missing thread: %v", err)
	}
	h.checkAgain(func() {
		if got := h.get("drop", "", ""); got != nil {
			h.t.Errorf("deleted thread still has checkpoint %s", got.Config.CheckpointID)
		}
		if got := h.get("drop", "sub:1", ""); got != nil {
			h.t.Errorf("deleted thread still has namespace sub:1")
		}
		if got := h.list(engine.Config{ThreadID: "drop"}, engine.ListOptions{AllNamespaces: true}); len(got) != 0 {
			h.t.Errorf("deleted thread lists %d checkpoints", len(got))
		}
		h.checkTuple(h.mustGet("keep", "", ""), "keep", "", c2, loopMD(1), c1.ID)
		h.wantWrites("kept thread", h.mustGet("keep", "", "").PendingWrites, pw(taskA, "a", "keep"))
	})
	// A thread made again under the deleted id starts empty.
	h.put("drop", "", nil, c2, loopMD(5))
	h.checkAgain(func() {
		got := h.mustGet("drop", "", "")
		h.checkTuple(got, "drop", "", c2, loopMD(5), "")
		h.wantWrites("recreated thread", got.PendingWrites)
		h.wantIDs("recreated thread", h.list(engine.Config{ThreadID: "drop"}, engine.ListOptions{AllNamespaces: true}), ID(2))
	})
}
