package postgres_test

import (
	"context"
	"fmt"
	"os"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist/postgres"
)

// Open a store on a PostgreSQL server and run a graph on it; every process
// that opens the same URL sees the thread. It needs a server (the URL in
// SUPERSTEP_DB, such as postgres://me@localhost/agents), so go test compiles
// this example but does not run it (it has no Output comment).
func ExampleOpen() {
	ctx := context.Background()
	s, err := postgres.Open(ctx, os.Getenv("SUPERSTEP_DB"), postgres.Options{})
	if err != nil {
		fmt.Println(err) // names the server and what to do: unreachable, auth failed, ...
		return
	}
	defer s.Close()
	g, err := engine.NewStateGraph(engine.LastValueKey("greeting")).
		AddNode("greet", func(context.Context, any) (any, error) {
			return map[string]any{"greeting": "hello"}, nil
		}).
		AddEdge(engine.Start, "greet").
		AddEdge("greet", engine.End).
		Compile(engine.WithSaver(s))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Values["greeting"])
}
