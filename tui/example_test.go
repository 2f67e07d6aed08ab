package tui_test

import (
	"context"
	"log"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/tui"
)

// Open the debugger on your own graph, its checkpoints kept in a bbolt file
// so that the thread is still there the next time. Run takes the terminal
// until the user quits, so go test compiles this example but does not run
// it (it has no Output comment); package engine's and package typed's
// Example_debugger run the same call scripted.
func ExampleRun() {
	store, err := persist.Open("mine.db", persist.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("double", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("n", s.(map[string]any)["n"].(float64)*2), nil
		}).
		AddEdge(engine.Start, "double").
		Compile(engine.WithSaver(store))
	if err != nil {
		log.Fatal(err)
	}
	// Thread "dev" reopens where it was left; a new one starts with Input,
	// paused before its first Plan.
	err = tui.Run(context.Background(), g, tui.Options{Thread: "dev", Input: map[string]any{"n": 21}})
	if err != nil {
		log.Fatal(err)
	}
}
