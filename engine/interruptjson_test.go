package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A service that hands stream chunks or a run's pending interrupts to a
// client encodes them with encoding/json: an interrupt is then
// {"id", "value"} as in LangGraph's chunks ("interrupts": [{value, id}],
// debug.ts mapDebugTaskResults), in the lower case of the chunk around it,
// not Go's field names.
func TestInterruption_JSON_LowerCaseKeys(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			if _, err := engine.Interrupt(ctx, "ok?"); err != nil {
				return nil, err
			}
			return nil, nil
		}).
		AddEdge(engine.Start, "ask"), engine.WithSaver(engine.NewMemorySaver()))
	var result engine.TaskResultChunk
	for p, err := range g.StreamModes(context.Background(), map[string]any{"x": 1.0}, []engine.StreamMode{engine.StreamTasks}, engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := p.Data.(engine.TaskResultChunk); ok {
			result = r
		}
	}
	b, err := json.Marshal(result)
	if err != nil {
		t.Fatal(err)
	}
	id := result.Interrupts[0].ID
	if want := `"interrupts":[{"id":"` + id + `","value":"ok?"}]`; !strings.Contains(string(b), want) {
		t.Errorf("task result chunk encodes as\n%s\nwant it to hold %s", b, want)
	}

	snap, err := g.GetState(context.Background(), engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	b, err = json.Marshal(snap.Interrupts())
	if err != nil {
		t.Fatal(err)
	}
	pi := snap.Interrupts()[0]
	want := `[{"id":"` + id + `","value":"ok?","node":"ask","task_id":"` + pi.TaskID + `"}]`
	if string(b) != want {
		t.Errorf("pending interrupts encode as\n%s\nwant\n%s", b, want)
	}
}

// A messages chunk encodes in lower case too, as its metadata does.
func TestMessageChunk_JSON_LowerCaseKeys(t *testing.T) {
	c := engine.MessageChunk{Message: map[string]any{"id": "m1"}, Metadata: engine.MessageMetadata{Node: "chat", Step: 1}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"message":{"id":"m1"},"metadata":{"langgraph_node":"chat","langgraph_step":1,"langgraph_triggers":null,"langgraph_checkpoint_ns":"","task_id":""}}`
	if string(b) != want {
		t.Errorf("messages chunk encodes as\n%s\nwant\n%s", b, want)
	}
}

// A stream part encodes as {"mode", "ns", "data"}, as superstep run
// --stream --json prints it, with no "ns" at the root.
func TestStreamPart_JSON(t *testing.T) {
	for _, c := range []struct {
		part engine.StreamPart
		want string
	}{
		{engine.StreamPart{Mode: engine.StreamCustom, Data: "hi"}, `{"mode":"custom","data":"hi"}`},
		{engine.StreamPart{Mode: engine.StreamValues, Namespace: []string{"child:1"}, Data: engine.ValuesChunk{"x": 1.0}}, `{"mode":"values","ns":["child:1"],"data":{"x":1}}`},
	} {
		b, err := json.Marshal(c.part)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%+v encodes as %s, want %s", c.part, b, c.want)
		}
	}
}
