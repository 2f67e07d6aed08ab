package tui

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// askUpdate is a graph whose two nodes ask at once and log their answer
// with the flag they see; done logs the flag after them.
const askUpdate = `{"name": "ask_update",
 "state": {"log": "add", "flag": null},
 "nodes": [
  {"name": "a", "interrupt": "'a?'", "update": {"log": "['a:' + resume + ':' + str(state.flag)]"}},
  {"name": "b", "interrupt": "'b?'", "update": {"log": "['b:' + resume + ':' + str(state.flag)]"}},
  {"name": "done", "update": {"log": "['done:' + str(state.flag)]"}}
 ],
 "edges": [["__start__", "a"], ["__start__", "b"], ["a", "done"], ["b", "done"]],
 "ops": []}`

// latest is the thread's state read through the engine (get_state).
func latest(t *testing.T, g *engine.Graph, thread string) *engine.StateSnapshot {
	t.Helper()
	snap, err := g.GetState(context.Background(), engine.Config{ThreadID: thread})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// An interrupt answered with a state update (tab in the answer box) is
// LangGraph's Command(resume=..., update=...): the keys changed in the
// state are written through their reducers before the node runs again,
// so the node and those after it see them. The research graph's
// synthesize writes its report of the findings, one of them added here
// (an appending key sends the item added), under a changed question.
func TestModel_Answer_WithStateUpdate(t *testing.T) {
	g, ex, saver := compile(t, "research")
	opts := Options{Thread: "t1", Input: ex.Input, Saver: saver, Answers: ex.Answers}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.mode != modeAnswer {
		t.Fatalf("mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, `{"action":"approve"}`, "tab")
	if !m.answer.editing || !strings.Contains(m.View(), "State update · the state at checkpoint") {
		t.Fatalf("tab did not open the state update:\n%s", m.View())
	}
	checkFrame(t, m)
	state := stateJSON(t, m.answer.state.area.Value())
	state["question"] = "Q2"
	state["findings"] = append(state["findings"].([]any), "extra finding")
	m.answer.state.area.SetValue(toJSON(state))
	m = press(t, m, "enter") // a new line in the JSON, not a resume
	if m.mode != modeAnswer || m.view.Status != engine.StatusInterrupted {
		t.Fatalf("enter in the state update resumed: mode %v status %v", m.mode, m.view.Status)
	}
	m = press(t, m, "ctrl+s")
	if m.err != nil || m.mode != modeMain || !strings.Contains(m.note, "answered with a state update of findings, question") {
		t.Fatalf("resume: mode %v err %v note %q (%s)", m.mode, m.err, m.note, m.answer.err)
	}
	m = press(t, m, "c")
	snap := latest(t, g, "t1")
	report, _ := snap.Values["final_report"].(string)
	if snap.Values["question"] != "Q2" || !strings.HasSuffix(report, "extra finding") || len(snap.Values["findings"].([]any)) != 4 {
		t.Fatalf("after the answer: question %v findings %v report %q", snap.Values["question"], snap.Values["findings"], report)
	}
}

// stateJSON reads a JSON object of the state editor.
func stateJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	v, err := parseState(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A state update that cannot be written keeps the box open with the error
// where the fork form shows its own, and nothing is resumed: a key that
// is not a state key (the engine would drop it unseen), JSON that does
// not parse (line and column), an appending key set to what is not a list.
func TestModel_Answer_StateUpdateRefused(t *testing.T) {
	g, ex, saver := compile(t, "research")
	opts := Options{Thread: "t1", Input: ex.Input, Saver: saver, Answers: ex.Answers}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c", `{"action":"approve"}`, "tab")
	orig := m.answer.state.area.Value()
	for _, c := range []struct{ edit, want string }{
		{`{"nope": 1}`, `state update: nope is not a state key of graph research (state keys: question, sub_queries, findings, approved, final_report)`},
		{"{\n  \"question\": 1,\n}", "state update: invalid JSON at line 3, column 1"},
		{`{"findings": "x"}`, "state update: findings appends (reducer add): expected a list"},
	} {
		state := stateJSON(t, orig)
		edit := stateJSON(t, "{}")
		if strings.Contains(c.edit, "invalid") || strings.HasPrefix(c.edit, "{\n") {
			m.answer.state.area.SetValue(c.edit)
		} else {
			edit = stateJSON(t, c.edit)
			for k, v := range edit {
				state[k] = v
			}
			m.answer.state.area.SetValue(toJSON(state))
		}
		m = press(t, m, "ctrl+s")
		if m.mode != modeAnswer || !strings.Contains(m.answer.err, c.want) || !m.answer.editing {
			t.Fatalf("%s: mode %v err %q, want %q", c.edit, m.mode, m.answer.err, c.want)
		}
		if v := m.View(); !strings.Contains(v, "✗ "+c.want[:min(len(c.want), 40)]) {
			t.Fatalf("%s: the error is not shown:\n%s", c.edit, v)
		}
	}
	if snap := latest(t, g, "t1"); len(snap.Interrupts()) != 1 || snap.Values["question"] == 1.0 {
		t.Fatalf("a refused update resumed: interrupts %v values %v", snap.Interrupts(), snap.Values)
	}
	// esc goes back to the answer line; esc again closes the box and r
	// reopens it with the state update as it was typed.
	m.answer.state.area.SetValue(orig)
	m = press(t, m, "esc")
	if m.mode != modeAnswer || m.answer.editing {
		t.Fatalf("esc in the state update: mode %v editing %v", m.mode, m.answer.editing)
	}
	m = press(t, m, "tab")
	state := stateJSON(t, orig)
	state["approved"] = false
	m.answer.state.area.SetValue(toJSON(state))
	m = press(t, m, "esc", "esc", "r")
	if m.answer.state == nil || !strings.Contains(m.answer.state.area.Value(), `"approved": false`) {
		t.Fatalf("the state update was not kept when the box closed")
	}
}

// Two interrupts answered by id with one state update: both answered
// nodes see it, and so does the node after them.
func TestModel_Answer_SeveralInterruptsWithStateUpdate(t *testing.T) {
	f := parseScenario(t, "ask_update.json", askUpdate)
	saver := engine.NewMemorySaver()
	g := buildScenario(t, f, saver)
	opts := Options{Thread: "u", Input: map[string]any{"log": []any{}, "flag": "old"}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.mode != modeAnswer || len(m.answer.ints) != 2 {
		t.Fatalf("mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, "x", "down", "y", "tab")
	m.answer.state.area.SetValue(`{"flag": "new", "log": []}`)
	m = press(t, m, "ctrl+s", "c")
	snap := latest(t, g, "u")
	if want := []any{"a:x:new", "b:y:new", "done:new"}; !reflect.DeepEqual(snap.Values["log"], want) {
		t.Fatalf("log %v, want %v (err %v, %s)", snap.Values["log"], want, m.err, m.answer.err)
	}
}

// Answered in the namespace of the subgraph that asked, the state update
// goes to the root graph's state, as the run resumed is the root's
// (LangGraph's Command.update applies to the graph invoked); the box says
// so. As the scenario's conformance trace records, the root's log gets
// "cmd" before the subgraph's answer, and the subgraph, which reads its
// own flag (a), returns it over the root's b.
func TestModel_Answer_SubgraphInterruptStateUpdateGoesToTheRoot(t *testing.T) {
	g, saver := scenarioGraph(t, "command_resume_update_sub.json")
	opts := Options{Thread: "s", Input: map[string]any{"log": []any{}, "flag": "a"}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c", "esc")
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	for r, ok := m.tasks.selected(); !ok || r.node != "sub" || !r.header; r, ok = m.tasks.selected() {
		if m.tasks.nav.cur == len(m.tasks.rows)-1 {
			t.Fatalf("no sub task row:\n%s", m.View())
		}
		m = press(t, m, "down")
	}
	m = press(t, m, "enter", "r")
	if m.mode != modeAnswer || m.answer.prev != modeSubgraph {
		t.Fatalf("mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, "yes", "tab")
	if v := m.View(); !strings.Contains(v, "the root graph's state at 000002 (the run resumes there)") {
		t.Fatalf("the state update does not say whose state it is:\n%s", v)
	}
	golden(t, "answer_state_update_subgraph.golden", m.View())
	m.answer.state.area.SetValue(`{"flag": "b", "log": ["cmd"]}`)
	m = press(t, m, "ctrl+s", "c")
	snap := latest(t, g, "s")
	if want := []any{"cmd", "ask:yes:a", "post:a"}; !reflect.DeepEqual(snap.Values["log"], want) || snap.Values["flag"] != "a" {
		t.Fatalf("log %v flag %v, want %v and a (err %v, %s)", snap.Values["log"], snap.Values["flag"], want, m.err, m.answer.err)
	}
}

// The fork form refuses a key that is not a state key, as the answer's
// state update does (the engine's check): UpdateState drops such a key,
// and the fork was written without it, unseen.
func TestModel_Fork_RefusesKeysThatAreNotStateKeys(t *testing.T) {
	m := engineModel(t, "linear", 100, 30)
	m = press(t, m, "c", "f")
	state := stateJSON(t, m.fork.area.Value())
	state["totl"] = 100
	m.fork.area.SetValue(toJSON(state))
	m = press(t, m, "ctrl+s")
	if m.mode != modeFork || !strings.Contains(m.fork.err, "totl is not a state key of graph linear") {
		t.Fatalf("mode %v err %q", m.mode, m.fork.err)
	}
	if h, _ := m.sess.History(context.Background()); len(h) != 4 {
		t.Fatalf("the refused fork wrote a checkpoint: %d in history, want 4", len(h))
	}
}

// An entrypoint has no state keys: tab in its answer box says so rather
// than doing nothing, and the help does not offer it.
func TestModel_Answer_EntrypointHasNoStateUpdate(t *testing.T) {
	saver := engine.NewMemorySaver()
	g, err := engine.NewEntrypoint("asker", func(ctx context.Context, in any) (any, error) {
		return engine.Interrupt(ctx, "ok?")
	}, engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "e1", Input: map[string]any{"x": 1}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 36)
	m = press(t, m, "c")
	if m.mode != modeAnswer {
		t.Fatalf("mode %v note %q err %v", m.mode, m.note, m.err)
	}
	if m.answer.keys.State.Enabled() {
		t.Fatal("tab is offered for an entrypoint's answer")
	}
	m = press(t, m, "tab")
	if v := m.View(); m.answer.state != nil || !strings.Contains(v, "an entrypoint has no state keys") || strings.Contains(v, "tab") {
		t.Fatalf("tab on an entrypoint's answer:\n%s", m.View())
	}
}

// At 80×24 the state update takes the graph's room while it is edited
// (it had three lines under the graph), and the status line stops saying
// "enter resumes": enter is a new line there.
func TestModel_Answer_StateUpdateTakesTheRoom(t *testing.T) {
	m := engineModel(t, "research", 80, 24)
	m = press(t, m, "c")
	if m.mode != modeAnswer {
		t.Fatalf("mode %v", m.mode)
	}
	m = press(t, m, "tab")
	checkFrame(t, m)
	v := m.View()
	if h := m.answer.state.area.Height(); h < 6 {
		t.Errorf("the state update has %d lines:\n%s", h, v)
	}
	if strings.Contains(v, "Graph · research") {
		t.Errorf("the graph stays above the state update:\n%s", v)
	}
	status := strings.Split(v, "\n")[1]
	if strings.Contains(status, "enter resumes") || !strings.Contains(status, "ctrl+s resumes") {
		t.Errorf("status line while the state is edited: %q", status)
	}
	for _, want := range []string{"State update at ", "ctrl+s resumes with this update · tab or esc: the answers"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q at 80 columns:\n%s", want, v)
		}
	}
	m = press(t, m, "tab")
	checkFrame(t, m)
	if v := m.View(); !strings.Contains(v, "Graph · research") || !strings.Contains(strings.Split(v, "\n")[1], "enter resumes") {
		t.Errorf("back to the answers:\n%s", v)
	}
}
