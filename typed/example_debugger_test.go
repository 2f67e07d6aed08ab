package typed_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/tui"
	"github.com/superstep/superstep/typed"
)

// Open the debugger on your own graph: compile it with a saver and hand its
// engine graph to tui.Run. In a program, leave Options.In and Out unset so
// the debugger takes the terminal; here they script one ctrl+c so the
// example runs in go test.
func Example_debugger() {
	type State struct {
		N   int      `json:"n"`
		Log []string `json:"log" reducer:"append"`
	}
	saver := engine.NewMemorySaver() // or persist.Open(path, persist.Options{}) for a file
	g, err := typed.NewGraph[State]("mine").
		AddNode("double", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.N, s.N*2), typed.Set(&s.Log, []string{"doubled"})), nil
		}).
		AddEdge(engine.Start, "double").
		Compile(engine.WithSaver(saver))
	if err != nil {
		panic(err)
	}
	err = tui.Run(context.Background(), g.Graph, tui.Options{
		Thread: "dev", Input: map[string]any{"n": 21}, Saver: saver,
		In: strings.NewReader("\x03"), Out: io.Discard,
	})
	fmt.Println("debugger closed:", err)
	// Output: debugger closed: <nil>
}
