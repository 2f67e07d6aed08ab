package engine_test

import (
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
)

func TestDiffValues(t *testing.T) {
	msg := func(id, content string) map[string]any {
		return map[string]any{"id": id, "role": "ai", "content": content}
	}
	cases := []struct {
		name string
		a, b any
		want []engine.ValueChange
	}{
		{"equal", map[string]any{"n": 1}, map[string]any{"n": 1.0}, nil},
		{"scalar", 1.0, 2.0, []engine.ValueChange{{Path: "", Kind: engine.Changed, A: 1.0, B: 2.0}}},
		{"map keys", map[string]any{"a": 1.0, "gone": true}, map[string]any{"a": 2.0, "new key": "x"}, []engine.ValueChange{
			{Path: ".a", Kind: engine.Changed, A: 1.0, B: 2.0},
			{Path: ".gone", Kind: engine.Removed, A: true},
			{Path: `["new key"]`, Kind: engine.Added, B: "x"},
		}},
		{"list append", []any{"x"}, []any{"x", "y"}, []engine.ValueChange{{Path: "[1]", Kind: engine.Added, B: "y"}}},
		{"nested", map[string]any{"l": []any{map[string]any{"k": 1.0}}}, map[string]any{"l": []any{map[string]any{"k": 2.0}}},
			[]engine.ValueChange{{Path: ".l[0].k", Kind: engine.Changed, A: 1.0, B: 2.0}}},
		{"messages by id", []any{msg("m1", "hi"), msg("m2", "old")}, []any{msg("m2", "new"), msg("m3", "added")}, []engine.ValueChange{
			{Path: "[id=m1]", Kind: engine.Removed, A: msg("m1", "hi")},
			{Path: "[id=m2].content", Kind: engine.Changed, A: "old", B: "new"},
			{Path: "[id=m3]", Kind: engine.Added, B: msg("m3", "added")},
		}},
		{"messages named anew", // a replay's branch against the recording's
			[]any{msg("u1", "hi"), msg("x1", "old"), msg("x2", "ask"), map[string]any{"id": "x3", "role": "tool", "content": "42", "tool_call_id": "call_a"}},
			[]any{msg("u1", "hi"), msg("y2", "ask"), map[string]any{"id": "y3", "role": "tool", "content": "42", "tool_call_id": "call_b"}, msg("y4", "new")},
			[]engine.ValueChange{
				{Path: "[id=x1]", Kind: engine.Removed, A: msg("x1", "old")},
				{Path: "[id=x2→y2].id", Kind: engine.Changed, A: "x2", B: "y2"},
				{Path: "[id=x3→y3].id", Kind: engine.Changed, A: "x3", B: "y3"},
				{Path: "[id=x3→y3].tool_call_id", Kind: engine.Changed, A: "call_a", B: "call_b"},
				{Path: "[id=y4]", Kind: engine.Added, B: msg("y4", "new")},
			}},
		{"type change", []any{1.0}, "x", []engine.ValueChange{{Path: "", Kind: engine.Changed, A: []any{1.0}, B: "x"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := engine.DiffValues(c.a, c.b)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %#v\nwant %#v", got, c.want)
			}
		})
	}
}

func TestDiffCheckpoints(t *testing.T) {
	a := &engine.Checkpoint{ID: "a",
		ChannelValues:   map[string]any{"x": 1.0, "same": "s", "gone": true},
		ChannelVersions: map[string]engine.Version{"x": 1, "same": 1, "gone": 1, "bumped": 1},
		VersionsSeen:    map[string]map[string]engine.Version{"n": {"x": 1}}}
	b := &engine.Checkpoint{ID: "b",
		ChannelValues:   map[string]any{"x": 2.0, "same": "s", "new": "v"},
		ChannelVersions: map[string]engine.Version{"x": 2, "same": 1, "gone": 2, "bumped": 2, "new": 1},
		VersionsSeen:    map[string]map[string]engine.Version{"n": {"x": 2}, "m": {"new": 1}}}
	d := engine.DiffCheckpoints(a, b)
	var names []string
	for _, c := range d.Channels {
		names = append(names, c.Channel)
	}
	if !reflect.DeepEqual(names, []string{"bumped", "gone", "new", "x"}) || d.Unchanged != 1 {
		t.Fatalf("channels %v unchanged %d", names, d.Unchanged)
	}
	if c := d.Channels[0]; len(c.Changes) != 0 || c.VersionA != 1 || c.VersionB != 2 {
		t.Fatalf("a version bump alone: %+v", c)
	}
	if c := d.Channels[1]; len(c.Changes) != 1 || c.Changes[0].Kind != engine.Removed {
		t.Fatalf("a cleared channel: %+v", c)
	}
	want := []engine.SeenDiff{{Node: "m", Channel: "new", B: 1, HasB: true}, {Node: "n", Channel: "x", A: 1, B: 2, HasA: true, HasB: true}}
	if !reflect.DeepEqual(d.Seen, want) {
		t.Fatalf("seen %+v", d.Seen)
	}
}

// TestDiffCheckpoints_UnchangedInternal: the unchanged count says how
// many of its channels are the engine's own, which a diff that hides
// them leaves out.
func TestDiffCheckpoints_UnchangedInternal(t *testing.T) {
	vals := map[string]any{"x": 1.0, "same": "s", engine.Start: map[string]any{"x": 1.0}}
	a := &engine.Checkpoint{ID: "a", ChannelValues: vals,
		ChannelVersions: map[string]engine.Version{"x": 1, "same": 1, engine.Start: 1, engine.BranchPrefix + "n": 1}}
	b := &engine.Checkpoint{ID: "b", ChannelValues: map[string]any{"x": 2.0, "same": "s", engine.Start: map[string]any{"x": 1.0}},
		ChannelVersions: map[string]engine.Version{"x": 2, "same": 1, engine.Start: 1, engine.BranchPrefix + "n": 1}}
	d := engine.DiffCheckpoints(a, b)
	if d.Unchanged != 3 || d.UnchangedInternal != 2 {
		t.Fatalf("unchanged %d (%d internal), want 3 (2 internal: %s and %sn)", d.Unchanged, d.UnchangedInternal, engine.Start, engine.BranchPrefix)
	}
}
