package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestToolAgent_StartApproveInspect runs the program's commands one after
// the other on one file, each opening and closing the store as a process
// would, and checks what each prints.
func TestToolAgent_StartApproveInspect(t *testing.T) {
	db := filepath.Join(t.TempDir(), "agent.db")
	ctx := context.Background()

	got := runOK(t, ctx, db, "start")
	want := `[researcher] custom: gathering notes on what is superstep?
[researcher] update gather: notes
[researcher] update summarize: research
update researcher: question, research
message assistant: Let me search. [calls search map[query:superstep]]
update agent: messages
custom: running search
custom: running search
update tools: messages, tool_runs
message tool: 3 results for "superstep"
message assistant: I will clean up the old report. [calls delete_file map[path:old-report.txt]]
update agent: messages
interrupt: may I run delete_file map[path:old-report.txt]? (approve yes|no)
`
	if got != want {
		t.Fatalf("start printed:\n%s\nwant:\n%s", got, want)
	}

	got = runOK(t, ctx, db, "approve", "yes")
	want = `custom: running delete_file
update tools: messages, tool_runs
message tool: deleted old-report.txt
message assistant: Done: 3 results for "superstep"; deleted old-report.txt.
update agent: messages, answer
`
	if got != want {
		t.Fatalf("approve yes printed:\n%s\nwant:\n%s", got, want)
	}
	if err := run(ctx, &bytes.Buffer{}, db, []string{"approve", "yes"}, false); !errors.Is(err, engine.ErrNothingPending) {
		t.Fatalf("a second approve: %v, want ErrNothingPending", err)
	}

	got = runOK(t, ctx, db, "inspect")
	want = `state: 6 messages, tool_runs 2, answer "Done: 3 results for \"superstep\"; deleted old-report.txt.", next []
history: step  6 loop   next []
history: step  5 loop   next [agent]
history: step  4 loop   next [tools]
history: step  3 loop   next [agent]
history: step  2 loop   next [tools]
history: step  1 loop   next [agent]
history: step  0 loop   next [researcher]
history: step -1 input  next [__start__]
after update_state: answer "superstep runs agent graphs."
fork from step 4: interrupted, 1 question
fork answered no: done, answer "Done: 3 results for \"superstep\"; refused by a human."
`
	if got != want {
		t.Fatalf("inspect printed:\n%s\nwant:\n%s", got, want)
	}

	// The research subgraph kept its own checkpoints in its namespace.
	store, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	g, err := build(store, &tools{})
	if err != nil {
		t.Fatal(err)
	}
	hist, err := g.History(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{AllNamespaces: true})
	if err != nil {
		t.Fatal(err)
	}
	var sub int
	for _, h := range hist {
		if strings.HasPrefix(h.Config.CheckpointNS, "researcher:") {
			sub++
		}
	}
	if sub == 0 {
		t.Errorf("no checkpoint of the research subgraph in %d checkpoints", len(hist))
	}
}

// cancelOn is a writer that cancels a run when a line it prints contains
// a marker: the test's Ctrl-C, sent while the tool it names is running.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if strings.Contains(string(p), w.marker) {
		w.cancel()
	}
	return w.buf.Write(p)
}

// TestToolAgent_CancelThenContinue cancels the run while the search tool
// hangs, as Ctrl-C does, and continues the thread in a later run: the
// finished supersteps are not run again and the run reaches the question.
func TestToolAgent_CancelThenContinue(t *testing.T) {
	db := filepath.Join(t.TempDir(), "agent.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelOn{marker: "running search", cancel: cancel}
	err := run(ctx, w, db, []string{"start"}, true)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled run: %v, want context.Canceled", err)
	}

	got := runOK(t, context.Background(), db, "continue")
	want := `custom: running search
custom: running search
update tools: messages, tool_runs
message tool: 3 results for "superstep"
message assistant: I will clean up the old report. [calls delete_file map[path:old-report.txt]]
update agent: messages
interrupt: may I run delete_file map[path:old-report.txt]? (approve yes|no)
`
	if got != want {
		t.Fatalf("continue printed:\n%s\nwant:\n%s", got, want)
	}
}

func runOK(t *testing.T, ctx context.Context, db string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(ctx, &out, db, args, false); err != nil {
		t.Fatalf("%v: %v\noutput:\n%s", args, err, out.String())
	}
	return out.String()
}
