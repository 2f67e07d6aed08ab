package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// askTwice fans out two Sends to ask, which interrupts for each item.
func askTwice(t testing.TB, saver engine.Saver) *engine.Graph {
	t.Helper()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("plan", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"plan"}), nil }).
		AddNode("ask", func(ctx context.Context, in any) (any, error) {
			item := in.(map[string]any)["item"]
			a, err := engine.Interrupt(ctx, fmt.Sprint("ok ", item, "?"))
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{fmt.Sprint(item, ":", a)}), nil
		}).
		AddEdge(engine.Start, "plan").
		AddConditionalEdges("plan", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "ask", Arg: map[string]any{"item": "x"}}, engine.Send{Node: "ask", Arg: map[string]any{"item": "y"}}}, nil
		}, "ask").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A replay that reaches several interrupts offers each one the answer the
// recording gave it, line by line (only the selected line was filled, with
// the first task's answer, whichever interrupt it was on).
func TestModel_Replay_OffersEachInterruptItsRecordedAnswer(t *testing.T) {
	saver := engine.NewMemorySaver()
	g := askTwice(t, saver)
	replayAnswersTwoAsks(t, g, saver)
}

// replayAnswersTwoAsks records a run of g that stops at two interrupts,
// answers each with its own value by one resume map, then replays it from
// its input and checks that each answer line holds its interrupt's
// recorded answer and that the replay matches.
func replayAnswersTwoAsks(t *testing.T, g *engine.Graph, saver engine.Saver) {
	t.Helper()
	ctx := context.Background()
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("rec"))
	if err != nil || len(res.Interrupts) != 2 {
		t.Fatalf("recording: %v, %d interrupts", err, len(res.Interrupts))
	}
	rm := engine.ResumeMap{}
	want := map[string]string{}
	for _, in := range res.Interrupts {
		a := "answer to " + fmt.Sprint(in.Value)
		rm[in.ID] = a
		want[fmt.Sprint(in.Value)] = `"` + a + `"`
	}
	if _, err := g.Invoke(ctx, engine.Command{Resume: rm}, engine.OnThread("rec")); err != nil {
		t.Fatal(err)
	}
	m := replayFromInput(t, g, saver)
	m = press(t, m, "c")
	if m.mode != modeAnswer || len(m.answer.inputs) != 2 {
		t.Fatalf("mode %v, %d answer lines, note %q", m.mode, len(m.answer.inputs), m.note)
	}
	for i, in := range m.answer.ints {
		if got := m.answer.inputs[i].Value(); got != want[fmt.Sprint(in.Value)] {
			t.Errorf("line %d (%v): %q, want %q", i, in.Value, got, want[fmt.Sprint(in.Value)])
		}
	}
	m = press(t, m, "enter", "c")
	if m.replay == nil || m.replay.diverged != "" || !strings.Contains(m.note, "replay matches the recording") {
		t.Fatalf("after the recorded answers: replay %+v note %q", m.replay, m.note)
	}
}

// A replay whose interrupts a subgraph raised offers the answers the
// recording's subgraph saved in its namespace (the parent's tasks saved
// none of their own): the lines were empty and the replay diverged.
func TestModel_Replay_OffersSubgraphInterruptsTheirAnswers(t *testing.T) {
	saver := engine.NewMemorySaver()
	sub, err := engine.NewStateGraph(engine.AppendKey("log"), engine.LastValueKey("item")).
		AddNode("check", func(ctx context.Context, in any) (any, error) {
			item := in.(map[string]any)["item"]
			a, err := engine.Interrupt(ctx, fmt.Sprint("ok ", item, "?"))
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{fmt.Sprint(item, ":", a)}), nil
		}).
		AddEdge(engine.Start, "check").Compile()
	if err != nil {
		t.Fatal(err)
	}
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("plan", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"plan"}), nil }).
		AddSubgraph("ask", sub).
		AddEdge(engine.Start, "plan").
		AddConditionalEdges("plan", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "ask", Arg: map[string]any{"item": "x"}}, engine.Send{Node: "ask", Arg: map[string]any{"item": "y"}}}, nil
		}, "ask").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	replayAnswersTwoAsks(t, g, saver)
}

// A node that asks twice in a row was answered "first", then "second":
// the replay offers each stop the answer the recording gave there, not the
// last one at both (which made the replay's first answer "second").
func TestModel_Replay_OffersEachCallItsOwnAnswer(t *testing.T) {
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			a, err := engine.Interrupt(ctx, "one?")
			if err != nil {
				return nil, err
			}
			b, err := engine.Interrupt(ctx, "two?")
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{fmt.Sprint(a, "+", b)}), nil
		}).
		AddEdge(engine.Start, "ask").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("rec")); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"first", "second"} {
		if _, err := g.Invoke(ctx, engine.Command{Resume: a}, engine.OnThread("rec")); err != nil {
			t.Fatal(err)
		}
	}
	m := replayFromInput(t, g, saver)
	for _, want := range []string{`"first"`, `"second"`} {
		m = press(t, m, "c")
		if m.mode != modeAnswer || len(m.answer.inputs) != 1 {
			t.Fatalf("mode %v, %d answer lines, note %q", m.mode, len(m.answer.inputs), m.note)
		}
		if got := m.answer.inputs[0].Value(); got != want {
			t.Fatalf("answer offered %q, want %q", got, want)
		}
		m = press(t, m, "enter")
	}
	m = press(t, m, "c")
	if m.replay == nil || m.replay.diverged != "" || !strings.Contains(m.note, "replay matches the recording") {
		t.Fatalf("after the recorded answers: replay %+v note %q", m.replay, m.note)
	}
}

// A replay of a thread that waits at a question reaches the recording's
// end there: the screen says so (the command line's replay ends there and
// matches), and what the user answers runs past the recording. The
// replay then said "replay matches the recording" at the end of a run it
// had not compared, with nothing on screen to tell the two apart.
func TestModel_Replay_SaysWhereTheRecordingEnds(t *testing.T) {
	saver := engine.NewMemorySaver()
	g := askTwice(t, saver)
	if _, err := g.Invoke(context.Background(), map[string]any{"log": []any{}}, engine.OnThread("rec")); err != nil {
		t.Fatal(err)
	}
	m := replayFromInput(t, g, saver)
	m = press(t, m, "c")
	if m.mode != modeAnswer || !strings.Contains(m.note, "the recording ends here, at this same question (2 supersteps before it matched)") {
		t.Fatalf("at the recording's last question: mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, "one", "down", "two", "enter", "c")
	if m.view.Status != engine.StatusDone || m.replay.diverged != "" {
		t.Fatalf("status %v diverged %q err %v", m.view.Status, m.replay.diverged, m.err)
	}
	if !strings.Contains(m.note, "then ran past its end, uncompared") || strings.Contains(m.note, "replay matches") {
		t.Fatalf("after running past the recording: note %q", m.note)
	}
	if v := m.View(); !strings.Contains(v, "REPLAY past the recording") {
		t.Fatalf("the header should say the replay is past the recording:\n%s", v)
	}
}

// asker asks question once, then logs the answer; with no question it
// logs "auto" without asking: the code before and after a change that
// makes a node ask.
func asker(t testing.TB, saver engine.Saver, question string, ids engine.IDSource) *engine.Graph {
	t.Helper()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			if question == "" {
				return engine.Pairs("log", []any{"auto"}), nil
			}
			a, err := engine.Interrupt(ctx, question)
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{fmt.Sprint(a)}), nil
		}).
		AddEdge(engine.Start, "ask").
		Compile(engine.WithSaver(saver), engine.WithIDs(ids))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A replay whose task asks where the recorded one ran without asking
// diverges at the question, as the command line's replay does ("the
// replay interrupted with …"): the answer box opened with an empty line
// and nothing said the replay had left the recording.
func TestModel_Replay_NewQuestionDiverges(t *testing.T) {
	saver := engine.NewMemorySaver()
	ctx := context.Background()
	if _, err := asker(t, saver, "", &engine.CounterIDs{}).Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("rec")); err != nil {
		t.Fatal(err)
	}
	m := replayFromInput(t, asker(t, saver, "are you sure?", engine.NewTimeIDs(nil)), saver)
	m = press(t, m, "c")
	if m.mode != modeAnswer || !strings.Contains(m.note, `replay DIVERGED at recorded step 1, ask: the replay interrupted with "are you sure?"`) || m.replay.diverged == "" {
		t.Fatalf("mode %v note %q", m.mode, m.note)
	}
	if v := m.View(); !strings.Contains(v, "REPLAY diverged") {
		t.Fatalf("header:\n%s", v)
	}
}
