// Command myagent is the README's "debugging your own graph" program: two
// graphs of its own registered with superstep's command line. The bad-case
// workflow test (cli/workflow_test.go) builds it against this repository
// with go mod edit -replace, as the README tells a user to.
//
// MYAGENT_SLOW (a duration) makes lookup slow, so a run can be killed in the
// middle of a superstep; MYAGENT_FIX=1 is "the fix": write and fetch then
// write something else, and the refund tool takes cents.
package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
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

// buildTools is a tool-calling agent: its model asks for the same calls
// every run but names them, and its message, anew, as a provider does;
// tools runs one task per call (Send) and answers it by tool_call_id.
// The refund tool fails on an amount with cents until the fix.
func buildTools(opts ...engine.CompileOption) (*engine.Graph, error) {
	minted := func(prefix string) string { return fmt.Sprintf("%s%016x", prefix, rand.Uint64()) }
	lastCalls := func(s any) []any {
		msgs, _ := state(s)["messages"].([]any)
		calls, _ := msgs[len(msgs)-1].(map[string]any)["tool_calls"].([]any)
		return calls
	}
	return engine.NewStateGraph(engine.MessagesKey("messages")).
		Named("tools").
		AddNode("model", func(_ context.Context, s any) (any, error) {
			msgs, _ := state(s)["messages"].([]any)
			ask := map[string]any{"id": minted("msg_"), "role": "assistant", "content": "done"}
			call := func(name string, args map[string]any) any {
				return map[string]any{"id": minted("call_"), "name": name, "args": args}
			}
			switch len(msgs) {
			case 1:
				ask["content"], ask["tool_calls"] = "looking up", []any{call("lookup", map[string]any{"order": "A-17"}), call("policy", map[string]any{"order": "A-17"})}
			case 4:
				ask["content"], ask["tool_calls"] = "refunding", []any{call("refund", map[string]any{"amount": "42.50"})}
			}
			return engine.Pairs("messages", []any{ask}), nil
		}).
		AddNode("tools", func(_ context.Context, arg any) (any, error) {
			c := arg.(map[string]any)
			result := fmt.Sprint(c["name"], ": ok")
			if c["name"] == "refund" {
				amount := fmt.Sprint(c["args"].(map[string]any)["amount"])
				if _, err := strconv.Atoi(amount); err != nil && !fixed() {
					return nil, fmt.Errorf("refund: bad amount %q", amount)
				}
				result = "refunded " + amount
			}
			return engine.Pairs("messages", []any{map[string]any{"role": "tool", "content": result, "tool_call_id": c["id"]}}), nil
		}).
		AddEdge(engine.Start, "model").
		AddConditionalEdges("model", func(_ context.Context, s map[string]any) (any, error) {
			calls := lastCalls(s)
			if len(calls) == 0 {
				return engine.End, nil
			}
			sends := make([]any, len(calls))
			for i, c := range calls {
				sends[i] = engine.Send{Node: "tools", Arg: c}
			}
			return sends, nil
		}, "tools", engine.End).
		AddEdge("tools", "model").
		Compile(opts...)
}

func main() {
	must(graphs.Register(graphs.Example{Name: "myagent", Description: "search and lookup, then write", Build: buildAgent,
		Input: map[string]any{"question": "why?", "notes": []any{}}}))
	must(graphs.Register(graphs.Example{Name: "chatty", Description: "a model that answers differently every run", Build: buildChatty,
		Input: map[string]any{"topic": "pregel"}}))
	must(graphs.Register(graphs.Example{Name: "tools", Description: "a tool-calling agent whose model names its calls anew every run", Build: buildTools,
		Input: map[string]any{"messages": []any{map[string]any{"role": "user", "content": "refund A-17"}}}}))
	os.Exit(cli.Main(context.Background(), os.Args[1:]))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
