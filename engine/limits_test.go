package engine

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// nested returns a value n lists deep.
func nested(n int) any {
	var v any = "x"
	for range n {
		v = []any{v}
	}
	return v
}

// TestEncodeValue_DepthLimit: the codec writes nothing it could not read
// back: MaxValueDepth levels encode and decode, one more is refused, and
// a Send counts the two levels of its encoding (issue 17 item 10).
func TestEncodeValue_DepthLimit(t *testing.T) {
	enc, err := EncodeValue(nested(MaxValueDepth))
	if err != nil {
		t.Fatalf("%d levels: %v", MaxValueDepth, err)
	}
	if _, err := DecodeValue(enc); err != nil {
		t.Fatalf("%d levels do not read back: %v", MaxValueDepth, err)
	}
	for name, v := range map[string]any{
		"lists":         nested(MaxValueDepth + 1),
		"maps":          map[string]any{"a": nested(MaxValueDepth)},
		"send":          Send{Node: "n", Arg: nested(MaxValueDepth - 1)},
		"other go type": []any{deepStructOf(MaxValueDepth)},
	} {
		if _, err := EncodeValue(v); !errors.Is(err, ErrValueTooDeep) {
			t.Errorf("%s one level too deep: err = %v, want ErrValueTooDeep", name, err)
		}
	}
	if _, err := EncodeValue(Send{Node: "n", Arg: nested(MaxValueDepth - 2)}); err != nil {
		t.Errorf("a Send at the limit: %v", err)
	}
}

// deepStruct is a Go value (not one of the engine's forms) that encodes
// n objects deep.
type deepStruct struct{ In *deepStruct }

func deepStructOf(n int) *deepStruct {
	var d *deepStruct
	for range n {
		d = &deepStruct{In: d}
	}
	return d
}

// oneNode compiles START → fn → END over keys, checkpointed in memory.
func oneNode(t *testing.T, name string, fn func(context.Context, any) (any, error), opts []CompileOption, keys ...KeySpec) *Graph {
	t.Helper()
	g, err := NewStateGraph(keys...).AddNode(name, fn).AddEdge(Start, name).AddEdge(name, End).
		Compile(append([]CompileOption{WithSaver(NewMemorySaver())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLimits_DeepWriteIsRefused: a node writing a value nested too deeply
// fails, naming itself and the key, and the value is never checkpointed;
// the same from the run input (issue 17 item 10).
func TestLimits_DeepWriteIsRefused(t *testing.T) {
	ctx := context.Background()
	g := oneNode(t, "deep", func(context.Context, any) (any, error) {
		return Update{{Key: "tree", Value: nested(MaxValueDepth + 1)}}, nil
	}, nil, LastValueKey("tree"))
	_, err := g.Invoke(ctx, map[string]any{"tree": "seed"}, OnThread("t"))
	var le *ValueLimitError
	if !errors.As(err, &le) || le.Node != "deep" || le.Key != "tree" || !errors.Is(err, ErrValueTooDeep) {
		t.Fatalf("err = %v, want a ValueLimitError for node deep, key tree", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `node "deep"`) || !strings.Contains(msg, `key "tree"`) || !strings.Contains(msg, "1000 levels") {
		t.Errorf("message %q does not name the node, the key and the limit", msg)
	}
	snap, err := g.GetState(ctx, Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Values["tree"] != "seed" {
		t.Errorf("state after the refused write: %v", snap.Values["tree"])
	}

	_, err = g.Invoke(ctx, map[string]any{"tree": nested(MaxValueDepth + 1)}, OnThread("t2"))
	if !errors.As(err, &le) || le.Node != InputTask || !strings.Contains(err.Error(), "the run input") {
		t.Errorf("deep input: err = %v", err)
	}
}

// TestLimits_WriteBytes: one write larger than MaxWriteBytes fails its
// node, naming it and the key (issue 17 item 13).
func TestLimits_WriteBytes(t *testing.T) {
	g := oneNode(t, "big", func(context.Context, any) (any, error) {
		return Update{{Key: "s", Value: strings.Repeat("x", 2000)}}, nil
	}, []CompileOption{WithLimits(Limits{MaxWriteBytes: 1000})}, LastValueKey("s"))
	_, err := g.Invoke(context.Background(), map[string]any{"s": ""}, OnThread("t"))
	var le *ValueLimitError
	if !errors.As(err, &le) || le.Node != "big" || le.Key != "s" || !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("err = %v, want a ValueLimitError for node big, key s", err)
	}
	if !strings.Contains(err.Error(), "larger than 1000 bytes") {
		t.Errorf("message %q does not give the limit", err)
	}
	var ne *NodeError
	if !errors.As(err, &ne) || ne.Node != "big" {
		t.Errorf("not a NodeError of big: %v", err)
	}
}

// TestLimits_StateBytes: a node doubling a string each superstep stops at
// the state bound with an error naming the step, the key and the node,
// although each write is under the write bound (issue 17 item 13).
func TestLimits_StateBytes(t *testing.T) {
	const limit = 64 << 10
	g, err := NewStateGraph(LastValueKey("s"), AppendKey("log")).
		AddNode("double", func(_ context.Context, in any) (any, error) {
			s := in.(map[string]any)["s"].(string)
			return Update{{Key: "s", Value: s + s}, {Key: "log", Value: []any{len(s)}}}, nil
		}).
		AddEdge(Start, "double").
		AddConditionalEdges("double", func(context.Context, map[string]any) (any, error) { return "double", nil }, "double").
		Compile(WithSaver(NewMemorySaver()), WithLimits(Limits{MaxStateBytes: limit}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(context.Background(), map[string]any{"s": "ab"}, OnThread("t"), WithRecursionLimit(100))
	var se *StateLimitError
	if !errors.As(err, &se) || !errors.Is(err, ErrStateTooLarge) {
		t.Fatalf("err = %v, want a StateLimitError", err)
	}
	if se.Key != "s" || len(se.Nodes) != 1 || se.Nodes[0] != "double" || se.Bytes <= limit || se.Bytes > 3*limit {
		t.Errorf("StateLimitError = %+v", se)
	}
	if msg := err.Error(); !strings.Contains(msg, `"s"`) || !strings.Contains(msg, `node "double"`) {
		t.Errorf("message %q does not name the key and the node", msg)
	}
	// 2 bytes doubled past 64 KiB: the 16th superstep (step 15) passes it.
	if se.Step != 15 {
		t.Errorf("stopped at step %d, want 15", se.Step)
	}
}

// TestLimits_GrowingListCountsWhatWasAdded: the state size of a list
// that grows by appends is kept up to date from the appended elements
// alone and still matches the bound: ten-byte strings, one per superstep,
// pass a 1000-byte bound after about 80 supersteps.
func TestLimits_GrowingListCountsWhatWasAdded(t *testing.T) {
	g, err := NewStateGraph(AppendKey("items")).
		AddNode("add", func(context.Context, any) (any, error) {
			return Update{{Key: "items", Value: []any{"0123456789"}}}, nil
		}).
		AddEdge(Start, "add").
		AddConditionalEdges("add", func(context.Context, map[string]any) (any, error) { return "add", nil }, "add").
		Compile(WithLimits(Limits{MaxStateBytes: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(context.Background(), map[string]any{"items": []any{}}, WithRecursionLimit(500))
	var se *StateLimitError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a StateLimitError", err)
	}
	// Each element is 12 bytes with its quotes, 13 with its comma.
	if se.Step < 70 || se.Step > 85 || se.Key != "items" {
		t.Errorf("StateLimitError = %+v, want about step 77 on items", se)
	}
}

// TestLimits_EveryKindOfNodeWriteIsChecked: the bound holds for each way a
// node writes a value — an update, a Command's update, a Command's goto
// Send and a route's Send — in any container; a key that is not in the
// state is dropped, not measured.
func TestLimits_EveryKindOfNodeWriteIsChecked(t *testing.T) {
	big := strings.Repeat("x", 2000)
	cases := []struct {
		name    string
		ret     any
		route   bool // the node's route sends big
		wantKey string
	}{
		{"update", Update{{Key: "s", Value: big}}, false, "s"},
		{"map", map[string]any{"s": map[string]any{"in": []any{1.0, big}}}, false, "s"},
		{"strings", Update{{Key: "s", Value: []string{"a", big}}}, false, "s"},
		{"command update", Command{Update: Update{{Key: "s", Value: []any{big}}}}, false, "s"},
		{"command send", Command{Goto: []any{Send{Node: "sink", Arg: big}}}, false, TasksChannel},
		{"route send", nil, true, TasksChannel},
		{"unknown key", Update{{Key: "nope", Value: big}}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sg := NewStateGraph(LastValueKey("s")).
				AddNode("big", func(context.Context, any) (any, error) { return c.ret, nil }).
				AddNode("sink", func(context.Context, any) (any, error) { return nil, nil }).
				AddEdge(Start, "big").AddEdge("sink", End)
			if c.route {
				sg.AddConditionalEdges("big", func(context.Context, map[string]any) (any, error) {
					return []any{Send{Node: "sink", Arg: "small"}, Send{Node: "sink", Arg: big}}, nil
				}, "sink")
			} else {
				sg.AddEdge("big", "sink")
			}
			g, err := sg.Compile(WithLimits(Limits{MaxWriteBytes: 1000}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = g.Invoke(context.Background(), map[string]any{"s": ""}, OnThread("t"))
			if c.wantKey == "" {
				if err != nil {
					t.Fatalf("a key outside the state was measured: %v", err)
				}
				return
			}
			var le *ValueLimitError
			if !errors.As(err, &le) || le.Node != "big" || le.Key != c.wantKey || !errors.Is(err, ErrValueTooLarge) {
				t.Fatalf("err = %v, want a ValueLimitError for node big, key %q", err, c.wantKey)
			}
		})
	}
}

// TestNumberSize_IsTheDecimalLength checks numberSize against the length of
// the number's shortest decimal form, at every power of ten and its
// neighbours, and the 24 of a fraction or a number too large to be exact.
func TestNumberSize_IsTheDecimalLength(t *testing.T) {
	check := func(f float64) {
		t.Helper()
		want := 24
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			want = len(strconv.FormatFloat(math.Abs(f), 'f', -1, 64))
			if f < 0 {
				want++ // the sign; a negative zero is measured as 0
			}
		}
		if got := numberSize(f); got != want {
			t.Errorf("numberSize(%v) = %d, want %d", f, got, want)
		}
	}
	for p := 1.0; p <= 1e16; p *= 10 {
		for _, f := range []float64{p - 1, p, p + 1, 5 * p, -p, -(p - 1), 0.5 * p} {
			check(f)
		}
	}
	check(0)
	check(999999999999999)
	check(1e15)
	check(0.25)
}
