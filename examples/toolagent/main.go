// Command toolagent is a tool-calling agent written with superstep's Go API,
// the graph a LangGraph user would build with a ReAct loop and ship: a
// research subgraph, then an agent node that calls a chat model and a tools
// node that runs the tools the model asks for, until the model answers.
//
// The model is a fake, deterministic and in-process, so the program runs
// offline and its test (main_test.go) checks its output; replace model with
// a call to your provider. The search tool fails on its first call and is
// retried (engine.WithRetry); the delete_file tool is dangerous, so the tools
// node asks a person first (typed.Interrupt) and the run stops there until
// an answer resumes it (typed.Graph.Resume, LangGraph's Command(resume=…)).
// Every superstep is checkpointed into a bbolt file (persist.Open), so each
// command below is a separate process that goes on where the last one
// stopped:
//
//	toolagent agent.db start        # runs until the approval question
//	toolagent agent.db approve yes  # answers it (or no) and runs to the end
//	toolagent agent.db inspect      # get_state, history, update_state, a fork
//
// Ctrl-C stops a run cleanly: the tasks that finished keep their writes and
// `toolagent agent.db continue` goes on from the last checkpoint
// (TOOLAGENT_HANG=1 makes the search tool hang until then, to try it).
// The same file opens in the debugger: superstep history t1 --db agent.db.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/typed"
)

// State is the agent's state: one state key per field. Messages is an
// add_messages channel (its type says so); the others keep the last write.
type State struct {
	Messages typed.Messages `json:"messages"`
	Question string         `json:"question"`
	Research string         `json:"research"`
	ToolRuns int            `json:"tool_runs"`
	Answer   string         `json:"answer"`
}

// ResearchState is the research subgraph's state. The keys it shares with
// State (question, research) are how it talks to its parent: the parent's
// question is its input, and its research comes back in the parent's state.
type ResearchState struct {
	Question string                   `json:"question"`
	Notes    typed.AppendList[string] `json:"notes"`
	Research string                   `json:"research"`
}

// Approval is what the tools node asks a person before a dangerous tool.
type Approval struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// thread is the one conversation this program keeps in its file.
const thread = "t1"

// tools holds the tools' implementations. search fails on its first call
// in a process (a flaky backend), which the tools node's retry policy
// absorbs; with hang set it waits for the run to be cancelled instead.
type tools struct {
	searches atomic.Int32
	hang     bool
}

func (t *tools) search(ctx context.Context, args map[string]any) (string, error) {
	if t.hang {
		<-ctx.Done()
		return "", ctx.Err()
	}
	if t.searches.Add(1) == 1 {
		return "", errors.New("search backend: 503 service unavailable")
	}
	return fmt.Sprintf("3 results for %q", args["query"]), nil
}

func (t *tools) deleteFile(_ context.Context, args map[string]any) (string, error) {
	return fmt.Sprintf("deleted %v", args["path"]), nil
}

// model is the fake chat model: it asks for a search, then for the
// deletion of an old report, then answers from what the tools returned.
func model(msgs typed.Messages) typed.Message {
	var results []string
	for _, m := range msgs {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	switch len(results) {
	case 0:
		return typed.Message{Role: "assistant", Content: "Let me search.", ToolCalls: []typed.ToolCall{
			{ID: "call_1", Name: "search", Args: map[string]any{"query": "superstep"}},
		}}
	case 1:
		return typed.Message{Role: "assistant", Content: "I will clean up the old report.", ToolCalls: []typed.ToolCall{
			{ID: "call_2", Name: "delete_file", Args: map[string]any{"path": "old-report.txt"}},
		}}
	default:
		return typed.Message{Role: "assistant", Content: "Done: " + strings.Join(results, "; ") + "."}
	}
}

// buildResearch is the research subgraph: gather notes, then summarize them.
func buildResearch() (*typed.Graph[ResearchState], error) {
	return typed.NewGraph[ResearchState]("research").
		AddNode("gather", func(ctx context.Context, s *ResearchState) (typed.Update[ResearchState], error) {
			engine.Emit(ctx, "gathering notes on "+s.Question)
			return typed.Write(s, typed.Append(&s.Notes, "engine", "debugger")), nil
		}).
		AddNode("summarize", func(_ context.Context, s *ResearchState) (typed.Update[ResearchState], error) {
			return typed.Write(s, typed.Set(&s.Research, strings.Join(s.Notes, ", "))), nil
		}).
		AddEdge(engine.Start, "gather").
		AddEdge("gather", "summarize").
		Compile() // no saver: it checkpoints in its parent's, under its own namespace
}

// build compiles the agent with its checkpoints in saver.
func build(saver engine.Saver, t *tools) (*typed.Graph[State], error) {
	research, err := buildResearch()
	if err != nil {
		return nil, err
	}
	return typed.NewGraph[State]("toolagent").
		// A node may not share a name with a state key: "research" is one.
		AddSubgraph("researcher", research.Graph).
		AddNode("agent", func(ctx context.Context, s *State) (typed.Update[State], error) {
			reply := model(s.Messages)
			// An id given before streaming keeps the message from being
			// streamed a second time when the update returns it.
			reply.ID = fmt.Sprintf("ai-%d", len(s.Messages))
			if err := typed.StreamMessage(ctx, reply); err != nil {
				return typed.Update[State]{}, err
			}
			if len(reply.ToolCalls) == 0 {
				return typed.Write(s, typed.Set(&s.Messages, typed.Messages{reply}), typed.Set(&s.Answer, reply.Content)), nil
			}
			return typed.Write(s, typed.Set(&s.Messages, typed.Messages{reply})), nil
		}).
		AddNode("tools", func(ctx context.Context, s *State) (typed.Update[State], error) {
			calls := s.Messages[len(s.Messages)-1].ToolCalls
			// Ask first, before any tool runs: after the answer the node
			// runs again from its top, and Interrupt then returns it.
			for _, c := range calls {
				if c.Name != "delete_file" {
					continue
				}
				ok, err := typed.Interrupt[bool](ctx, Approval{Tool: c.Name, Args: c.Args})
				if err != nil {
					return typed.Update[State]{}, err // the interrupt: return it as it is
				}
				if !ok {
					refused := typed.Message{Role: "tool", Name: c.Name, ToolCallID: c.ID, Content: "refused by a human"}
					return typed.Write(s, typed.Set(&s.Messages, typed.Messages{refused})), nil
				}
			}
			var results typed.Messages
			for _, c := range calls {
				engine.Emit(ctx, "running "+c.Name)
				var out string
				var err error
				switch c.Name {
				case "search":
					out, err = t.search(ctx, c.Args)
				case "delete_file":
					out, err = t.deleteFile(ctx, c.Args)
				default:
					err = fmt.Errorf("the model asked for an unknown tool %q", c.Name)
				}
				if err != nil {
					return typed.Update[State]{}, err // retried by the policy below
				}
				results = append(results, typed.Message{Role: "tool", Name: c.Name, ToolCallID: c.ID, Content: out})
			}
			return typed.Write(s, typed.Set(&s.Messages, results), typed.Set(&s.ToolRuns, s.ToolRuns+len(results))), nil
		}, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 3})).
		AddEdge(engine.Start, "researcher").
		AddEdge("researcher", "agent").
		// LangGraph's tools_condition: to the tools while the model asks for some.
		AddConditionalEdges("agent", func(_ context.Context, s *State) (string, error) {
			if len(s.Messages[len(s.Messages)-1].ToolCalls) > 0 {
				return "tools", nil
			}
			return engine.End, nil
		}, "tools", engine.End).
		AddEdge("tools", "agent").
		Compile(engine.WithSaver(saver))
}

// modes are the stream modes printed while a run goes.
var modes = []engine.StreamMode{engine.StreamUpdates, engine.StreamMessages, engine.StreamCustom}

// show prints a run's stream, one line a chunk, and returns the run's error.
func show(out io.Writer, parts iter.Seq2[typed.Part[State], error]) error {
	for p, err := range parts {
		if err != nil {
			return err
		}
		prefix := ""
		if len(p.Namespace) > 0 {
			// A subgraph's chunk: "researcher:<task id>" names the node
			// that ran it. Its state (p.Data) has the subgraph's type,
			// which research.DecodePart(p.StreamPart) decodes.
			prefix = "[" + engine.NamespaceNodes(strings.Join(p.Namespace, "|")) + "] "
		}
		switch {
		case len(p.Interrupts) > 0:
			for _, in := range p.Interrupts {
				a, err := typed.Decode[Approval](in.Value)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%sinterrupt: may I run %s %v? (approve yes|no)\n", prefix, a.Tool, a.Args)
			}
		case p.Mode == engine.StreamUpdates && p.Node != "":
			fmt.Fprintf(out, "%supdate %s: %s\n", prefix, p.Node, strings.Join(p.Keys, ", "))
		case p.Mode == engine.StreamMessages && p.Message != nil:
			m := p.Message
			fmt.Fprintf(out, "%smessage %s: %s", prefix, m.Role, m.Content)
			for _, c := range m.ToolCalls {
				fmt.Fprintf(out, " [calls %s %v]", c.Name, c.Args)
			}
			fmt.Fprintln(out)
		case p.Mode == engine.StreamCustom:
			fmt.Fprintf(out, "%scustom: %v\n", prefix, p.Data)
		}
	}
	return nil
}

// run runs one command on the database db: start, approve yes|no, continue
// or inspect. hang makes the search tool wait for ctx's cancellation.
func run(ctx context.Context, out io.Writer, db string, args []string, hang bool) error {
	if len(args) == 0 {
		return errors.New("a command is needed: start, approve yes|no, continue or inspect")
	}
	store, err := persist.Open(db, persist.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	g, err := build(store, &tools{hang: hang})
	if err != nil {
		return err
	}
	on := engine.OnThread(thread)
	switch args[0] {
	case "start":
		var s State
		q := "what is superstep?"
		in := typed.Write(&s, typed.Set(&s.Question, q), typed.Set(&s.Messages, typed.Messages{{Role: "user", Content: q}}))
		return show(out, g.Stream(ctx, in, modes, on, engine.WithSubgraphs()))
	case "approve":
		if len(args) != 2 || (args[1] != "yes" && args[1] != "no") {
			return errors.New("approve takes yes or no")
		}
		_, snap, err := g.State(ctx, engine.Config{ThreadID: thread})
		if err != nil {
			return err
		}
		if len(snap.Interrupts()) == 0 {
			return engine.ErrNothingPending // Resume would run nothing and say done
		}
		return show(out, g.StreamResume(ctx, args[1] == "yes", modes, on))
	case "continue":
		// The zero Update is no input: the thread goes on from its checkpoint.
		return show(out, g.Stream(ctx, typed.Update[State]{}, modes, on))
	case "inspect":
		return inspect(ctx, out, g)
	}
	return fmt.Errorf("unknown command %q: start, approve yes|no, continue or inspect", args[0])
}

// inspect reads the thread's state and history, edits the state, and forks
// the thread at the approval question to answer it the other way.
func inspect(ctx context.Context, out io.Writer, g *typed.Graph[State]) error {
	cfg := engine.Config{ThreadID: thread}
	st, snap, err := g.State(ctx, cfg) // get_state
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "state: %d messages, tool_runs %d, answer %q, next %v\n", len(st.Messages), st.ToolRuns, st.Answer, snap.Next)

	hist, err := g.History(ctx, cfg, engine.ListOptions{}) // get_state_history, newest first
	if err != nil {
		return err
	}
	var asked *engine.StateSnapshot // the checkpoint where the tools node asked
	for _, h := range hist {
		fmt.Fprintf(out, "history: step %2d %-6s next %v\n", h.Metadata.Step, h.Metadata.Source, h.Next)
		for _, t := range h.Tasks {
			if len(t.Interrupts) > 0 && asked == nil {
				asked = h // its interrupt is answered: Interrupts() lists only waiting ones
			}
		}
	}

	var s State // update_state: as if the agent had written it
	if _, err := g.UpdateState(ctx, cfg, typed.Write(&s, typed.Set(&s.Answer, "superstep runs agent graphs.")), "agent"); err != nil {
		return err
	}
	st, _, err = g.State(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "after update_state: answer %q\n", st.Answer)

	if asked == nil {
		return errors.New("the thread never asked for an approval: run start and approve first")
	}
	// A fork answers the question again. Resume with FromCheckpoint would
	// keep the answer saved there; running on from the checkpoint asks
	// again, on a new branch, and the resume answers on that branch.
	res, err := g.Continue(ctx, engine.OnThread(thread), engine.FromCheckpoint(asked.Config.CheckpointID))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "fork from step %d: %v, %d question\n", asked.Metadata.Step, res.Status, len(res.Interrupts))
	res, err = g.Resume(ctx, false, engine.OnThread(thread))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "fork answered no: %v, answer %q\n", res.Status, res.State.Answer)
	return nil
}

func main() {
	// Ctrl-C cancels ctx: the run stops, its running tasks are cancelled,
	// and the thread keeps every checkpoint and finished task's writes.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: toolagent DB start | approve yes|no | continue | inspect")
		os.Exit(2)
	}
	err := run(ctx, os.Stdout, os.Args[1], os.Args[2:], os.Getenv("TOOLAGENT_HANG") == "1")
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(os.Stderr, "toolagent: stopped; `toolagent %s continue` goes on from the last checkpoint\n", os.Args[1])
		os.Exit(130)
	case err != nil:
		fmt.Fprintln(os.Stderr, "toolagent:", err)
		os.Exit(1)
	}
}
