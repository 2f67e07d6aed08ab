// Command myagent is the README's "debugging your own graph" program: two
// graphs of its own registered with superstep's command line. The bad-case
// workflow test (cli/workflow_test.go) builds it against this repository
// with go mod edit -replace, as the README tells a user to.
//
// MYAGENT_SLOW (a duration) makes lookup slow, so a run can be killed in the
// middle of a superstep; MYAGENT_FIX=1 is "the fix": write and fetch then
// write something else.
package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/superstep/superstep/cli"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
)

func fixed() bool { return os.Getenv("MYAGENT_FIX") == "1" }

func state(s any) map[string]any { return s.(map[string]any) }

// buildAgent: search and lookup run in one superstep; write joins them.
func buildAgent(opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.LastValueKey("question"), engine.AppendKey("notes"), engine.LastValueKey("answer")).
		Named("myagent").
		AddNode("search", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("notes", []any{fmt.Sprint("searched: ", state(s)["question"])}), nil
		}).
		AddNode("lookup", func(ctx context.Context, _ any) (any, error) {
			if d, err := time.ParseDuration(os.Getenv("MYAGENT_SLOW")); err == nil {
				select {
				case <-time.After(d):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return engine.Pairs("notes", []any{"looked up"}), nil
		}).
		AddNode("write", func(_ context.Context, s any) (any, error) {
			notes, _ := state(s)["notes"].([]any)
			answer := fmt.Sprintf("%d notes", len(notes))
			if fixed() {
				answer += ", checked"
			}
			return engine.Pairs("answer", answer), nil
		}).
		AddEdge(engine.Start, "search").AddEdge(engine.Start, "lookup").
		AddJoin([]string{"search", "lookup"}, "write").
		Compile(opts...)
}

// buildChatty: model answers differently every run, as a model call does;
// fetch and edit are deterministic.
func buildChatty(opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.LastValueKey("topic"), engine.LastValueKey("draft"), engine.LastValueKey("source"), engine.LastValueKey("final")).
		Named("chatty").
		AddNode("model", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("draft", fmt.Sprintf("%v, take %d", state(s)["topic"], rand.Int64())), nil
		}).
		AddNode("fetch", func(context.Context, any) (any, error) {
			source := "archive"
			if fixed() {
				source = "archive v2"
			}
			return engine.Pairs("source", source), nil
		}).
		AddNode("edit", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("final", fmt.Sprintf("%v (from %v)", state(s)["draft"], state(s)["source"])), nil
		}).
		AddEdge(engine.Start, "model").AddEdge(engine.Start, "fetch").
		AddJoin([]string{"model", "fetch"}, "edit").
		Compile(opts...)
}

func main() {
	must(graphs.Register(graphs.Example{Name: "myagent", Description: "search and lookup, then write", Build: buildAgent,
		Input: map[string]any{"question": "why?", "notes": []any{}}}))
	must(graphs.Register(graphs.Example{Name: "chatty", Description: "a model that answers differently every run", Build: buildChatty,
		Input: map[string]any{"topic": "pregel"}}))
	os.Exit(cli.Main(context.Background(), os.Args[1:]))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
