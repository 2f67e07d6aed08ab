package typed_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// Continue (and a Run or Stream whose input sets nothing) on a thread with
// no checkpoint is engine.ErrEmptyInput, whose text names no thread: the
// error says which thread had nothing to go on from, since a mistyped id is
// the usual cause.
func TestContinue_UnknownThread_NamesIt(t *testing.T) {
	type S struct {
		N int `json:"n"`
	}
	g, err := typed.NewGraph[S]("x").
		AddNode("a", func(_ context.Context, s *S) (typed.Update[S], error) { return typed.Write(s), nil }).
		AddEdge(engine.Start, "a").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, thread := context.Background(), engine.OnThread("th-typo")
	_, errContinue := g.Continue(ctx, thread)
	_, errRun := g.Run(ctx, typed.Update[S]{}, thread)
	var errStream error
	for _, err := range g.Stream(ctx, typed.Update[S]{}, []engine.StreamMode{engine.StreamValues}, thread) {
		errStream = err
	}
	for name, err := range map[string]error{"Continue": errContinue, "Run": errRun, "Stream": errStream} {
		if !errors.Is(err, engine.ErrEmptyInput) || !strings.Contains(err.Error(), `"th-typo"`) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s on a thread with no checkpoint: %v; want ErrEmptyInput naming %s and the thread", name, err, name)
		}
	}
}
