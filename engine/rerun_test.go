package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A node whose output differs every run (a model call, a clock) and a
// deterministic node after it; an interrupt answered in between.
func rerunGraph(t *testing.T, calls *atomic.Int64) *engine.Graph {
	return mustCompile(t, engine.NewStateGraph(engine.LastValueKey("draft"), engine.AppendKey("log")).
		AddNode("model", func(context.Context, any) (any, error) {
			return engine.Pairs("draft", float64(calls.Add(1))), nil
		}).
		AddNode("review", func(ctx context.Context, s any) (any, error) {
			ans, err := engine.Interrupt(ctx, "ok?")
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{ans}), nil
		}).
		AddEdge(engine.Start, "model").AddEdge("model", "review"))
}

func TestGraph_RerunTask_RunsOneTaskWritesNothing(t *testing.T) {
	var calls atomic.Int64
	g := rerunGraph(t, &calls)
	cfg := engine.Config{ThreadID: "r"}
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("r")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, engine.Command{Resume: "yes"}, engine.OnThread("r")); err != nil {
		t.Fatal(err)
	}
	hist, err := g.Saver().List(ctx, cfg, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := len(hist)
	find := func(node string) (*engine.CheckpointTuple, string) { return plannedTask(t, g, "r", node) }

	cp, id := find("model")
	r, err := g.RerunTask(ctx, cp, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "model" || len(r.Diff) != 1 || r.Diff[0].Channel != "draft" {
		t.Fatalf("rerun of model: %+v, want a diff on draft", r)
	}
	if calls.Load() != 2 {
		t.Fatalf("model ran %d times, want 2 (once recorded, once again)", calls.Load())
	}

	// review gets its recorded answer and writes the same.
	cp, id = find("review")
	r, err = g.RerunTask(ctx, cp, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Interrupts) != 0 || r.Diff != nil || len(r.Writes) == 0 {
		t.Fatalf("rerun of review: %+v, want the recorded writes again", r)
	}
	if calls.Load() != 2 {
		t.Fatalf("rerunning review ran model too (%d calls)", calls.Load())
	}
	after, _ := g.Saver().List(ctx, cfg, engine.ListOptions{})
	if len(after) != before {
		t.Fatalf("RerunTask wrote %d checkpoints to the saver", len(after)-before)
	}
	if _, err := g.RerunTask(ctx, cp, "no-such-task"); err == nil {
		t.Fatal("RerunTask of an unplanned task succeeded")
	}
}

func TestDiffWrites_ChannelByChannel(t *testing.T) {
	rec := []engine.Write{{Channel: "a", Value: 1.0}, {Channel: "log", Value: "x"}, {Channel: "log", Value: "y"}, {Channel: engine.InterruptChannel, Value: 1}}
	got := []engine.Write{{Channel: "log", Value: "x"}, {Channel: "log", Value: "y"}, {Channel: "a", Value: 1.0}}
	if d := engine.DiffWrites(engine.RunWrites{Writes: rec}, engine.RunWrites{Writes: got}); d != nil {
		t.Fatalf("equal writes differ: %+v", d)
	}
	got = append(got[:2:2], engine.Write{Channel: "b", Value: true})
	d := engine.DiffWrites(engine.RunWrites{Writes: rec}, engine.RunWrites{Writes: got})
	if len(d) != 2 || d[0].Channel != "a" || d[0].HasGot || d[1].Channel != "b" || d[1].HasRecorded {
		t.Fatalf("diff %+v, want a missing and b added", d)
	}
}

// Message ids are names: writes that differ only in the ids each run
// minted, or in the ids each run's input gave the same messages, are the
// same writes; any other difference in ids is not.
func TestDiffWrites_MessageIDsAreNames(t *testing.T) {
	msg := func(id, content string) map[string]any {
		return map[string]any{"id": id, "role": "assistant", "content": content}
	}
	msgs := func(ms ...any) []engine.Write { return []engine.Write{{Channel: "messages", Value: ms}} }
	input := func(ids ...string) map[string]any {
		l := make([]any, len(ids))
		for i, id := range ids {
			l[i] = msg(id, "m"+fmt.Sprint(i))
		}
		return map[string]any{"messages": l}
	}
	cases := []struct {
		name         string
		recIn, gotIn any
		rec, got     []engine.Write
		same         bool
	}{
		{"both minted", input("u1"), input("u1"), msgs(msg("u1", "m0"), msg("x1", "hi")), msgs(msg("u1", "m0"), msg("y1", "hi")), true},
		{"minted ids used consistently", input("u1"), input("u1"), msgs(msg("x1", "a"), map[string]any{"remove": "x1"}), msgs(msg("y1", "a"), map[string]any{"remove": "y1"}), true},
		{"inputs' ids at the same places", input("u1", "x1"), input("u1", "y1"), msgs(msg("x1", "edited")), msgs(msg("y1", "edited")), true},
		{"removal of the input's message at the same place", input("u1", "x1"), input("u1", "y1"), msgs(map[string]any{"remove": "x1"}), msgs(map[string]any{"remove": "y1"}), true},
		{"another message of the input", input("u1", "x1"), input("u1", "y1"), msgs(msg("x1", "edited")), msgs(msg("u1", "edited")), false},
		{"a minted id against an input's", input("u1"), input("u1"), msgs(msg("x1", "hi")), msgs(msg("u1", "hi")), false},
		{"one minted id against two", input(), input(), msgs(msg("x1", "a"), msg("x1", "b")), msgs(msg("y1", "a"), msg("y2", "b")), false},
		{"two minted ids against one", input(), input(), msgs(msg("x1", "a"), msg("x2", "b")), msgs(msg("y1", "a"), msg("y1", "b")), false},
		{"content differs", input(), input(), msgs(msg("x1", "a")), msgs(msg("y1", "b")), false},
		{"a record's id is not a message's", nil, nil, []engine.Write{{Channel: "user", Value: map[string]any{"id": "r1", "name": "n"}}}, []engine.Write{{Channel: "user", Value: map[string]any{"id": "r2", "name": "n"}}}, false},
		{"no inputs at all", nil, nil, msgs(msg("x1", "hi")), msgs(msg("y1", "hi")), true},
	}
	for _, c := range cases {
		d := engine.DiffWrites(engine.RunWrites{Input: c.recIn, Writes: c.rec}, engine.RunWrites{Input: c.gotIn, Writes: c.got})
		if (d == nil) != c.same {
			t.Errorf("%s: diff %+v, want same=%v", c.name, d, c.same)
		}
	}

	// A channel that differs pairs no ids for the channels after it.
	rec := []engine.Write{{Channel: "a", Value: msg("x1", "one")}, {Channel: "b", Value: msg("x1", "three")}}
	got := []engine.Write{{Channel: "a", Value: msg("y1", "two")}, {Channel: "b", Value: msg("z1", "three")}}
	d := engine.DiffWrites(engine.RunWrites{Writes: rec}, engine.RunWrites{Writes: got})
	if len(d) != 1 || d[0].Channel != "a" {
		t.Fatalf("diff %+v, want channel a only", d)
	}
}

// A task's input is the same when only its messages' ids differ, one to
// one; the recorded writes then come back in the other run's ids, those
// the recorded run minted kept, and values of other kinds intact.
func TestSameInput_RenamesRecordedWrites(t *testing.T) {
	msg := func(id, content string) map[string]any {
		return map[string]any{"id": id, "role": "assistant", "content": content}
	}
	rec := map[string]any{"messages": []any{msg("u1", "hi"), msg("x1", "hello")}, "n": 1.0}
	got := map[string]any{"messages": []any{msg("u1", "hi"), msg("y1", "hello")}, "n": 1.0}
	ids, same := engine.SameInput(rec, got)
	if !same {
		t.Fatal("inputs that differ only in a message's id are not the same")
	}
	writes := []engine.Write{
		{Channel: "messages", Value: []any{msg("x1", "edited"), map[string]any{"remove": "x1"}, msg("x9", "new")}},
		{Channel: engine.TasksChannel, Value: engine.Send{Node: "reply", Arg: map[string]any{"m": msg("x1", "hello")}}},
		{Channel: "n", Value: 2.0},
	}
	renamed := ids.Rename(writes)
	want := []engine.Write{
		{Channel: "messages", Value: []any{msg("y1", "edited"), map[string]any{"remove": "y1"}, msg("x9", "new")}},
		{Channel: engine.TasksChannel, Value: engine.Send{Node: "reply", Arg: map[string]any{"m": msg("y1", "hello")}}},
		{Channel: "n", Value: 2.0},
	}
	if !reflect.DeepEqual(renamed, want) {
		t.Fatalf("renamed writes\n%#v\nwant\n%#v", renamed, want)
	}
	if writes[0].Value.([]any)[0].(map[string]any)["id"] != "x1" {
		t.Fatal("Rename changed the recorded writes")
	}

	for name, other := range map[string]any{
		"content differs": map[string]any{"messages": []any{msg("u1", "hi"), msg("y1", "bye")}, "n": 1.0},
		"two ids for one": map[string]any{"messages": []any{msg("y1", "hi"), msg("y1", "hello")}, "n": 1.0},
		"another key":     map[string]any{"messages": []any{msg("u1", "hi"), msg("y1", "hello")}, "n": 2.0},
		"a message fewer": map[string]any{"messages": []any{msg("u1", "hi")}, "n": 1.0},
	} {
		if _, same := engine.SameInput(rec, other); same {
			t.Errorf("%s: the same input", name)
		}
	}
}

// A tool call's id is a name as a message's is: a model's provider mints
// one per call, and the tool's result refers to it by tool_call_id. Two
// runs that asked for the same calls, and answered each, match; a result
// that answers another call than the recording's did differs.
func TestDiffWrites_ToolCallIDsAreNames(t *testing.T) {
	call := func(id, name string) map[string]any {
		return map[string]any{"id": id, "name": name, "args": map[string]any{"q": name}, "type": "tool_call"}
	}
	asks := func(msgID string, calls ...any) map[string]any {
		return map[string]any{"id": msgID, "role": "assistant", "content": "", "tool_calls": calls}
	}
	result := func(msgID, callID string) map[string]any {
		return map[string]any{"id": msgID, "role": "tool", "content": "found", "tool_call_id": callID}
	}
	msgs := func(ms ...any) []engine.Write { return []engine.Write{{Channel: "messages", Value: ms}} }
	user := map[string]any{"messages": []any{map[string]any{"id": "u1", "role": "user", "content": "hi"}}}
	history := func(msgID string, callIDs ...string) map[string]any {
		calls := make([]any, len(callIDs))
		for i, id := range callIDs {
			calls[i] = call(id, fmt.Sprint("t", i))
		}
		return map[string]any{"messages": []any{user["messages"].([]any)[0], asks(msgID, calls...)}}
	}
	cases := []struct {
		name         string
		recIn, gotIn any
		rec, got     []engine.Write
		same         bool
	}{
		{"a model's minted call ids", user, user,
			msgs(asks("m1", call("call_a", "t0"), call("call_b", "t1"))), msgs(asks("m2", call("call_x", "t0"), call("call_y", "t1"))), true},
		{"the provider's form of a call", user, user,
			msgs(asks("m1", map[string]any{"id": "call_a", "type": "function", "function": map[string]any{"name": "t0"}})),
			msgs(asks("m2", map[string]any{"id": "call_x", "type": "function", "function": map[string]any{"name": "t0"}})), true},
		{"one call id for two", user, user,
			msgs(asks("m1", call("call_a", "t0"), call("call_b", "t1"))), msgs(asks("m2", call("call_x", "t0"), call("call_x", "t1"))), false},
		{"results answer the input's calls at the same places", history("m1", "call_a", "call_b"), history("m2", "call_x", "call_y"),
			msgs(result("r1", "call_a"), result("r2", "call_b")), msgs(result("r3", "call_x"), result("r4", "call_y")), true},
		{"a result answers another call", history("m1", "call_a", "call_b"), history("m2", "call_x", "call_y"),
			msgs(result("r1", "call_a")), msgs(result("r3", "call_y")), false},
		{"a Send of one call, answered", call("call_a", "t0"), call("call_x", "t0"),
			msgs(result("r1", "call_a")), msgs(result("r2", "call_x")), true},
		{"a result written without an id", call("call_a", "t0"), call("call_x", "t0"),
			msgs(map[string]any{"role": "tool", "content": "found", "tool_call_id": "call_a"}),
			msgs(map[string]any{"role": "tool", "content": "found", "tool_call_id": "call_x"}), true},
		{"a message id is not a call id", history("m1", "call_a"), history("m2", "call_x"),
			msgs(result("r1", "call_a")), msgs(result("r2", "m2")), false},
	}
	for _, c := range cases {
		d := engine.DiffWrites(engine.RunWrites{Input: c.recIn, Writes: c.rec}, engine.RunWrites{Input: c.gotIn, Writes: c.got})
		if (d == nil) != c.same {
			t.Errorf("%s: diff %+v, want same=%v", c.name, d, c.same)
		}
	}
}

// A reused tool result, recorded for the recording's call, answers the
// replay's call: Rename writes tool_call_id in the replay's name, and a
// Send of a tool call blanks its name for pairing (WithoutMintedNames).
func TestSameInput_RenamesToolCallIDs(t *testing.T) {
	call := func(id string) map[string]any {
		return map[string]any{"id": id, "name": "lookup", "args": map[string]any{"order": "A-17"}}
	}
	ids, same := engine.SameInput(call("call_a"), call("call_x"))
	if !same {
		t.Fatal("two Sends of one tool call under minted ids are not the same input")
	}
	rec := []engine.Write{{Channel: "messages", Value: []any{map[string]any{"id": "r1", "role": "tool", "content": "found", "tool_call_id": "call_a"}}}}
	want := []engine.Write{{Channel: "messages", Value: []any{map[string]any{"id": "r1", "role": "tool", "content": "found", "tool_call_id": "call_x"}}}}
	if got := ids.Rename(rec); !reflect.DeepEqual(got, want) {
		t.Fatalf("renamed writes\n%#v\nwant\n%#v", got, want)
	}
	if a, b := engine.MustEncode(engine.WithoutMintedNames(call("call_a"))), engine.MustEncode(engine.WithoutMintedNames(call("call_x"))); string(a) != string(b) {
		t.Fatalf("a tool call's id is not blanked: %s, %s", a, b)
	}
	if _, same := engine.SameInput(call("call_a"), map[string]any{"id": "call_x", "name": "lookup", "args": map[string]any{"order": "B-9"}}); same {
		t.Fatal("calls with other arguments are the same input")
	}
}
