package engine

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

// plainSaver is a MemorySaver behind a type of its own: the engine treats
// it as any other saver, and saves every task's writes by id.
type plainSaver struct{ *MemorySaver }

// lazyIDGraph plans PULL tasks fired by their first trigger (a, b, ask)
// and by a later one (j, by its join), and 20 PUSH tasks (enough to index
// a checkpoint's writes); ask interrupts until answered.
func lazyIDGraph(t *testing.T, saver Saver) *Graph {
	t.Helper()
	write := func(key string) NodeFunc {
		return func(context.Context, any) (any, error) { return Update{{Key: key + "_v", Value: key}}, nil }
	}
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g, err := NewStateGraph(LastValueKey("a_v"), LastValueKey("b_v"), LastValueKey("j_v"), LastValueKey("ask_v"), AppendKey("out")).
		AddNode("a", write("a")).
		AddNode("b", write("b")).
		AddNode("j", write("j")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			v, err := Interrupt(ctx, "sure?")
			if err != nil {
				return nil, err
			}
			return Update{{Key: "ask_v", Value: v}}, nil
		}).
		AddNode("work", func(_ context.Context, in any) (any, error) {
			return Update{{Key: "out", Value: []any{in.(map[string]any)["i"]}}}, nil
		}).
		AddEdge(Start, "a").
		AddEdge(Start, "b").
		AddEdge(Start, "ask").
		AddConditionalEdges(Start, func(context.Context, map[string]any) (any, error) {
			var sends []any
			for i := range 20 {
				sends = append(sends, Send{Node: "work", Arg: map[string]any{"i": float64(i)}})
			}
			return sends, nil
		}, "work").
		AddJoin([]string{"a", "b"}, "j").
		Compile(WithSaver(saver), WithIDs(&CounterIDs{}), WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// history is everything a saver holds of thread, in List's order.
func history(t *testing.T, s Saver, thread string) []string {
	t.Helper()
	tuples, err := s.List(context.Background(), Config{ThreadID: thread}, ListOptions{AllNamespaces: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tp := range tuples {
		cp := tp.Checkpoint.Materialize()
		out = append(out, fmt.Sprintf("%v parent=%s step=%d source=%s values=%v versions=%v seen=%v",
			tp.Config, tp.ParentID, tp.Metadata.Step, tp.Metadata.Source, cp.ChannelValues, cp.ChannelVersions, cp.VersionsSeen))
		for _, w := range tp.PendingWrites {
			out = append(out, fmt.Sprintf("  write %s %s %v", w.TaskID, w.Channel, w.Value))
		}
	}
	return out
}

// TestMemorySaver_TaskIDsMadeOnRead: MemorySaver takes a planned task's
// writes by reference and makes its id when read. Every id it reads back,
// before and after a resume (whose null-task answer is saved by id, and
// whose reused writes are matched to replanned tasks by id), is the id
// the same run saves through a saver that gets every write by id, and so
// is everything else it keeps.
func TestMemorySaver_TaskIDsMadeOnRead(t *testing.T) {
	ctx := context.Background()
	lazy, named := NewMemorySaver(), plainSaver{NewMemorySaver()}
	var states []any
	for _, s := range []Saver{lazy, named} {
		g := lazyIDGraph(t, s)
		res, err := g.Invoke(ctx, map[string]any{}, OnThread("t"))
		if err != nil || res.Status != StatusInterrupted {
			t.Fatalf("first run: %v %v", res.Status, err)
		}
		if len(res.Interrupts) != 1 {
			t.Fatalf("interrupts %v", res.Interrupts)
		}
		snap, err := g.GetState(ctx, Config{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, snap.Tasks)
		res, err = g.Invoke(ctx, Command{Resume: "yes"}, OnThread("t"))
		if err != nil || res.Status != StatusDone {
			t.Fatalf("resume: %v %v", res.Status, err)
		}
		if res.Values["ask_v"] != "yes" || res.Values["j_v"] != "j" || len(res.Values["out"].([]any)) != 20 {
			t.Fatalf("final values %v", res.Values)
		}
	}
	if !reflect.DeepEqual(states[0], states[1]) {
		t.Errorf("interrupted state's tasks differ:\nby reference %v\nby id        %v", states[0], states[1])
	}
	got, want := history(t, lazy, "t"), history(t, named.MemorySaver, "t")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("histories differ:\nby reference:\n%v\nby id:\n%v", got, want)
	}
	writes := 0
	for _, line := range got {
		if len(line) > 8 && line[:8] == "  write " {
			writes++
		}
	}
	if writes < 24 {
		t.Fatalf("%d saved writes: the run should keep its tasks' writes", writes)
	}
}

// TestMemorySaver_ByReferenceThenByID: a task's writes saved by
// reference and then by its id are one task's: a regular write at the
// same index keeps the first, a special write replaces, and the null
// task's writes accumulate beside them. Past the index threshold too.
func TestMemorySaver_ByReferenceThenByID(t *testing.T) {
	ctx := context.Background()
	g := lazyIDGraph(t, NewMemorySaver())
	work := g.nodes["work"].ord
	for _, tasks := range []int{1, 30} {
		m := NewMemorySaver()
		cfg := Config{ThreadID: "t", CheckpointID: idFrom(0, 7)}
		cp := newChannelState(g, nil).testCheckpoint(cfg.CheckpointID, planHint{}) // the engine's, of g
		if _, err := m.Put(ctx, Config{ThreadID: "t"}, cp, Metadata{Step: 3}, nil); err != nil {
			t.Fatal(err)
		}
		for i := range tasks {
			m.putTaskWrites(cfg, g, 4, newMemTask(work, pushTask, i), []Write{{Channel: "out", Value: "first"}, {Channel: ErrorChannel, Value: "e1"}}, nil, memSaveHint{})
		}
		id := pushTaskID(cfg.CheckpointID, "", 4, "work", 0)
		if err := m.PutWrites(ctx, cfg, id, []Write{{Channel: "out", Value: "second"}, {Channel: ErrorChannel, Value: "e2"}}); err != nil {
			t.Fatal(err)
		}
		if err := m.PutWrites(ctx, cfg, NullTaskID, []Write{{Channel: ResumeChannel, Value: "r"}}); err != nil {
			t.Fatal(err)
		}
		// Saved by reference once names are in use: by id, the same task.
		m.putTaskWrites(cfg, g, 4, newMemTask(work, pushTask, 0), []Write{{Channel: "out", Value: "third"}}, nil, memSaveHint{})
		tp, err := m.GetTuple(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var mine []PendingWrite
		ids := map[string]bool{}
		for _, w := range tp.PendingWrites {
			ids[w.TaskID] = true
			if w.TaskID == id {
				mine = append(mine, w)
			}
		}
		want := []PendingWrite{{id, ErrorChannel, "e2"}, {id, "out", "first"}}
		if !reflect.DeepEqual(mine, want) {
			t.Fatalf("%d tasks: task 0's writes %v, want %v", tasks, mine, want)
		}
		if len(ids) != tasks+1 || !ids[NullTaskID] || !ids[pushTaskID(cfg.CheckpointID, "", 4, "work", tasks-1)] {
			t.Fatalf("%d tasks: task ids %v", tasks, ids)
		}
	}
}

// TestPendingWrites_ByReference: the loop's pending writes hold a task
// saved by reference until an id is asked for; then every task is found
// by id, before and after a reset, with few tasks or many (indexed).
func TestPendingWrites_ByReference(t *testing.T) {
	planned := func(n int) []*task {
		tasks := make([]*task, n)
		for i := range tasks {
			tasks[i] = &task{name: "work", kind: pushTask, index: i, triggers: pushTriggers, cpID: idFrom(0, 1), step: 2}
		}
		return tasks
	}
	p := newPendingWrites(nil)
	for round, n := range []int{3, 20, 2, 12} {
		tasks := planned(n)
		for i, tk := range tasks {
			p.addTask(tk, []Write{{Channel: "out", Value: i}})
		}
		p.addTask(tasks[0], []Write{{Channel: "out", Value: "again"}}) // replaces its batch
		if p.unnamed != n {
			t.Fatalf("round %d: %d tasks by reference, want %d", round, p.unnamed, n)
		}
		if got := p.batch(tasks[n-1].id()); len(got) != 1 || got[0].Value != n-1 {
			t.Fatalf("round %d: last task's batch %v", round, got)
		}
		if p.unnamed != 0 {
			t.Fatalf("round %d: a search by id left %d tasks by reference", round, p.unnamed)
		}
		p.addTask(tasks[1], []Write{{Channel: "out", Value: "by id"}}) // named now: by id
		all := p.all()
		if len(all) != n || all[0].TaskID != tasks[0].id() || all[0].Value != "again" || all[1].Value != "by id" {
			t.Fatalf("round %d: writes %v", round, all)
		}
		p.reset()
		for _, tk := range tasks {
			if tk.pendingRef {
				t.Fatalf("round %d: a task kept its mark after reset", round)
			}
		}
	}
}

// TestMemorySaver_ParentsKeptAsMarks: a parent that is the checkpoint
// before in id order is kept as a mark; checkpoints put out of order,
// between others, or again, keep every parent id.
func TestMemorySaver_ParentsKeptAsMarks(t *testing.T) {
	ctx := context.Background()
	m := NewMemorySaver()
	id := func(n uint64) string { return idFrom(0, n) }
	want := map[string]string{}
	put := func(n, parent uint64) {
		t.Helper()
		cfg := Config{ThreadID: "t"}
		if parent != 0 {
			cfg.CheckpointID = id(parent)
		}
		if _, err := m.Put(ctx, cfg, &Checkpoint{V: CheckpointFormat, ID: id(n)}, Metadata{Source: SourceLoop}, nil); err != nil {
			t.Fatal(err)
		}
		want[id(n)] = cfg.CheckpointID
		tuples, err := m.List(ctx, Config{ThreadID: "t"}, ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tuples) != len(want) {
			t.Fatalf("after putting %d: %d checkpoints, want %d", n, len(tuples), len(want))
		}
		for _, tp := range tuples {
			got, err := m.GetTuple(ctx, tp.Config)
			if err != nil {
				t.Fatal(err)
			}
			if tp.ParentID != want[tp.Config.CheckpointID] || got.ParentID != tp.ParentID {
				t.Fatalf("after putting %d: %s has parent %q (GetTuple %q), want %q", n, tp.Config.CheckpointID, tp.ParentID, got.ParentID, want[tp.Config.CheckpointID])
			}
		}
	}
	put(1, 0)
	put(3, 1) // the one before
	put(5, 3) // the one before
	put(4, 3) // between 3 and 5: 5's parent stays 3
	put(2, 1) // between 1 and 3
	put(6, 4) // not the one before
	put(5, 4) // again, with another parent
	put(5, 3)
	put(0, 0) // first of all
	put(7, 6)
}

// TestMemorySaver_MetadataAsPut: a record keeps the usual metadata in
// fields of its own and any other apart; either way it reads back as it
// was put, nil and empty maps apart, and a replaced checkpoint's too.
func TestMemorySaver_MetadataAsPut(t *testing.T) {
	ctx := context.Background()
	cases := []Metadata{
		{Source: SourceLoop, Step: 3, Parents: map[string]string{}},
		{Source: SourceInput, Step: -1},
		{Source: SourceFork, Step: 2, Parents: map[string]string{}, Extra: map[string]any{}},
		{Source: "custom", Step: 1},
		{Source: SourceUpdate, Step: 1 << 40},
		{Source: SourceLoop, Step: 0, Parents: map[string]string{"": "x"}},
		{Source: SourceLoop, Step: 4, Extra: map[string]any{"run": "r1"}},
		{},
	}
	m := NewMemorySaver()
	for i := range cases {
		for round, id := range []string{idFrom(0, uint64(i+1)), idFrom(0, uint64(i+1))} { // put, then put again
			parent := ""
			if i > 0 {
				parent = idFrom(0, uint64(i))
			}
			want := cases[(i+round)%len(cases)]
			if _, err := m.Put(ctx, Config{ThreadID: "t", CheckpointID: parent}, &Checkpoint{V: CheckpointFormat, ID: id}, want, nil); err != nil {
				t.Fatal(err)
			}
			tp, err := m.GetTuple(ctx, Config{ThreadID: "t", CheckpointID: id})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tp.Metadata, want) || (tp.Metadata.Parents == nil) != (want.Parents == nil) || (tp.Metadata.Extra == nil) != (want.Extra == nil) {
				t.Fatalf("case %d, round %d: metadata %#v, want %#v", i, round, tp.Metadata, want)
			}
			if tp.ParentID != parent {
				t.Fatalf("case %d, round %d: parent %q, want %q", i, round, tp.ParentID, parent)
			}
			if tp.Metadata.Parents != nil {
				tp.Metadata.Parents["changed"] = "by a reader" // a copy: nothing kept changes
			}
		}
	}
	tuples, err := m.List(ctx, Config{ThreadID: "t"}, ListOptions{Filter: map[string]any{"source": SourceLoop}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range tuples {
		if tp.Metadata.Source != SourceLoop || tp.Metadata.Parents["changed"] != "" {
			t.Fatalf("listed %#v", tp.Metadata)
		}
	}
	if len(noParents) != 0 {
		t.Fatalf("the shared empty Parents was written: %v", noParents)
	}
}

// TestPendingWrites_ReusedSlotsStartEmpty: a reset leaves every slot past
// the length zero, and push takes them as they are (grown writes
// nothing): a slot that held a task by reference and is taken by id, or
// the other way, reads as the new task only, round after round.
func TestPendingWrites_ReusedSlotsStartEmpty(t *testing.T) {
	planned := func(n, step int) []*task { // ids differ from round to round
		tasks := make([]*task, n)
		for i := range tasks {
			tasks[i] = &task{name: "work", kind: pushTask, index: i, triggers: pushTriggers, cpID: idFrom(0, 1), step: step}
		}
		return tasks
	}
	p := newPendingWrites(nil)
	for round, n := range []int{3, 1, 12, 2, 5, 20, 4} {
		byID := round%2 == 1
		tasks := planned(n, 2+round)
		for i, tk := range tasks {
			w := []Write{{Channel: "out", Value: i}}
			if byID {
				p.add(tk.id(), w)
			} else {
				p.addTask(tk, w)
			}
		}
		all := p.all()
		if len(all) != n {
			t.Fatalf("round %d: %d writes, want %d", round, len(all), n)
		}
		for i, w := range all {
			if w.TaskID != tasks[i].id() || w.Value != i {
				t.Fatalf("round %d: write %d is %+v, want task %s's %d", round, i, w, tasks[i].id(), i)
			}
		}
		p.reset()
		if slices.ContainsFunc(p.order[:cap(p.order)], func(id string) bool { return id != "" }) ||
			slices.ContainsFunc(p.refs[:cap(p.refs)], func(t *task) bool { return t != nil }) ||
			slices.ContainsFunc(p.batches[:cap(p.batches)], func(b []Write) bool { return b != nil }) {
			t.Fatalf("round %d: a slot is not empty after reset", round)
		}
	}
}

// TestMemorySaver_WritesFindTheirCheckpoint: writes saved by reference go
// to the record of the checkpoint they name, whichever namespace or
// thread was put last (the saver remembers the record it put last).
func TestMemorySaver_WritesFindTheirCheckpoint(t *testing.T) {
	ctx := context.Background()
	g := lazyIDGraph(t, NewMemorySaver())
	work := g.nodes["work"].ord
	m := NewMemorySaver()
	put := func(cfg Config, id string) Config {
		t.Helper()
		cp := newChannelState(g, nil).testCheckpoint(id, planHint{})
		out, err := m.Put(ctx, cfg, cp, Metadata{Step: 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	save := func(cfg Config, value string) {
		m.putTaskWrites(cfg, g, 4, newMemTask(work, pushTask, 0), []Write{{Channel: "out", Value: value}}, nil, memSaveHint{})
	}
	check := func(cfg Config, want ...any) {
		t.Helper()
		tp, _ := m.GetTuple(ctx, cfg)
		var got []any
		for _, w := range tp.PendingWrites {
			got = append(got, w.Value)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v: writes %v, want %v", cfg, got, want)
		}
	}
	a := put(Config{ThreadID: "t"}, idFrom(0, 1))
	b := put(Config{ThreadID: "t", CheckpointNS: "sub"}, idFrom(0, 1)) // a's id, put last, elsewhere
	save(a, "a")
	a2 := put(a, idFrom(0, 2)) // put last, in a's namespace
	save(a, "a again")         // the same task: its first write stays
	save(b, "b")
	save(a2, "a2")
	check(a, "a")
	check(b, "b")
	check(a2, "a2")
	if err := m.DeleteThread(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	c := put(Config{ThreadID: "t"}, idFrom(0, 2)) // a2's id, in the thread anew
	check(c)
	save(c, "c")
	check(c, "c")
}
