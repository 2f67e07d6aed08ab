package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
	"github.com/superstep/superstep/persist"
)

// stateOf reads thread's latest state through the engine (get_state), with
// the scenario graph at path compiled over the database.
func stateOf(t *testing.T, db, path, thread string) *engine.StateSnapshot {
	t.Helper()
	st, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := scenario.Build(f, engine.WithSaver(st))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := g.GetState(context.Background(), engine.Config{ThreadID: thread})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// interruptIDs are the ids of the interrupts run --json reported, by node.
func interruptIDs(t *testing.T, out string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct{ Event, Node, ID string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if e.Event == "interrupt" {
			ids[e.Node] = e.ID
		}
	}
	return ids
}

// run --resume with --update answers as LangGraph's Command(resume=...,
// update={...}): the update is written before the answered nodes run
// again, so they and the nodes after them see it. Two interrupts are
// answered by id with one update.
func TestRun_ResumeWithUpdate(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "u.db")
	flow := testdata("ask_update.json")
	ids := interruptIDs(t, superstep(t, "", "run", flow, "--db", db, "--thread", "u1", "--json").stdout)
	if len(ids) != 2 {
		t.Fatalf("interrupts %v, want a's and b's", ids)
	}
	answers := `{"` + ids["a"] + `":"x","` + ids["b"] + `":"y"}`
	superstep(t, "", "run", flow, "--db", db, "--thread", "u1", "--resume", answers, "--update", `{"flag":"new","log":["edited"]}`).want(t, 0, "done")
	snap := stateOf(t, db, flow, "u1")
	want := []any{"edited", "a:x:new", "b:y:new", "done:new"}
	if got := snap.Values["log"]; !reflect.DeepEqual(got, want) || snap.Values["flag"] != "new" || len(snap.Next) != 0 {
		t.Fatalf("state after the answer with an update: log %v flag %v next %v, want log %v flag new, finished", got, snap.Values["flag"], snap.Next, want)
	}
}

// An interrupt raised in a subgraph is answered by resuming the root: the
// update goes to the root's state (LangGraph's Command.update applies to
// the graph invoked), as the conformance trace of the same scenario
// records: the root's log gets "cmd" before the subgraph's answer, and the
// resumed subgraph, which reads its own state (flag a), returns its whole
// state as its node's update, flag included, over the root's b.
func TestRun_ResumeWithUpdate_SubgraphInterrupt(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	flow, _ := filepath.Abs("../testdata/conformance/own/command_resume_update_sub.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "s1").want(t, 0, "interrupt in sub")
	superstep(t, "", "run", flow, "--db", db, "--thread", "s1", "--resume", "yes", "--update", `{"flag":"b","log":["cmd"]}`).want(t, 0, "done")
	snap := stateOf(t, db, flow, "s1")
	if got, want := snap.Values["log"], []any{"cmd", "ask:yes:a", "post:a"}; !reflect.DeepEqual(got, want) || snap.Values["flag"] != "a" {
		t.Fatalf("log %v flag %v, want log %v flag a", got, snap.Values["flag"], want)
	}
}

// --update is refused, naming the flag and before anything is written,
// without --resume, with --input, when it is not an object, and with a key
// that is not a state key (the engine would drop it unseen).
func TestRun_ResumeWithUpdate_Refused(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "r.db")
	flow := testdata("approve.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "t1").want(t, 0, "interrupt in ask")
	before := stateOf(t, db, flow, "t1").Config.CheckpointID
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--update", `{"total":5}`}, []string{"--update needs --resume"}},
		{[]string{"--update", `{"total":5}`, "--input", `{"total":1}`}, []string{"--update and --input cannot be combined"}},
		{[]string{"--resume", "yes", "--update", `[1]`}, []string{"--update: want a JSON object of state keys"}},
		{[]string{"--resume", "yes", "--update", `{"total":`}, []string{"--update: invalid JSON", "line 1"}},
		{[]string{"--resume", "yes", "--update", `{"totl":5,"total":6}`}, []string{"--update: totl is not a state key of graph approve (did you mean total? state keys: total, visited)"}},
	} {
		args := append([]string{"run", flow, "--db", db, "--thread", "t1"}, c.args...)
		superstep(t, "", args...).want(t, 2, c.want...)
	}
	snap := stateOf(t, db, flow, "t1")
	if snap.Config.CheckpointID != before || len(snap.Interrupts()) != 1 || snap.Values["total"] != 1.0 {
		t.Fatalf("a refused --update wrote: checkpoint %s (was %s), interrupts %v, total %v", snap.Config.CheckpointID, before, snap.Interrupts(), snap.Values["total"])
	}
	superstep(t, "", "run", flow, "--db", db, "--thread", "t1", "--resume", "yes", "--update", `{"total":10}`).want(t, 0, `"total": 11`, "answer=yes")
	// --input's unknown keys are ignored, as LangGraph ignores them, and
	// said: the likely key, and "it" for one.
	superstep(t, "", "run", flow, "--db", db, "--thread", "t2", "--input", `{"totl":1}`).
		want(t, 0, "warning: --input: totl is not a state key of graph approve (did you mean total? state keys: total, visited); it is ignored")
}
