package engine_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
)

// StreamModes yields typed chunks per mode; subgraphs stream under their
// namespace; messages a node streams are not sent again when it returns
// them (LangGraph's StreamMessagesHandler dedupe by id).
func TestStreamModes_TypedChunks(t *testing.T) {
	msg := func(id, content string) map[string]any {
		return map[string]any{"id": id, "role": "assistant", "content": content}
	}
	sub := mustCompile(t, engine.NewStateGraph(engine.MessagesKey("messages")).
		AddNode("inner", func(ctx context.Context, _ any) (any, error) {
			engine.Emit(ctx, "inner-progress")
			return map[string]any{"messages": []any{msg("i1", "from inner")}}, nil
		}).AddEdge(engine.Start, "inner"))
	g := mustCompile(t, engine.NewStateGraph(engine.MessagesKey("messages")).
		AddNode("llm", func(ctx context.Context, _ any) (any, error) {
			engine.StreamMessage(ctx, msg("m1", "Hel"))
			engine.StreamMessage(ctx, msg("m1", "Hello"))
			return map[string]any{"messages": []any{msg("m1", "Hello"), msg("m2", "not streamed")}}, nil
		}).
		AddSubgraph("child", sub).
		AddEdge(engine.Start, "llm").AddEdge("llm", "child"))
	var got []engine.StreamPart
	for p, err := range g.StreamModes(ctx, map[string]any{}, []engine.StreamMode{engine.StreamUpdates, engine.StreamMessages, engine.StreamCustom}, engine.WithSubgraphs(), engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	var contents []any
	var sawInnerCustom, sawInnerUpdate bool
	for _, p := range got {
		switch d := p.Data.(type) {
		case engine.MessageChunk:
			if p.Namespace == nil {
				contents = append(contents, d.Message.(map[string]any)["content"])
				if d.Metadata.Node != "llm" || d.Metadata.Step != 1 {
					t.Fatalf("metadata %+v", d.Metadata)
				}
			}
		case engine.UpdatesChunk:
			if len(p.Namespace) == 1 && d["inner"] != nil {
				sawInnerUpdate = true
			}
		case string:
			sawInnerCustom = p.Mode == engine.StreamCustom && len(p.Namespace) == 1
		}
	}
	if !reflect.DeepEqual(contents, []any{"Hel", "Hello", "not streamed"}) {
		t.Fatalf("root messages %v", contents)
	}
	if !sawInnerCustom || !sawInnerUpdate {
		t.Fatalf("subgraph chunks under a namespace are missing: %+v", got)
	}
}

// A custom chunk from inside a subgraph reaches the run's stream even when
// the run does not stream subgraphs (LangGraph.js inherits the root
// writer); the subgraph's other chunks do not.
func TestStreamModes_CustomFromSubgraphWithoutSubgraphs(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("c", func(ctx context.Context, _ any) (any, error) {
			engine.Emit(ctx, "from-c")
			return map[string]any{"log": []any{"c"}}, nil
		}).AddEdge(engine.Start, "c"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub).AddEdge(engine.Start, "sub"))
	var got []engine.StreamPart
	for p, err := range g.StreamModes(ctx, map[string]any{}, []engine.StreamMode{engine.StreamCustom, engine.StreamUpdates}, engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	if len(got) != 2 || got[0].Mode != engine.StreamCustom || got[0].Data != "from-c" || len(got[0].Namespace) != 1 ||
		got[1].Mode != engine.StreamUpdates || got[1].Namespace != nil {
		t.Fatalf("stream = %+v, want the inner custom chunk (namespace [sub:…]) then the root update", got)
	}
}

// When a superstep stops at an interrupt with a finished sibling, only the
// root streams one last values chunk with the sibling's writes applied; a
// subgraph stopped the same way streams none (LangGraph.js
// pregel/loop.ts:1172-1200 emits it only when _suppressInterrupt, which is
// false in a nested loop, loop.ts:1373-1374).
func TestStreamModes_InterruptedSubgraphStreamsNoLastValues(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			if _, err := engine.Interrupt(ctx, "ok?"); err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{"ask"}}, nil
		}).
		AddNode("side", appendLog("side")).
		AddEdge(engine.Start, "ask").AddEdge(engine.Start, "side"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub).AddNode("root_side", appendLog("root_side")).
		AddEdge(engine.Start, "sub").AddEdge(engine.Start, "root_side"))
	var subValues, rootValues []any
	for p, err := range g.StreamModes(ctx, map[string]any{}, []engine.StreamMode{engine.StreamValues}, engine.WithSubgraphs(), engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Namespace == nil {
			rootValues = append(rootValues, p.Data)
		} else {
			subValues = append(subValues, p.Data)
		}
	}
	for _, v := range subValues {
		if log, _ := v.(engine.ValuesChunk)["log"].([]any); len(log) > 0 {
			t.Fatalf("the subgraph streamed values with side's pending write applied: %v", subValues)
		}
	}
	last, _ := rootValues[len(rootValues)-1].(engine.ValuesChunk)
	if log, _ := last["log"].([]any); !reflect.DeepEqual(log, []any{"root_side"}) {
		t.Fatalf("the root's last values chunk applies root_side's pending write: %v", rootValues)
	}
}

// A node that writes nothing streams {node: {}}: LangGraph.js commits it
// with the __no_writes__ marker (pregel/runner.ts:463-469) and streams
// those writes like any others (loop.ts _outputWrites, io.ts
// mapOutputUpdates).
func TestStreamModes_NodeWithoutWritesStreamsEmptyUpdate(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("quiet", func(context.Context, any) (any, error) { return nil, nil }).
		AddEdge(engine.Start, "quiet"))
	var got []engine.StreamPart
	for p, err := range g.StreamModes(ctx, map[string]any{}, []engine.StreamMode{engine.StreamUpdates}, engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	want := engine.UpdatesChunk{"quiet": map[string]any{}}
	if len(got) != 1 || !reflect.DeepEqual(got[0].Data, want) {
		t.Fatalf("stream = %+v, want one updates chunk %v", got, want)
	}
}

// Leaving a stream's loop early cancels the run, as its doc says: Stream
// returns once the run stopped, before the end, at a superstep with its
// inc task (which may have saved writes before the cancellation).
func TestStreamModes_BreakCancelsTheRun(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("inc", func(_ context.Context, in any) (any, error) {
			return map[string]any{"n": in.(map[string]any)["n"].(float64) + 1}, nil
		}).
		AddEdge(engine.Start, "inc").
		AddConditionalEdges("inc", func(_ context.Context, s map[string]any) (any, error) {
			if s["n"].(float64) >= 200 {
				return engine.End, nil
			}
			return "inc", nil
		}, "inc", engine.End), engine.WithSaver(engine.NewMemorySaver()))
	ctx, thread := context.Background(), engine.OnThread("t")
	limit := engine.WithRecursionLimit(1000)
	for _, err := range g.StreamModes(ctx, map[string]any{"n": 0}, []engine.StreamMode{engine.StreamValues}, thread, limit) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if n := snap.Values["n"].(float64); n >= 200 || len(snap.Tasks) != 1 || snap.Tasks[0].Name != "inc" {
		t.Fatalf("after break: n %v, tasks %+v; want the run stopped before n 200, at an inc task", n, snap.Tasks)
	}
}
