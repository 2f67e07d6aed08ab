package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/graphs/scenario"
)

// TestRecordedPlan_ConformanceScenarios runs every conformance scenario
// (testdata/conformance, LangGraph.js's behaviours: Sends, gotos, routes,
// joins, deferred nodes, interrupts, failures, subgraphs, updates, forks,
// entrypoints) and checks, at every root checkpoint of every thread its
// ops wrote, that the graph's record plans what the graph's own GetState
// plans, and decides the same status wherever it decides one.
func TestRecordedPlan_ConformanceScenarios(t *testing.T) {
	t.Parallel() // as long as the scenarios' own test: let others run beside it
	files, err := filepath.Glob("../testdata/conformance/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	var scenarios, checkpoints, undecided int
	for _, path := range files {
		if strings.HasSuffix(path, ".trace.json") {
			continue
		}
		if _, err := os.Stat(strings.TrimSuffix(path, ".json") + ".trace.json"); err != nil {
			continue // not a scenario: no trace of LangGraph.js's beside it
		}
		f, err := scenario.Load(path)
		if errors.Is(err, scenario.ErrInvalidGraph) {
			continue // LangGraph refuses the graph: nothing runs
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		saver := engine.NewMemorySaver()
		trace, err := scenario.Trace(context.Background(), f, scenario.RunOptions{Saver: saver})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, refused := trace["compile_error"]; refused {
			continue
		}
		g, _, err := scenario.Build(f, engine.WithSaver(saver))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		scenarios++
		seen := map[string]bool{}
		for _, op := range f.Ops {
			if op.Thread == "" || seen[op.Thread] {
				continue
			}
			seen[op.Thread] = true
			if tuples, _ := saver.List(context.Background(), engine.Config{ThreadID: op.Thread}, engine.ListOptions{}); len(tuples) == 0 {
				continue // the op failed before the thread had a checkpoint
			}
			t.Run(filepath.Base(path)+"/"+op.Thread, func(t *testing.T) {
				_, u := checkRecordedPlan(t, g, op.Thread)
				undecided += u
			})
			tuples, _ := saver.List(context.Background(), engine.Config{ThreadID: op.Thread}, engine.ListOptions{})
			checkpoints += len(tuples)
		}
	}
	if scenarios < 100 || checkpoints < 1000 {
		t.Fatalf("only %d scenarios and %d checkpoints ran", scenarios, checkpoints)
	}
	// The record decides all but the rare checkpoint whose saved resume
	// value a subgraph may have taken.
	if undecided*20 > checkpoints {
		t.Errorf("the record left %d of %d checkpoints undecided", undecided, checkpoints)
	}
	t.Logf("%d scenarios, %d checkpoints, %d undecided", scenarios, checkpoints, undecided)
}

// TestRecordedPlan_BuiltinGraphs runs each built-in graph on its example
// input, answering its interrupts, and checks every checkpoint as
// TestRecordedPlan_ConformanceScenarios does.
func TestRecordedPlan_BuiltinGraphs(t *testing.T) {
	ctx := context.Background()
	for _, ex := range graphs.All() {
		t.Run(ex.Name, func(t *testing.T) {
			g, err := ex.Build(engine.WithSaver(engine.NewMemorySaver()))
			if err != nil {
				t.Fatal(err)
			}
			var input any = ex.Input
			for i := 0; i < 5; i++ {
				res, err := g.Invoke(ctx, input, engine.OnThread("t"))
				if err != nil {
					t.Fatal(err)
				}
				if head, _ := checkRecordedPlan(t, g, "t"); head != res.Status.String() {
					t.Errorf("run %d ended %v; the record says the head is %s", i, res.Status, head)
				}
				if res.Status != engine.StatusInterrupted {
					return
				}
				var answer any = "yes"
				if len(ex.Answers) > 0 && json.Unmarshal([]byte(ex.Answers[0]), &answer) != nil {
					answer = ex.Answers[0] // a plain text answer
				}
				input = engine.Command{Resume: answer}
			}
		})
	}
}
