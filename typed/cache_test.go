package typed_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/typed"
)

type Profile struct {
	Name string `json:"name"`
	Age  int    `json:"age,omitempty"`
}

type Cached struct {
	N     int      `json:"n"`
	Who   Profile  `json:"who"`
	Items []int    `json:"items"`
	Seen  []string `json:"seen" reducer:"append"`
}

// TestStateCache_EachNodeOwnsItsCopy checks what the decoded-state cache
// must keep: a node that changes its copy in place (a scalar, a nested
// struct, a slice's elements) changes nothing for the next node, and a
// field re-decoded from a smaller value loses what the old one had.
func TestStateCache_EachNodeOwnsItsCopy(t *testing.T) {
	defer typed.CacheSmallStates()()
	var seen []Cached
	look := func(s *Cached) {
		c := *s
		c.Items = append([]int(nil), s.Items...)
		seen = append(seen, c)
	}
	g, err := typed.NewGraph[Cached]("cached").
		AddNode("a", func(_ context.Context, s *Cached) (typed.Update[Cached], error) {
			look(s)
			s.N, s.Who.Name, s.Items[0] = 99, "changed in place", 99
			return typed.Write(s, typed.Set(&s.Who, Profile{Name: "ann", Age: 30}), typed.Set(&s.Seen, []string{"a"})), nil
		}).
		AddNode("b", func(_ context.Context, s *Cached) (typed.Update[Cached], error) {
			look(s)
			s.N, s.Items[0] = 77, 77
			return typed.Write(s, typed.Set(&s.Who, Profile{Name: "bob"})), nil
		}).
		AddNode("c", func(_ context.Context, s *Cached) (typed.Update[Cached], error) {
			look(s)
			return typed.Write(s, typed.Set(&s.N, s.N+1)), nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", "c").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	// Two runs of the graph: the second starts with the cache the first
	// left; both read the state by key position (engine.StateByKey).
	for _, run := range []string{"first run", "second run"} {
		seen = nil
		var in Cached
		res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.N, 1), typed.Set(&in.Items, []int{1, 2})), engine.OnThread(run))
		if err != nil {
			t.Fatal(err)
		}
		want := []Cached{
			{N: 1, Items: []int{1, 2}, Seen: []string{}},
			{N: 1, Who: Profile{Name: "ann", Age: 30}, Items: []int{1, 2}, Seen: []string{"a"}},
			{N: 1, Who: Profile{Name: "bob"}, Items: []int{1, 2}, Seen: []string{"a"}},
		}
		if !reflect.DeepEqual(seen, want) {
			t.Errorf("%s: nodes saw\n%+v\nwant\n%+v", run, seen, want)
		}
		if res.State.N != 2 || res.State.Who != (Profile{Name: "bob"}) {
			t.Errorf("%s: final state %+v", run, res.State)
		}
	}
}

// TestStateCache_ConcurrentRunsKeepTheirOwnState runs one graph on several
// threads at once: each run's nodes must see that run's values.
func TestStateCache_ConcurrentRunsKeepTheirOwnState(t *testing.T) {
	defer typed.CacheSmallStates()()
	type S struct {
		Start int `json:"start"`
		N     int `json:"n"`
	}
	b := typed.NewGraph[S]("concurrent")
	prev := engine.Start
	for i := range 20 {
		name := fmt.Sprint("n", i)
		b.AddNode(name, func(_ context.Context, s *S) (typed.Update[S], error) {
			if s.N != s.Start+i {
				return typed.Update[S]{}, fmt.Errorf("node %d of run %d saw n=%d", i, s.Start, s.N)
			}
			return typed.Write(s, typed.Set(&s.N, s.N+1)), nil
		}).AddEdge(prev, name)
		prev = name
	}
	g, err := b.Compile()
	if err != nil {
		t.Fatal(err)
	}
	// One run first, so that the concurrent ones start with its cache.
	var in S
	if _, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Start, -100), typed.Set(&in.N, -100))); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for r := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var in S
			start := r * 1000
			res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Start, start), typed.Set(&in.N, start)))
			if err == nil && res.State.N != start+20 {
				err = fmt.Errorf("run %d ended with n=%d", r, res.State.N)
			}
			errs[r] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// TestStateCache_DecodeErrorIsNotCached: a value that does not fit fails
// every node that reads it, not only the first.
func TestStateCache_DecodeErrorIsNotCached(t *testing.T) {
	defer typed.CacheSmallStates()()
	type S struct {
		N int `json:"n"`
	}
	runs := 0
	g, err := typed.NewGraph[S]("bad").
		AddNode("a", func(_ context.Context, s *S) (typed.Update[S], error) { runs++; return typed.Update[S]{}, nil }).
		AddEdge(engine.Start, "a").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		_, err := g.Graph.Invoke(context.Background(), map[string]any{"n": 2.5}, engine.OnThread(fmt.Sprint(i)))
		if !errors.Is(err, typed.ErrDecode) || !strings.Contains(err.Error(), `state field N (key "n")`) {
			t.Fatalf("run %d: got %v", i, err)
		}
	}
	if runs != 0 {
		t.Fatalf("the node ran %d times on a state that does not fit", runs)
	}
}

type Big struct {
	ID       int64  `json:"id"`
	Count    uint64 `json:"count"`
	Small    int32  `json:"small"`
	Anything any    `json:"anything"`
}

// TestBigIntegers_SurviveACheckpoint: integers beyond ±2^53, which a
// float64 would round, come back exact from a bbolt file.
func TestBigIntegers_SurviveACheckpoint(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "big.db")
	store, err := persist.Open(path, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	build := func(s engine.Saver) *typed.Graph[Big] {
		g, err := typed.NewGraph[Big]("big").
			AddNode("inc", func(_ context.Context, s *Big) (typed.Update[Big], error) {
				return typed.Write(s, typed.Set(&s.ID, s.ID+2), typed.Set(&s.Count, s.Count-1)), nil
			}).
			AddEdge(engine.Start, "inc").
			Compile(engine.WithSaver(s))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	var in Big
	if _, err := build(store).Run(ctx, typed.Write(&in, typed.Set(&in.ID, 1<<53+1), typed.Set(&in.Count, math.MaxUint64)), engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	store = reopen(t, store, path)
	defer store.Close()
	got, snap, err := build(store).State(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != 1<<53+3 || got.Count != math.MaxUint64-1 {
		t.Errorf("got id %d count %d, want %d and %d", got.ID, got.Count, int64(1<<53+3), uint64(math.MaxUint64-1))
	}
	if s := string(engine.MustEncode(snap.Values)); !strings.Contains(s, `"id":9007199254740995`) {
		t.Errorf("the checkpoint must hold the exact digits: %s", s)
	}
}

func TestBigIntegers_ThatDoNotFitNameTheField(t *testing.T) {
	ctx := context.Background()
	g, err := typed.NewGraph[Big]("big").
		AddNode("a", func(_ context.Context, s *Big) (typed.Update[Big], error) { return typed.Update[Big]{}, nil }).
		AddEdge(engine.Start, "a").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"id": uint64(math.MaxUint64)}, `state field ID (key "id"): cannot read number 18446744073709551615 into int64`},
		{map[string]any{"small": int64(1 << 40)}, `state field Small (key "small"): cannot read number 1099511627776 into int32: 1099511627776 is out of range`},
		{map[string]any{"count": int64(-(1 << 60) - 1)}, `state field Count (key "count"): cannot read number -1152921504606846977 into uint64`},
	}
	for i, tc := range cases {
		_, err := g.Graph.Invoke(ctx, tc.input, engine.OnThread(fmt.Sprint(i)))
		if !errors.Is(err, typed.ErrDecode) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v:\n got %v\nwant %s", tc.input, err, tc.want)
		}
	}
	// An any field keeps the exact number as the engine holds it.
	v, err := typed.Decode[any](engine.Normalize(int64(1<<53 + 1)))
	if err != nil || fmt.Sprint(v) != "9007199254740993" {
		t.Errorf("any: got %v (%T), %v", v, v, err)
	}
}

// A node cache hit streams its update marked Cached, as a resumed task's
// saved writes are (Part.Cached says both).
func TestStream_CacheHitIsCached(t *testing.T) {
	type S struct {
		N int `json:"n"`
	}
	runs := 0
	g, err := typed.NewGraph[S]("hit").
		AddNode("double", func(_ context.Context, s *S) (typed.Update[S], error) {
			runs++
			return typed.Write(s, typed.Set(&s.N, s.N*2)), nil
		}, engine.WithCachePolicy(engine.CachePolicy{})).
		AddEdge(engine.Start, "double").
		Compile(engine.WithCache(engine.NewMemoryCache()))
	if err != nil {
		t.Fatal(err)
	}
	var cached []bool
	for range 2 {
		var in S
		for p, err := range g.Stream(context.Background(), typed.Write(&in, typed.Set(&in.N, 2)), []engine.StreamMode{engine.StreamUpdates}) {
			if err != nil {
				t.Fatal(err)
			}
			cached = append(cached, p.Cached)
			if p.Update == nil || p.Update.N != 4 {
				t.Errorf("update %+v, want n=4", p.Update)
			}
		}
	}
	if runs != 1 || len(cached) != 2 || cached[0] || !cached[1] {
		t.Errorf("node ran %d times, updates cached %v; want 1 run, [false true]", runs, cached)
	}
}
