package persist_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// A task's saved error survives an export and an import: the imported
// thread's failed task still says it timed out (errors.As) and why its
// sibling stopped (errors.Is context.Canceled), with the same text.
func TestExportImport_KeepsTaskErrors(t *testing.T) {
	build := func(s engine.Saver) *engine.Graph {
		g, err := engine.NewStateGraph(engine.LastValueKey("x")).
			AddNode("slow", func(ctx context.Context, _ any) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}, engine.WithTimeout(engine.TimeoutPolicy{Run: 10 * time.Millisecond})).
			AddNode("waits", func(ctx context.Context, _ any) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}).
			AddEdge(engine.Start, "slow").AddEdge(engine.Start, "waits").
			Compile(engine.WithSaver(s))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	src := openTemp(t, persist.Options{NoSync: true})
	if _, err := build(src).Invoke(ctx, map[string]any{"x": 1.0}, engine.OnThread("t")); err == nil {
		t.Fatal("the run did not fail")
	}
	var buf bytes.Buffer
	if err := src.Export(ctx, "t", &buf, ""); err != nil {
		t.Fatal(err)
	}
	dst := openTemp(t, persist.Options{NoSync: true})
	if _, err := dst.Import(ctx, &buf, persist.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	want, err := build(src).GetState(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := build(dst).GetState(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tasks) != 2 || len(want.Tasks) != 2 {
		t.Fatalf("tasks: %d imported, %d exported", len(got.Tasks), len(want.Tasks))
	}
	for i, st := range got.Tasks {
		if st.Error == "" || st.Error != want.Tasks[i].Error || st.Err.Error() != st.Error {
			t.Errorf("%s: text %q, was %q", st.Name, st.Error, want.Tasks[i].Error)
		}
		var nte *engine.NodeTimeoutError
		switch st.Name {
		case "slow":
			if !errors.As(st.Err, &nte) || nte.Run != 10*time.Millisecond || errors.Is(st.Err, context.Canceled) {
				t.Errorf("slow: %v does not read as its timeout", st.Err)
			}
		case "waits":
			var ce *engine.CancelledError
			if !errors.Is(st.Err, context.Canceled) || !errors.As(st.Err, &ce) || ce.By != "slow" || errors.As(st.Err, &nte) {
				t.Errorf("waits: %v does not read as cancelled by slow", st.Err)
			}
		}
	}
}
