package typed_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// Roomy is larger than the size from which nodes recycle their state copy,
// and has too few fields for the decoding cache: its copies are zeroed
// before reuse.
type Roomy struct {
	Name string    `json:"name"`
	Tags []string  `json:"tags"`
	Pad  [40]int   `json:"pad"`
	Seen []string  `json:"seen" reducer:"append"`
	Note *string   `json:"note"`
	Opt  *struct{} `json:"opt"`
}

// A recycled copy shows nothing of the task or the run that used it
// before: one graph runs twice on two threads, the first run writing
// fields the second never writes; every node and route of the second run
// must read them as zero.
func TestRecycledState_ShowsNothingOfEarlierTasks(t *testing.T) {
	var seen []string
	g, err := typed.NewGraph[Roomy]("recycle").
		AddNode("write", func(_ context.Context, s *Roomy) (typed.Update[Roomy], error) {
			if s.Name != "first" {
				return typed.Update[Roomy]{}, nil
			}
			note := "kept"
			s.Pad[3] = 7 // a change to the copy only
			return typed.Write(s, typed.Set(&s.Tags, []string{"a"}), typed.Set(&s.Note, &note)), nil
		}).
		AddNode("read", func(_ context.Context, s *Roomy) (typed.Update[Roomy], error) {
			got := fmt.Sprintf("%s tags=%v note=%v pad3=%d", s.Name, s.Tags, s.Note != nil, s.Pad[3])
			return typed.Write(s, typed.Set(&s.Seen, []string{got})), nil
		}).
		AddEdge(engine.Start, "write").
		AddConditionalEdges("write", func(_ context.Context, s *Roomy) (string, error) {
			seen = append(seen, fmt.Sprintf("route %s tags=%v note=%v pad3=%d", s.Name, s.Tags, s.Note != nil, s.Pad[3]))
			return "read", nil
		}, "read").
		AddEdge("read", engine.End).
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var in1, in2 Roomy
	res1, err := g.Run(ctx, typed.Write(&in1, typed.Set(&in1.Name, "first")), engine.OnThread("1"))
	if err != nil {
		t.Fatal(err)
	}
	res2, err := g.Run(ctx, typed.Write(&in2, typed.Set(&in2.Name, "second")), engine.OnThread("2"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(res1.State.Seen), "[first tags=[a] note=true pad3=0]"; got != want {
		t.Errorf("first run read %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(res2.State.Seen), "[second tags=[] note=false pad3=0]"; got != want {
		t.Errorf("second run read %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(seen), "[route first tags=[a] note=true pad3=0 route second tags=[] note=false pad3=0]"; got != want {
		t.Errorf("routes read %s, want %s", got, want)
	}
}

// An Update value returned by several tasks (a package-level Update of
// several changes) gives each task its own writes: the room allocated with
// its changes goes to one of them only (sharing it would write the same
// values twice, which -race reports as a data race between the tasks).
func TestUpdate_ReturnedTwiceWritesTwice(t *testing.T) {
	type S struct {
		A int `json:"a" reducer:"add"`
		B int `json:"b" reducer:"add"`
		C int `json:"c" reducer:"add"`
	}
	var base S
	shared := typed.Write(&base, typed.Set(&base.A, 1), typed.Set(&base.B, 2), typed.Set(&base.C, 3))
	add := typed.WithReducer("add", func(cur, w int) int { return cur + w })
	g, err := typed.NewGraph[S]("twice", add).
		AddNode("x", func(context.Context, *S) (typed.Update[S], error) { return shared, nil }).
		AddNode("y", func(context.Context, *S) (typed.Update[S], error) { return shared, nil }).
		AddEdge(engine.Start, "x").AddEdge(engine.Start, "y").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		var in S
		res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.A, 0)), engine.OnThread(fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.State; got != (S{2, 4, 6}) {
			t.Fatalf("run %d: state %+v, want {2 4 6}", i, got)
		}
	}
}
