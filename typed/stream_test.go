package typed_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

type Chat struct {
	Turns int            `json:"turns"`
	Log   typed.Messages `json:"log"`
	Tone  string         `json:"tone"`
}

func TestStream_TypedParts(t *testing.T) {
	ctx := context.Background()
	g, err := typed.NewGraph[Chat]("chat").
		AddNode("reply", func(_ context.Context, s *Chat) (typed.Update[Chat], error) {
			return typed.Write(s, typed.Set(&s.Turns, s.Turns+1), typed.Set(&s.Log, typed.Messages{{ID: "a1", Role: "assistant", Content: "hello"}})), nil
		}).
		AddNode("ask", func(ctx context.Context, s *Chat) (typed.Update[Chat], error) {
			tone, err := typed.Interrupt[string](ctx, map[string]any{"question": "tone?"})
			if err != nil {
				return typed.Update[Chat]{}, err
			}
			return typed.Write(s, typed.Set(&s.Tone, tone)), nil
		}).
		AddEdge(engine.Start, "reply").AddEdge("reply", "ask").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	modes := []engine.StreamMode{engine.StreamValues, engine.StreamUpdates, engine.StreamMessages}
	var in Chat
	var states []Chat
	var updates []string
	var interrupts int
	var messages []typed.Message
	for p, err := range g.Stream(ctx, typed.Write(&in, typed.Set(&in.Log, typed.Messages{{ID: "u1", Role: "user", Content: "hi"}})), modes, engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case p.State != nil:
			states = append(states, *p.State)
		case p.Update != nil:
			updates = append(updates, p.Node)
			if p.Node == "reply" && (p.Update.Turns != 1 || !slices.Equal(p.Keys, []string{"turns", "log"})) {
				t.Errorf("reply's update: %+v keys %v", p.Update, p.Keys)
			}
		case p.Interrupts != nil:
			interrupts++
		case p.Message != nil:
			messages = append(messages, *p.Message)
		}
	}
	if len(states) != 2 || states[1].Turns != 1 || len(states[1].Log) != 2 {
		t.Errorf("values: %+v", states)
	}
	if !slices.Equal(updates, []string{"reply"}) || interrupts != 2 {
		t.Errorf("updates %v, interrupts %d (one per mode)", updates, interrupts)
	}
	if want := []typed.Message{{ID: "a1", Role: "assistant", Content: "hello"}}; !reflect.DeepEqual(messages, want) {
		t.Errorf("messages %+v", messages)
	}

	var last Chat
	for p, err := range g.StreamResume(ctx, "warm", []engine.StreamMode{engine.StreamValues}, engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		if p.State != nil {
			last = *p.State
		}
	}
	if last.Tone != "warm" || last.Turns != 1 {
		t.Errorf("after resume: %+v", last)
	}
}

func TestStream_BadInputIsTheOnlyPart(t *testing.T) {
	g, err := typed.NewGraph[Chat]("chat").
		AddNode("n", func(_ context.Context, s *Chat) (typed.Update[Chat], error) { return typed.Update[Chat]{}, nil }).
		AddEdge(engine.Start, "n").Compile()
	if err != nil {
		t.Fatal(err)
	}
	var other Chat
	n := 0
	for _, err := range g.Stream(context.Background(), typed.Write(&Chat{}, typed.Set(&other.Turns, 1)), nil) {
		n++
		if err == nil {
			t.Fatal("a Set on another struct must fail")
		}
	}
	if n != 1 {
		t.Fatalf("%d parts", n)
	}
}
