package engine

import (
	"reflect"
	"testing"
)

func TestChannels_UpdateRules(t *testing.T) {
	lv := newLastValue("k")
	if ch, _ := lv.update(nil); ch {
		t.Fatal("LastValue: no writes is no change")
	}
	if ch, _ := lv.update([]any{1.0}); !ch {
		t.Fatal("LastValue: one write is a change")
	}
	if ch, _ := lv.update([]any{1.0}); !ch {
		t.Fatal("LastValue: the same value again still reports a change")
	}
	if _, err := lv.update([]any{1.0, 2.0}); err == nil {
		t.Fatal("LastValue: two writes in a superstep must fail")
	}

	e := newEphemeral("branch:to:x")
	e.update([]any{"a", "b"})
	if v, ok := e.get(); !ok || v != "b" {
		t.Fatalf("unguarded ephemeral keeps the last write, got %v", v)
	}
	if ch, _ := e.update(nil); !ch {
		t.Fatal("ephemeral: an empty update clears a held value and reports a change")
	}
	if _, ok := e.get(); ok {
		t.Fatal("ephemeral must be empty after the clear")
	}
	if ch, _ := e.update(nil); ch {
		t.Fatal("ephemeral: clearing an empty channel is no change")
	}

	tp := newTopic(TasksChannel)
	tp.update([]any{Send{Node: "a"}, []any{Send{Node: "b"}, Send{Node: "c"}}})
	if v, _ := tp.get(); len(v.([]any)) != 3 {
		t.Fatalf("topic flattens lists, got %v", v)
	}
	if ch, _ := tp.update(nil); !ch {
		t.Fatal("a non-accumulating topic drops last step's packets")
	}
	if snap, ok := tp.snapshot(); !ok || len(snap.([]any)) != 0 {
		t.Fatal("an empty topic still checkpoints as []")
	}

	b := newBarrier("join:a+b:c", []string{"b", "a"})
	b.update([]any{"b"})
	if _, ok := b.get(); ok {
		t.Fatal("barrier is not available until every source wrote")
	}
	if ch, _ := b.update([]any{"b"}); ch {
		t.Fatal("a source seen before is no change")
	}
	b.update([]any{"a"})
	if snap, _ := b.snapshot(); !reflect.DeepEqual(snap, []any{"b", "a"}) {
		t.Fatalf("barrier keeps arrival order, got %v", snap)
	}
	if !b.consume() {
		t.Fatal("a complete barrier resets when consumed")
	}
	if _, err := b.update([]any{"z"}); err == nil {
		t.Fatal("a write from an unknown source must fail")
	}
}

func TestAddMessagesReducer(t *testing.T) {
	m := func(id, content string) map[string]any {
		return map[string]any{"id": id, "role": "user", "content": content}
	}
	left := []any{m("1", "a"), m("2", "b")}
	got, err := AddMessagesReducer(left, []any{m("2", "B"), m("3", "c"), map[string]any{"remove": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{m("2", "B"), m("3", "c")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if !reflect.DeepEqual(left, []any{m("1", "a"), m("2", "b")}) {
		t.Fatal("the reducer must not modify its input")
	}
	if _, err := AddMessagesReducer(left, map[string]any{"remove": "9"}); err == nil {
		t.Fatal("removing an unknown id must fail")
	}
	got, _ = AddMessagesReducer(left, []any{m("x", "old"), map[string]any{"remove": RemoveAll}, m("4", "d")})
	if !reflect.DeepEqual(got, []any{m("4", "d")}) {
		t.Fatalf("remove-all keeps only what follows it, got %v", got)
	}
	got, _ = AddMessagesReducer(nil, map[string]any{"role": "user", "content": "no id"})
	if id, _ := got.([]any)[0].(map[string]any)["id"].(string); id == "" {
		t.Fatal("a message without an id gets one")
	}
	aliased := []any{map[string]any{"id": "h", "role": "human", "content": "hi"}, map[string]any{"id": "a", "role": "ai", "content": "ok"}}
	got, _ = AddMessagesReducer(nil, aliased)
	if l := got.([]any); l[0].(map[string]any)["role"] != "user" || l[1].(map[string]any)["role"] != "assistant" {
		t.Fatalf("roles human and ai read back as user and assistant, got %v", got)
	}
	if aliased[0].(map[string]any)["role"] != "human" {
		t.Fatal("the reducer must not modify the written message")
	}
}

func TestAppendReducer_DoesNotShareTails(t *testing.T) {
	base := []any{"a"}
	x, _ := AppendReducer(base, []any{"x"})
	y, _ := AppendReducer(base, []any{"y"})
	if x.([]any)[1] != "x" || y.([]any)[1] != "y" {
		t.Fatal("two appends to the same list (two branches of a thread) must not clobber each other")
	}
}

func TestNamedReducers(t *testing.T) {
	cases := []struct {
		name        string
		cur, write  any
		want        any
		wantFailure bool
	}{
		{"concat", "ab", "c", "abc", false},
		{"concat", "ab", 1.0, nil, true},
		{"sum", 2.0, 3, 5.0, false},
		{"sum", 2.0, "x", nil, true},
		{"merge", map[string]any{"a": 1.0, "b": 1.0}, map[string]any{"b": 2.0}, map[string]any{"a": 1.0, "b": 2.0}, false},
		{"merge", nil, map[string]any{"b": 2.0}, map[string]any{"b": 2.0}, false},
		{"merge", map[string]any{}, []any{}, nil, true},
		{"sorted", []any{"doc3", "doc1"}, []any{"doc2"}, []any{"doc1", "doc2", "doc3"}, false},
		{"sorted", []any{10.0}, []any{9.0}, []any{10.0, 9.0}, false}, // string order, as JavaScript's sort
	}
	for _, c := range cases {
		fn, _, ok := NamedReducer(c.name)
		if !ok {
			t.Fatalf("%s: unknown", c.name)
		}
		got, err := fn(c.cur, c.write)
		if (err != nil) != c.wantFailure || (!c.wantFailure && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("%s(%v, %v) = %v, %v; want %v", c.name, c.cur, c.write, got, err, c.want)
		}
	}
	m := map[string]any{"a": 1.0}
	MergeReducer(m, map[string]any{"a": 2.0})
	if m["a"] != 1.0 {
		t.Fatal("merge must not modify its input")
	}
	if _, _, ok := NamedReducer("nope"); ok {
		t.Fatal("an unknown name is not a reducer")
	}
}
