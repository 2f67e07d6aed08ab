package typed_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/typed"
)

type Place struct {
	City string  `json:"city"`
	Lat  float64 `json:"lat"`
}

// Rich has a field of every kind the codec has its own path for.
type Rich struct {
	Count   int               `json:"count"`
	Small   int8              `json:"small"`
	Size    uint32            `json:"size"`
	Ratio   float64           `json:"ratio"`
	Name    string            `json:"name"`
	OK      bool              `json:"ok"`
	When    time.Time         `json:"when"`
	Wait    time.Duration     `json:"wait"`
	Tags    []string          `json:"tags" reducer:"append"`
	Scores  map[string]int    `json:"scores"`
	Home    Place             `json:"home"`
	Trips   []Place           `json:"trips"`
	Maybe   *int              `json:"maybe"`
	Raw     any               `json:"raw"`
	Pair    [2]int            `json:"pair"`
	Log     typed.Messages    `json:"log"`
	Nested  map[string][]bool `json:"nested"`
	Skipped string            `json:"-"`
	Plain   string
}

func richGraph(t *testing.T, saver engine.Saver) *typed.Graph[Rich] {
	t.Helper()
	when := time.Date(2026, 11, 30, 10, 45, 29, 123456789, time.FixedZone("CET", 3600))
	seven := 7
	g, err := typed.NewGraph[Rich]("rich").
		AddNode("fill", func(_ context.Context, s *Rich) (typed.Update[Rich], error) {
			return typed.Write(s,
				typed.Set(&s.Count, s.Count+1), typed.Set(&s.Small, -3), typed.Set(&s.Size, 1<<31),
				typed.Set(&s.Ratio, 0.25), typed.Set(&s.Name, "n"), typed.Set(&s.OK, true),
				typed.Set(&s.When, when), typed.Set(&s.Wait, 1500*time.Millisecond),
				typed.Set(&s.Tags, []string{"x", "y"}), typed.Set(&s.Scores, map[string]int{"a": 1}),
				typed.Set(&s.Home, Place{"Oslo", 59.9}), typed.Set(&s.Trips, []Place{{"Rome", 41.9}}),
				typed.Set(&s.Maybe, &seven), typed.Set[any](&s.Raw, map[string]any{"k": []any{1.0}}),
				typed.Set(&s.Pair, [2]int{4, 5}), typed.Set(&s.Log, typed.Messages{{ID: "m1", Role: "user", Content: "hi"}}),
				typed.Set(&s.Nested, map[string][]bool{"b": {true}}), typed.Set(&s.Plain, "p"),
			), nil
		}).
		AddEdge(engine.Start, "fill").
		Compile(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func wantRich() Rich {
	seven := 7
	return Rich{
		Count: 42, Small: -3, Size: 1 << 31, Ratio: 0.25, Name: "n", OK: true,
		When: time.Date(2026, 11, 30, 10, 45, 29, 123456789, time.FixedZone("", 3600)),
		Wait: 1500 * time.Millisecond, Tags: []string{"x", "y"}, Scores: map[string]int{"a": 1},
		Home: Place{"Oslo", 59.9}, Trips: []Place{{"Rome", 41.9}}, Maybe: &seven,
		Raw: map[string]any{"k": []any{1.0}}, Pair: [2]int{4, 5},
		Log: typed.Messages{{ID: "m1", Role: "user", Content: "hi"}}, Nested: map[string][]bool{"b": {true}},
		Plain: "p",
	}
}

func sameRich(t *testing.T, got, want Rich) {
	t.Helper()
	if !got.When.Equal(want.When) {
		t.Errorf("When: got %v, want %v", got.When, want.When)
	}
	got.When, want.When = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("state:\n got %+v\nwant %+v", got, want)
	}
}

func TestGraph_StateSurvivesABboltRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "typed.db")
	store, err := persist.Open(path, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := richGraph(t, store)
	in := Rich{}
	res, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.Count, 41)), engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	sameRich(t, res.State, wantRich())
	store = reopen(t, store, path)
	defer store.Close()
	got, snap, err := richGraph(t, store).State(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, isFloat := snap.Values["count"].(float64); !isFloat {
		t.Fatalf("the channel must hold the engine's number, got %T", snap.Values["count"])
	}
	sameRich(t, got, wantRich())
}

// reopen closes a bbolt store and opens its file again, so what is read
// next comes from the file.
func reopen(t *testing.T, store *persist.Store, path string) *persist.Store {
	t.Helper()
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	store, err := persist.Open(path, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return store
}

func TestGraph_State_ErrorNamesTheField(t *testing.T) {
	ctx := context.Background()
	saver := engine.NewMemorySaver()
	g := richGraph(t, saver)
	cases := []struct {
		values map[string]any
		want   string
	}{
		{map[string]any{"count": 2.5}, `state field Count (key "count"): cannot read number 2.5 into int: 2.5 is not a whole number`},
		{map[string]any{"small": 300.0}, `state field Small (key "small"): cannot read number 300 into int8: 300 is out of range`},
		{map[string]any{"size": -1.0}, `state field Size (key "size")`},
		{map[string]any{"when": "yesterday"}, `state field When (key "when"): cannot read string "yesterday" into time.Time`},
		{map[string]any{"tags": []any{"a", 1.0}}, `state field Tags (key "tags") at [3]: cannot read number 1 into string`},
		{map[string]any{"scores": map[string]any{"a": "x"}}, `state field Scores (key "scores") at ["a"]`},
		{map[string]any{"home": "Oslo"}, `state field Home (key "home"): cannot read string "Oslo" into typed_test.Place`},
		{map[string]any{"name": true}, `state field Name (key "name"): cannot read bool true into string`},
	}
	for i, tc := range cases {
		thread := strings.Repeat("t", i+1)
		var in Rich
		if _, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.Count, 1)), engine.OnThread(thread)); err != nil {
			t.Fatal(err)
		}
		cfg, err := g.Graph.UpdateState(ctx, engine.Config{ThreadID: thread}, tc.values, "fill")
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = g.State(ctx, cfg)
		var de *typed.DecodeError
		if !errors.As(err, &de) || !errors.Is(err, typed.ErrDecode) {
			t.Fatalf("%v: want a DecodeError, got %v", tc.values, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v:\n got %v\nwant it to contain %s", tc.values, err, tc.want)
		}
	}
}

func TestDecode_NumbersStayTheirType(t *testing.T) {
	for _, v := range []any{7.0, 7, int64(7)} {
		n, err := typed.Decode[int](v)
		if err != nil || n != 7 {
			t.Fatalf("Decode[int](%T 7) = %v, %v", v, n, err)
		}
	}
	if _, err := typed.Decode[uint8](256.0); err == nil {
		t.Fatal("256 must not fit a uint8")
	}
	if _, err := typed.Decode[int](float64(1 << 63)); err == nil {
		t.Fatal("2^63 must not fit an int")
	}
}

func TestUpdate_RejectsAPointerThatIsNotAField(t *testing.T) {
	type S struct {
		N int `json:"n"`
	}
	var other int
	g, err := typed.NewGraph[S]("bad").
		AddNode("a", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&other, 1)), nil
		}).
		AddEdge(engine.Start, "a").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in S
	_, err = g.Run(context.Background(), typed.Write(&in, typed.Set(&in.N, 1)))
	if !errors.Is(err, typed.ErrNotAField) || !strings.Contains(err.Error(), `node "a"`) || !strings.Contains(err.Error(), "(a *int)") {
		t.Fatalf("want ErrNotAField naming the node and the pointer's type, got %v", err)
	}
}

// An Update of several changes is resolved when Write is called; a change
// that does not resolve is still reported when the node returns, naming
// the node and the change, and so is a value its field cannot encode.
func TestUpdate_SeveralChangesReportWhenTheNodeReturns(t *testing.T) {
	type S struct {
		N int     `json:"n"`
		F float64 `json:"f"`
	}
	var other int
	for _, c := range []struct {
		node typed.NodeFunc[S]
		is   error
		says string
	}{
		{func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.N, 1), typed.Set(&other, 2)), nil
		}, typed.ErrNotAField, "change 2 (a *int)"},
		{func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.N, 1), typed.Set(&s.F, math.NaN())).Goto(engine.End), nil
		}, nil, "state field F"},
	} {
		g, err := typed.NewGraph[S]("bad").AddNode("a", c.node).AddEdge(engine.Start, "a").Compile()
		if err != nil {
			t.Fatal(err)
		}
		var in S
		_, err = g.Run(context.Background(), typed.Write(&in, typed.Set(&in.N, 1)))
		if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), `node "a"`) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("want an error naming node a and %q, got %v", c.says, err)
		}
	}
}

// Run reuses the map it made of the last input of several changes; another
// input, or the same one on another thread, runs from what it says.
func TestRun_SameInputTwiceAndAnother(t *testing.T) {
	type S struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	g, err := typed.NewGraph[S]("sum").
		AddNode("sum", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.A, s.A+s.B)), nil
		}).
		AddEdge(engine.Start, "sum").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	var x, y S
	one := typed.Write(&x, typed.Set(&x.A, 1), typed.Set(&x.B, 2))
	two := typed.Write(&y, typed.Set(&y.A, 10), typed.Set(&y.B, 20))
	for i, c := range []struct {
		in   typed.Update[S]
		want S
	}{{one, S{3, 2}}, {one, S{3, 2}}, {two, S{30, 20}}, {one, S{3, 2}}} {
		res, err := g.Run(context.Background(), c.in, engine.OnThread(fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		if res.State != c.want {
			t.Errorf("run %d: %+v, want %+v", i, res.State, c.want)
		}
	}
}

func TestNewGraph_SchemaErrors(t *testing.T) {
	type Dup struct {
		X int // key "X", as encoding/json names it
		Y int `json:"X"`
	}
	type BadAppend struct {
		N int `json:"n" reducer:"append"`
	}
	type Unknown struct {
		N int `json:"n" reducer:"max"`
	}
	type WrongType struct {
		N string `json:"n" reducer:"max"`
	}
	maxInt := typed.WithReducer("max", func(a, b int) int { return max(a, b) })
	for name, compile := range map[string]func() error{
		"dup":       func() error { _, err := typed.NewGraph[Dup]("g").Compile(); return err },
		"append":    func() error { _, err := typed.NewGraph[BadAppend]("g").Compile(); return err },
		"unknown":   func() error { _, err := typed.NewGraph[Unknown]("g").Compile(); return err },
		"wrongtype": func() error { _, err := typed.NewGraph[WrongType]("g", maxInt).Compile(); return err },
		"notstruct": func() error { _, err := typed.NewGraph[int]("g").Compile(); return err },
	} {
		err := compile()
		var se *typed.SchemaError
		if !errors.As(err, &se) && !errors.Is(err, typed.ErrNotStruct) {
			t.Errorf("%s: want a schema error, got %v", name, err)
		}
	}
}

func TestWithReducer_FoldsTypedValues(t *testing.T) {
	type S struct {
		Best int `json:"best" reducer:"max"`
	}
	g, err := typed.NewGraph[S]("max", typed.WithReducer("max", func(a, b int) int { return max(a, b) })).
		AddNode("a", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Best, 3)), nil
		}).
		AddNode("b", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Best, 9)), nil
		}).
		AddNode("c", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Best, 5)), nil
		}).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").AddEdge(engine.Start, "c").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in S
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Best, 1)))
	if err != nil || res.State.Best != 9 {
		t.Fatalf("best = %d, %v; want 9", res.State.Best, err)
	}
	if got := res.Values["best"]; got != 9.0 {
		t.Fatalf("the channel holds %T %v, want the engine's number 9", got, got)
	}
}

func TestResume_KeepsAResumeMap(t *testing.T) {
	type Answer struct {
		OK bool `json:"ok"`
	}
	cmd, err := typed.Resume(engine.ResumeMap{"a1": Answer{true}, "b2": 3})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := cmd.Resume.(engine.ResumeMap)
	if !ok || !reflect.DeepEqual(m, engine.ResumeMap{"a1": map[string]any{"ok": true}, "b2": 3.0}) {
		t.Fatalf("got %#v", cmd.Resume)
	}
	if _, err := typed.Resume(nil); !errors.Is(err, engine.ErrEmptyInput) {
		t.Fatalf("a nil answer: got %v", err)
	}
}

// TestGraph_Run_InputIsTheMapInput: a typed input checkpoints exactly what
// the same input given as a map does, so history, stores and traces cannot
// tell them apart.
func TestGraph_Run_InputIsTheMapInput(t *testing.T) {
	type S struct {
		Total   int      `json:"total"`
		Visited []string `json:"visited" reducer:"append"`
		When    time.Time
	}
	ctx := context.Background()
	g, err := typed.NewGraph[S]("in").
		AddNode("a", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Total, s.Total*2)), nil
		}).
		AddEdge(engine.Start, "a").
		Compile(engine.WithSaver(engine.NewMemorySaver()), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var in S
	if _, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.Visited, []string{"x"}), typed.Set(&in.Total, 10), typed.Set(&in.When, when)), engine.OnThread("typed")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, map[string]any{"total": 10, "visited": []any{"x"}, "When": "2026-01-02T03:04:05Z"}, engine.OnThread("map")); err != nil {
		t.Fatal(err)
	}
	history := func(thread string) string {
		hist, err := g.History(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, s := range hist {
			b.Write(engine.MustEncode(s.Checkpoint.ChannelValues))
			b.Write(engine.MustEncode(s.Next))
			b.WriteByte('\n')
		}
		return b.String()
	}
	if a, b := history("typed"), history("map"); a != b {
		t.Fatalf("typed input:\n%s\nmap input:\n%s", a, b)
	}
}

func TestUpdate_GotoAndSendMakeACommand(t *testing.T) {
	type S struct {
		Jobs []string `json:"jobs" reducer:"append"`
		Done bool     `json:"done"`
	}
	type Job struct {
		Name string `json:"name"`
	}
	g := typed.NewGraph[S]("cmd").
		AddNode("plan", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Done, false)).
				Send(typed.Send("work", Job{"x"}), typed.Send("work", Job{"y"})).
				Goto("finish"), nil
		}, engine.WithEnds("work", "finish"))
	typed.AddSendNode(g, "work", func(_ context.Context, j Job, out *S) (typed.Update[S], error) {
		return typed.Write(out, typed.Set(&out.Jobs, []string{j.Name})), nil
	})
	compiled, err := g.
		AddNode("finish", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Done, true)), nil
		}).
		AddEdge(engine.Start, "plan").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in S
	res, err := compiled.Run(context.Background(), typed.Write(&in, typed.Set(&in.Jobs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if !res.State.Done || !reflect.DeepEqual(res.State.Jobs, []string{"x", "y"}) {
		t.Fatalf("state %+v", res.State)
	}
}

func TestAddSendNode_ArgumentThatDoesNotFitNamesTheNode(t *testing.T) {
	type S struct {
		N int `json:"n"`
	}
	type Arg struct {
		Count int `json:"count"`
	}
	g := typed.NewGraph[S]("bad-arg").
		AddNode("split", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Update[S]{}.Send(typed.Send("use", map[string]any{"count": "three"})), nil
		}, engine.WithEnds("use"))
	typed.AddSendNode(g, "use", func(_ context.Context, a Arg, out *S) (typed.Update[S], error) {
		return typed.Update[S]{}, nil
	})
	compiled, err := g.AddEdge(engine.Start, "split").Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in S
	_, err = compiled.Run(context.Background(), typed.Write(&in, typed.Set(&in.N, 1)))
	var de *typed.DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), `node "use": Send argument at .count: cannot read string "three" into int`) {
		t.Fatalf("got %v", err)
	}
}

func TestInterrupt_AnswerThatDoesNotFitIsAnError(t *testing.T) {
	type S struct {
		Age int `json:"age"`
	}
	g, err := typed.NewGraph[S]("ask").
		AddNode("ask", func(ctx context.Context, s *S) (typed.Update[S], error) {
			age, err := typed.Interrupt[int](ctx, "how old?")
			if err != nil {
				return typed.Update[S]{}, err
			}
			return typed.Write(s, typed.Set(&s.Age, age)), nil
		}).
		AddEdge(engine.Start, "ask").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var in S
	if _, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.Age, 0)), engine.OnThread("bad")); err != nil {
		t.Fatal(err)
	}
	_, err = g.Resume(ctx, "forty", engine.OnThread("bad"))
	if !errors.Is(err, typed.ErrDecode) || !strings.Contains(err.Error(), `interrupt answer: cannot read string "forty" into int`) {
		t.Fatalf("got %v", err)
	}
	if _, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.Age, 0)), engine.OnThread("good")); err != nil {
		t.Fatal(err)
	}
	res, err := g.Resume(ctx, 40, engine.OnThread("good"))
	if err != nil || res.State.Age != 40 {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestMessages_MergeByID(t *testing.T) {
	type S struct {
		Chat typed.Messages `json:"chat"`
	}
	g, err := typed.NewGraph[S]("chat").
		AddNode("bot", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Chat, typed.Messages{
				{ID: "1", Role: "user", Content: "hi (edited)"},
				{ID: "2", Role: "assistant", Content: "hello"},
			})), nil
		}).
		AddEdge(engine.Start, "bot").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Describe().Channels; !strings.Contains(string(engine.MustEncode(got)), "add_messages") {
		t.Fatalf("a Messages field must be an add_messages channel: %s", engine.MustEncode(got))
	}
	var in S
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Chat, typed.Messages{{ID: "1", Role: "user", Content: "hi"}})))
	if err != nil {
		t.Fatal(err)
	}
	want := typed.Messages{{ID: "1", Role: "user", Content: "hi (edited)"}, {ID: "2", Role: "assistant", Content: "hello"}}
	if !reflect.DeepEqual(res.State.Chat, want) {
		t.Fatalf("chat %+v", res.State.Chat)
	}
}

func TestMessages_Removal(t *testing.T) {
	type S struct {
		Chat typed.Messages `json:"chat"`
	}
	var seen []typed.Messages
	g, err := typed.NewGraph[S]("chat").
		AddNode("trim", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Chat, typed.Messages{typed.RemoveMessage("1"), {ID: "3", Role: "user", Content: "new"}})), nil
		}).
		AddNode("reset", func(_ context.Context, s *S) (typed.Update[S], error) {
			seen = append(seen, s.Chat)
			return typed.Write(s, typed.Set(&s.Chat, typed.Messages{typed.RemoveAllMessages(), {ID: "4", Role: "system", Content: "fresh"}})), nil
		}).
		AddNode("bad", func(_ context.Context, s *S) (typed.Update[S], error) {
			seen = append(seen, s.Chat)
			return typed.Write(s, typed.Set(&s.Chat, typed.Messages{typed.RemoveMessage("nope")})), nil
		}).
		AddEdge(engine.Start, "trim").AddEdge("trim", "reset").AddEdge("reset", "bad").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in S
	_, err = g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Chat, typed.Messages{{ID: "1", Role: "user", Content: "a"}, {ID: "2", Role: "assistant", Content: "b"}})))
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("removing an unknown id must fail the node, got %v", err)
	}
	want := []typed.Messages{
		{{ID: "2", Role: "assistant", Content: "b"}, {ID: "3", Role: "user", Content: "new"}},
		{{ID: "4", Role: "system", Content: "fresh"}},
	}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("got %+v\nwant %+v", seen, want)
	}
	if v, err := typed.Encode(typed.RemoveMessage("9")); err != nil || !reflect.DeepEqual(v, map[string]any{"remove": "9"}) {
		t.Errorf("a removal is written as the reducer reads it: %v %v", v, err)
	}
	if m, err := typed.Decode[typed.Message](map[string]any{"remove": "9"}); err != nil || !reflect.DeepEqual(m, typed.RemoveMessage("9")) {
		t.Errorf("and read back: %+v %v", m, err)
	}
	if _, err := typed.Encode(typed.RemoveMessage("")); err == nil {
		t.Error("a removal without an id must not encode")
	}
}

// A Send argument decodes the same whether it takes the struct codec's fast
// path (every key present, exactly cased) or falls back to the full decoder
// after the fast path set some fields.
func TestAddSendNode_ArgumentFastAndFallbackDecodeAlike(t *testing.T) {
	type S struct {
		Got []string `json:"got" reducer:"append"`
	}
	type Arg struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	args := []any{
		map[string]any{"a": 1.0, "b": "fast"},
		map[string]any{"a": 2.0, "B": "folded after a"},
		map[string]any{"b": "a missing"},
		map[string]any{"a": 4.0, "b": "extra keys", "c": true},
		Arg{A: 5, B: "a Go value"},
	}
	g := typed.NewGraph[S]("args").
		AddNode("split", func(_ context.Context, s *S) (typed.Update[S], error) {
			u := typed.Update[S]{}
			for _, a := range args {
				u = u.Send(engine.Send{Node: "use", Arg: a})
			}
			return u, nil
		}, engine.WithEnds("use"))
	typed.AddSendNode(g, "use", func(_ context.Context, a Arg, out *S) (typed.Update[S], error) {
		return typed.Write(out, typed.Set(&out.Got, []string{fmt.Sprint(a.A, " ", a.B)})), nil
	})
	compiled, err := g.AddEdge(engine.Start, "split").Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in S
	res, err := compiled.Run(context.Background(), typed.Write(&in, typed.Set(&in.Got, []string{})))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1 fast", "2 folded after a", "0 a missing", "4 extra keys", "5 a Go value"}
	if !reflect.DeepEqual(res.State.Got, want) {
		t.Fatalf("got %q\nwant %q", res.State.Got, want)
	}
}

// A map keyed by integers is stored as encoding/json stores it, its keys
// as decimal text, and comes back whole from a bbolt file: the codec said
// "a map[int]string cannot be stored in a state" when the node returned.
func TestCodec_MapWithIntegerKeysRoundTrips(t *testing.T) {
	type S struct {
		ByID map[int]string `json:"by_id"`
	}
	store, err := persist.Open(filepath.Join(t.TempDir(), "db.bolt"), persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	g, err := typed.NewGraph[S]("ids").
		AddNode("a", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.ByID, map[int]string{3: "three", -1: "minus one"})), nil
		}).
		AddEdge(engine.Start, "a").
		Compile(engine.WithSaver(store))
	if err != nil {
		t.Fatal(err)
	}
	var in S
	if _, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.ByID, map[int]string{})), engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	got, snap, err := g.State(context.Background(), engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int]string{3: "three", -1: "minus one"}; !reflect.DeepEqual(got.ByID, want) {
		t.Fatalf("ByID = %v, want %v", got.ByID, want)
	}
	if want := map[string]any{"3": "three", "-1": "minus one"}; !reflect.DeepEqual(snap.Values["by_id"], want) {
		t.Fatalf("stored %#v, want %#v", snap.Values["by_id"], want)
	}
}

// A Send node's out is a zero state on every task, even when the node
// before it on the same struct filled its copy in (out is recycled), and
// what a task hands back stays its own after its out is reused.
func TestAddSendNode_OutIsZeroOnEveryTask(t *testing.T) {
	// A state past nodeTaskMaxState's 256 bytes: out is recycled (a
	// smaller one is allocated with the task's write, zero as allocated:
	// TestAppend_AppendsTheItemsAsSetOfAListWould checks that one).
	type S struct {
		Items []int    `json:"items"`
		Tags  []string `json:"tags" reducer:"append"`
		Note  string   `json:"note"`
		Count int      `json:"count"`
		Pad   [40]int  `json:"-"`
	}
	type Arg struct {
		N int `json:"n"`
	}
	g := typed.NewGraph[S]("zero-out").
		AddNode("split", func(context.Context, *S) (typed.Update[S], error) { return typed.Update[S]{}, nil })
	dirty := make(chan string, 64)
	typed.AddSendNode(g, "work", func(_ context.Context, a Arg, out *S) (typed.Update[S], error) {
		if !reflect.DeepEqual(*out, S{}) {
			dirty <- fmt.Sprintf("task %d got %+v", a.N, *out)
		}
		// Fill every field, and hand back a list that shares out's.
		out.Items, out.Note, out.Count, out.Pad[39] = []int{a.N}, "left", a.N, a.N
		out.Tags = append(out.Tags, fmt.Sprint("t", a.N))
		return typed.Write(out, typed.Set(&out.Tags, out.Tags)), nil
	})
	typed.AddFanOut(g, "split", "work", func(_ context.Context, s *S) (args []Arg, _ error) {
		for _, n := range s.Items {
			args = append(args, Arg{n})
		}
		return args, nil
	})
	compiled, err := g.AddEdge(engine.Start, "split").Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in S
	items := make([]int, 50)
	want := make([]string, 50)
	for i := range items {
		items[i], want[i] = i, fmt.Sprint("t", i)
	}
	res, err := compiled.Run(context.Background(), typed.Write(&in, typed.Set(&in.Items, items)))
	if err != nil {
		t.Fatal(err)
	}
	close(dirty)
	for d := range dirty {
		t.Error(d)
	}
	if !reflect.DeepEqual(res.State.Tags, want) || res.State.Note != "" || res.State.Count != 0 {
		t.Fatalf("state %+v", res.State)
	}
}

// Appended is a state with an AppendList of each kind Append has a path
// for: ints and strings (encoded at once) and anything else (copied).
type Appended struct {
	Nums   typed.AppendList[int]    `json:"nums"`
	Words  typed.AppendList[string] `json:"words" reducer:"append"` // the tag repeats the type: allowed
	Places typed.AppendList[Place]  `json:"places"`
	Note   string                   `json:"note"`
}

func TestAppend_AppendsTheItemsAsSetOfAListWould(t *testing.T) {
	type Arg struct {
		N int `json:"n"`
	}
	nums := []int{1 << 60} // beyond 2^53: not encoded at once, kept exact
	g := typed.NewGraph[Appended]("append").
		AddNode("start", func(_ context.Context, s *Appended) (typed.Update[Appended], error) {
			items := []int{7, 8, 9, 10, 11, 12} // longer than a short list
			places := []Place{{"Oslo", 59.9}}
			u := typed.Write(s, typed.Append(&s.Nums, items...), typed.Append(&s.Nums, nums...),
				typed.Append(&s.Words), typed.Append(&s.Places, places...))
			items[0], places[0].City = -1, "changed" // the items were copied
			return u, nil
		})
	typed.AddSendNode(g, "work", func(_ context.Context, a Arg, out *Appended) (typed.Update[Appended], error) {
		if !reflect.DeepEqual(*out, Appended{}) {
			t.Errorf("task %d got out %+v", a.N, *out)
		}
		return typed.Write(out, typed.Append(&out.Nums, a.N), typed.Append(&out.Words, fmt.Sprint("w", a.N), "x")), nil
	})
	typed.AddFanOut(g, "start", "work", func(_ context.Context, s *Appended) ([]Arg, error) {
		return []Arg{{1}, {2}, {3}}, nil
	})
	compiled, err := g.AddEdge(engine.Start, "start").Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in Appended
	res, err := compiled.Run(context.Background(), typed.Write(&in, typed.Append(&in.Nums, 5), typed.Set(&in.Words, typed.AppendList[string]{"in"})))
	if err != nil {
		t.Fatal(err)
	}
	want := Appended{
		Nums:   typed.AppendList[int]{5, 7, 8, 9, 10, 11, 12, 1 << 60, 1, 2, 3},
		Words:  typed.AppendList[string]{"in", "w1", "x", "w2", "x", "w3", "x"},
		Places: typed.AppendList[Place]{{"Oslo", 59.9}},
	}
	if !reflect.DeepEqual(res.State, want) {
		t.Fatalf("state\n got %+v\nwant %+v", res.State, want)
	}
	// The channels hold what a []T tagged `reducer:"append"` would.
	if got := fmt.Sprint(res.Values["nums"].([]any)[:3]); got != "[5 7 8]" {
		t.Fatalf("nums channel %s", got)
	}
	if _, isNumber := res.Values["nums"].([]any)[0].(float64); !isNumber {
		t.Fatalf("nums channel holds %T, want the engine's numbers", res.Values["nums"].([]any)[0])
	}
}

func TestAppendList_IsTheAppendChannel(t *testing.T) {
	type Tagged struct {
		Nums []int `json:"nums" reducer:"append"`
	}
	type Typed struct {
		Nums typed.AppendList[int] `json:"nums"`
	}
	type Defined typed.AppendList[int] // a type of its own: a plain slice
	type Plain struct {
		Nums Defined `json:"nums"`
	}
	a, err := typed.NewGraph[Tagged]("g").AddNode("n", func(context.Context, *Tagged) (typed.Update[Tagged], error) { return typed.Update[Tagged]{}, nil }).AddEdge(engine.Start, "n").Compile()
	if err != nil {
		t.Fatal(err)
	}
	b, err := typed.NewGraph[Typed]("g").AddNode("n", func(context.Context, *Typed) (typed.Update[Typed], error) { return typed.Update[Typed]{}, nil }).AddEdge(engine.Start, "n").Compile()
	if err != nil {
		t.Fatal(err)
	}
	c, err := typed.NewGraph[Plain]("g").AddNode("n", func(context.Context, *Plain) (typed.Update[Plain], error) { return typed.Update[Plain]{}, nil }).AddEdge(engine.Start, "n").Compile()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(b.Describe().Channels), fmt.Sprint(a.Describe().Channels); got != want {
		t.Fatalf("AppendList channels %s, want the tagged slice's %s", got, want)
	}
	if got := fmt.Sprint(c.Describe().Channels); got == fmt.Sprint(a.Describe().Channels) {
		t.Fatalf("a type defined from AppendList is an append channel too: %s", got)
	}
}

func TestAppendList_OtherReducerIsASchemaError(t *testing.T) {
	type S struct {
		Nums typed.AppendList[int] `json:"nums" reducer:"max"`
	}
	_, err := typed.NewGraph[S]("g", typed.WithReducer("max", func(a, b typed.AppendList[int]) typed.AppendList[int] { return a })).Compile()
	var se *typed.SchemaError
	if !errors.As(err, &se) || se.Field != "Nums" || !strings.Contains(err.Error(), `reducer "max"`) {
		t.Fatalf("want a SchemaError naming Nums and the reducer, got %v", err)
	}
}

func TestAppend_CopiesItsItems(t *testing.T) {
	// One change: the Update holds it until the node returns, after the
	// node has changed its list.
	g, err := typed.NewGraph[Appended]("copy").
		AddNode("n", func(_ context.Context, s *Appended) (typed.Update[Appended], error) {
			places := []Place{{"Oslo", 59.9}}
			u := typed.Write(s, typed.Append(&s.Places, places...))
			places[0].City = "changed"
			return u, nil
		}).
		AddEdge(engine.Start, "n").Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in Appended
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Note, "in")))
	if err != nil {
		t.Fatal(err)
	}
	if want := (typed.AppendList[Place]{{"Oslo", 59.9}}); !reflect.DeepEqual(res.State.Places, want) {
		t.Fatalf("places %+v, want %+v", res.State.Places, want)
	}
}

// One state type may serve several graphs, a subgraph's included, and a
// reducer is registered per graph: the error names the graph that lacks it.
func TestSchemaError_NamesTheGraph(t *testing.T) {
	type S struct {
		Runs int `json:"runs" reducer:"sum"`
	}
	sum := typed.WithReducer("sum", func(a, b int) int { return a + b })
	_, err := typed.NewGraph[S]("parent", sum).Compile()
	var se *typed.SchemaError
	if errors.As(err, &se) {
		t.Fatalf("parent registers sum: unexpected schema error %v", err)
	}
	_, err = typed.NewGraph[S]("summary").Compile()
	if !errors.As(err, &se) || se.Graph != "summary" || se.Field != "Runs" {
		t.Fatalf("want a SchemaError for graph summary, field Runs; got %#v", err)
	}
	if want := `typed: graph "summary": state typed_test.S, field Runs: reducer "sum" is not registered`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q\nwant it to start with %q", err, want)
	}
	// The schema is cached per type: another graph's error names its own.
	_, err = typed.NewGraph[S]("other").Compile()
	if !errors.As(err, &se) || se.Graph != "other" {
		t.Errorf("second graph: want Graph other, got %v", err)
	}
}

// Run with an Update that sets nothing continues the thread; where there
// is nothing to continue the error says that it was Run's empty input,
// and still matches engine.ErrEmptyInput.
func TestRun_EmptyInputWithNothingToContinueSaysSo(t *testing.T) {
	type S struct {
		N int `json:"n"`
	}
	build := func(opts ...engine.CompileOption) *typed.Graph[S] {
		g, err := typed.NewGraph[S]("g").
			AddNode("a", func(_ context.Context, s *S) (typed.Update[S], error) {
				return typed.Write(s, typed.Set(&s.N, s.N+1)), nil
			}).
			AddEdge(engine.Start, "a").Compile(opts...)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	var in S
	for name, run := range map[string]func() error{
		"no saver": func() error { _, err := build().Run(context.Background(), typed.Write(&in)); return err },
		"new thread": func() error {
			_, err := build(engine.WithSaver(engine.NewMemorySaver())).Run(context.Background(), typed.Update[S]{}, engine.OnThread("new"))
			return err
		},
	} {
		err := run()
		if !errors.Is(err, engine.ErrEmptyInput) || !strings.Contains(err.Error(), "input that sets no field") {
			t.Errorf("%s: %v, want ErrEmptyInput saying the input set no field", name, err)
		}
	}
	// Continue itself keeps the engine's error as it is.
	_, err := build().Continue(context.Background())
	if !errors.Is(err, engine.ErrEmptyInput) || strings.Contains(err.Error(), "typed:") {
		t.Errorf("Continue: %v", err)
	}
}
