package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// The render budget: a keypress must redraw in well under a 60 Hz frame
// (16 ms) and opening a view must take under 200 ms. These benchmarks are
// how that is measured; they are not timed tests, so a slow CI machine
// does not fail the build.

// BenchmarkView_Main is one full frame of the main screen at 200×60.
func BenchmarkView_Main(b *testing.B) {
	m := engineModel(b, "research", 200, 60)
	m = press(b, m, "s", "s", "n")
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

// megabyteValue is a state value of about 1 MB: 8000 records.
func megabyteValue() any {
	out := make([]any, 8000)
	for i := range out {
		out[i] = map[string]any{
			"id": float64(i), "title": fmt.Sprintf("finding %d", i),
			"text": strings.Repeat("evidence ", 10), "tags": []any{"a", "b", true, nil},
		}
	}
	return out
}

func inspectModel(b *testing.B, v any) Model {
	m := engineModel(b, "research", 200, 60)
	m.view.Channels[0].Value = v
	m.chans.setChannels(m.view.Channels, nil)
	m.focus = paneChannels
	m.chans.nav.cur = 0
	return m
}

// BenchmarkInspector_Open1MB: enter on a 1 MB channel until the frame is
// drawn (layout once, highlight one screenful).
func BenchmarkInspector_Open1MB(b *testing.B) {
	v := megabyteValue()
	if n := len(engine.MustEncode(v)); n < 1<<20 {
		b.Fatalf("value is %d bytes, want ≥ 1 MB", n)
	}
	m := inspectModel(b, v)
	enter := keys("enter")[0]
	b.ReportAllocs()
	for b.Loop() {
		nm, _ := m.Update(enter)
		_ = nm.(Model).View()
	}
}

// BenchmarkInspector_PageDown1MB: one page down in a 1 MB value, the
// worst keypress (a whole new screenful to highlight).
func BenchmarkInspector_PageDown1MB(b *testing.B) {
	m := press(b, inspectModel(b, megabyteValue()), "enter")
	pgdn := keys("pgdown")[0]
	b.ReportAllocs()
	for b.Loop() {
		nm, _ := m.Update(pgdn)
		m = nm.(Model)
		_ = m.View()
		if m.insp.off > len(m.insp.lines)-200 {
			m.insp.off = 0
		}
	}
}

// BenchmarkInspector_Open1MBLine: a single 1 MB string, one JSON line.
func BenchmarkInspector_Open1MBLine(b *testing.B) {
	m := inspectModel(b, strings.Repeat("x", 1<<20))
	enter := keys("enter")[0]
	for b.Loop() {
		nm, _ := m.Update(enter)
		_ = nm.(Model).View()
	}
}

// longThread is a thread of 5000 checkpoints with a fork every 500, built
// once for the tree benchmarks.
var longThread = sync.OnceValues(func() (*engine.Graph, []*engine.StateSnapshot) {
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).Named("ticker").
		AddNode("tick", func(_ context.Context, s any) (any, error) {
			n, _ := s.(map[string]any)["n"].(float64)
			return map[string]any{"n": n + 1}, nil
		}).
		AddEdge(engine.Start, "tick").
		AddConditionalEdges("tick", func(_ context.Context, s map[string]any) (any, error) {
			if n, _ := s["n"].(float64); n < 4990 {
				return "tick", nil
			}
			return engine.End, nil
		}, "tick", engine.End).
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if _, err := g.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("long"), engine.WithRecursionLimit(6000)); err != nil {
		panic(err)
	}
	h, err := g.History(ctx, engine.Config{ThreadID: "long"}, engine.ListOptions{})
	if err != nil {
		panic(err)
	}
	for i := 100; i < len(h); i += 500 {
		if _, err := g.UpdateState(ctx, engine.Config{ThreadID: "long", CheckpointID: h[i].Config.CheckpointID}, map[string]any{"n": -1.0}, "tick"); err != nil {
			panic(err)
		}
	}
	h, err = g.History(ctx, engine.Config{ThreadID: "long"}, engine.ListOptions{})
	if err != nil {
		panic(err)
	}
	return g, h
})

func treeModel(b *testing.B) (Model, []engine.CheckpointHead) {
	g, _ := longThread()
	h, err := g.HistoryHeads(context.Background(), engine.Config{ThreadID: "long"})
	if err != nil || len(h) < 5000 {
		b.Fatalf("%d checkpoints, %v", len(h), err)
	}
	opts := Options{Thread: "long", Saver: g.Saver()}
	m := newTestModel(b, newEngineSession(g, opts), opts, 200, 60)
	return m, h
}

// BenchmarkTree_Open5000: the history arrives and the tree's first frame
// is drawn (layout of all 5000 rows, one window rendered). The engine's
// History call itself is BenchmarkHistory5000.
func BenchmarkTree_Open5000(b *testing.B) {
	m, h := treeModel(b)
	msg := opDoneMsg{op: opHistory, hist: h}
	b.ReportAllocs()
	for b.Loop() {
		mm := m
		mm.sess = nil
		msg.sess = m.sess
		nm, _ := mm.Update(msg)
		_ = nm.(Model).View()
	}
}

// BenchmarkTree_Move5000: one cursor move in the open tree, the Cmd that
// reads the checkpoint and the preview of its channels included.
func BenchmarkTree_Move5000(b *testing.B) {
	m, h := treeModel(b)
	s := m.sess
	m.sess = nil
	m = send(b, m, opDoneMsg{op: opHistory, hist: h, sess: s})
	down, up := keys("down")[0], keys("up")[0]
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := down
		if (i/1000)%2 == 1 {
			k = up
		}
		i++
		m = send(b, m, k)
		_ = m.View()
	}
}

// BenchmarkHistory5000 is the engine's side of opening the tree.
func BenchmarkHistory5000(b *testing.B) {
	g, _ := longThread()
	for b.Loop() {
		if _, err := g.History(context.Background(), engine.Config{ThreadID: "long"}, engine.ListOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

var _ tea.Msg = opDoneMsg{}

// BenchmarkInspector_PageDownWrapped1MBLine: one page down in a single
// 1 MB string, wrapped at the pane's width (about 10 000 rows).
func BenchmarkInspector_PageDownWrapped1MBLine(b *testing.B) {
	m := press(b, inspectModel(b, strings.Repeat("x", 1<<20)), "enter")
	pgdn := keys("pgdown")[0]
	b.ReportAllocs()
	for b.Loop() {
		nm, _ := m.Update(pgdn)
		m = nm.(Model)
		_ = m.View()
		if m.insp.off > len(m.insp.vis)-200 {
			m.insp.off = 0
		}
	}
}

// BenchmarkDiff_1MB: d on a checkpoint whose 1 MB value differs from its
// parent's in one record: the engine's diff, the diff pane and its frame.
func BenchmarkDiff_1MB(b *testing.B) {
	va, vb := megabyteValue(), megabyteValue()
	vb.([]any)[4000].(map[string]any)["title"] = "changed"
	ca := &engine.Checkpoint{ID: "a", ChannelValues: map[string]any{"findings": va}, ChannelVersions: map[string]engine.Version{"findings": 1}}
	cb := &engine.Checkpoint{ID: "b", ChannelValues: map[string]any{"findings": vb}, ChannelVersions: map[string]engine.Version{"findings": 2}}
	st := DefaultStyles()
	b.ReportAllocs()
	for b.Loop() {
		d := engine.DiffCheckpoints(ca, cb)
		if len(d.Channels) != 1 || len(d.Channels[0].Changes) != 1 {
			b.Fatalf("diff %+v", d.Channels)
		}
		_ = newDiffPane(d, "a", "b", diffRoles{}, false).View(st, 198, 56)
	}
}

// BenchmarkView_MainDrawn is one frame of the main screen with the graph
// drawn (g) at 200×60.
func BenchmarkView_MainDrawn(b *testing.B) {
	m := engineModel(b, "research", 200, 60)
	m = press(b, m, "s", "s", "n", "g")
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkKeypress_WatchesOn1MBState: a keypress and its frame with five
// watches and a condition over a state holding a 1 MB value, evaluated as
// a new checkpoint comes in.
func BenchmarkKeypress_WatchesOn1MBState(b *testing.B) {
	m := researchWith(b, engine.NewMemorySaver(), "t1", 200, 60)
	m = press(b, m, "s", "s", "s")
	for _, w := range []string{"len(state.findings)", "state.question", "state.approved", "len(state.sub_queries)", "state.final_report"} {
		m = press(b, m, "W", w, "enter")
	}
	m = press(b, m, "C", "len(state.findings) > 5000", "enter")
	m.view.Values["findings"] = megabyteValue()
	down := keys("down")[0]
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.view.CheckpointID = fmt.Sprint(i) // as if a new checkpoint arrived
		m.evalExprs()
		nm, _ := m.Update(down)
		_ = nm.(Model).View()
	}
}

// BenchmarkKeypress_1MBValueAnd5000Checkpoints: the case in one
// model: a thread of 5000+ checkpoints whose tree has been loaded, and a
// 1 MB value in the current state; each iteration is one key in the main
// view (the channels cursor moves over the 1 MB value's row and back) and
// the frame it draws.
func BenchmarkKeypress_1MBValueAnd5000Checkpoints(b *testing.B) {
	m, h := treeModel(b)
	s := m.sess
	m.sess = nil
	m = send(b, m, opDoneMsg{op: opHistory, hist: h, sess: s})
	if len(m.tree.snaps) < 5000 {
		b.Fatalf("tree holds %d checkpoints", len(m.tree.snaps))
	}
	m = press(b, m, "esc")
	v := megabyteValue()
	for i := range m.view.Channels {
		if m.view.Channels[i].Name == "n" {
			m.view.Channels[i].Value = v
		}
	}
	m.chans.setChannels(m.view.Channels, nil)
	m = press(b, m, "tab") // the channels pane
	down, up := keys("down")[0], keys("up")[0]
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := down
		if i%2 == 1 {
			k = up
		}
		i++
		nm, _ := m.Update(k)
		m = nm.(Model)
		_ = m.View()
	}
}
