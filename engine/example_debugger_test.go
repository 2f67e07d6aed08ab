package engine_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/tui"
)

// Open the debugger on your own graph: compile it with a saver and hand it
// to tui.Run, which steps it with a Stepper and shows every phase. In a
// program, leave Options.In and Out unset so the debugger takes the
// terminal; here they script one ctrl+c so the example runs in go test.
func Example_debugger() {
	saver := engine.NewMemorySaver() // or persist.Open(path, persist.Options{}) for a file
	g, err := engine.NewStateGraph(engine.LastValueKey("n"), engine.AppendKey("log")).
		AddNode("double", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("n", s.(map[string]any)["n"].(float64)*2, "log", []any{"doubled"}), nil
		}).
		AddEdge(engine.Start, "double").
		Compile(engine.WithSaver(saver))
	if err != nil {
		panic(err)
	}
	err = tui.Run(context.Background(), g, tui.Options{
		Thread: "dev", Input: map[string]any{"n": 21}, Saver: saver,
		In: strings.NewReader("\x03"), Out: io.Discard,
	})
	fmt.Println("debugger closed:", err)
	// Output: debugger closed: <nil>
}
