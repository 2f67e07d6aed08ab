package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_FailurePointsAtTheExpression: a run that fails in an
// expression, or on a destination one computed, says where the file has
// it (file:line:column and its field) before the engine's message; a
// route to no node, dropped with a warning, is warned of there too. Run,
// the headless tui and trace's message alike.
func TestRun_FailurePointsAtTheExpression(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	index := write("index.json", `{"name": "index", "state": {"n": "sum", "xs": null},
 "nodes": [{"name": "a", "update": {"n": "state.xs[3].v"}}],
 "edges": [["__start__", "a"], ["a", "__end__"]],
 "ops": [{"op": "invoke", "input": {"n": 0}}]}`)
	send := write("send.json", `{"name": "send", "state": {"who": null},
 "nodes": [{"name": "a", "update": {"who": "'wrker'"}}, {"name": "worker"}],
 "edges": [["__start__", "a"], ["worker", "__end__"]],
 "branches": [{"from": "a", "route": "[send(state.who, {})]", "ends": ["worker"]}],
 "ops": [{"op": "invoke", "input": {"who": "x"}}]}`)
	route := write("route.json", `{"name": "route", "state": {"next": null},
 "nodes": [{"name": "a", "update": {"next": "'bb'"}}, {"name": "b"}],
 "edges": [["__start__", "a"], ["b", "__end__"]],
 "branches": [{"from": "a", "route": "state.next"}],
 "ops": [{"op": "invoke", "input": {"next": "b"}}]}`)
	db := filepath.Join(dir, "t.db")

	superstep(t, "", "run", index, "--db", db, "--thread", "i1").want(t, 1,
		"superstep: "+index+`:2:42: nodes[0] "a": update.n: thread i1: node "a" failed at step 1: update.n: cannot read 3 of null`)
	superstep(t, "", "tui", index, "--db", db, "--thread", "i2").want(t, 1,
		"superstep: "+index+`:2:42: nodes[0] "a": update.n: thread i2: node "a" failed at step 1:`)
	superstep(t, "", "run", send, "--db", db, "--thread", "s1").want(t, 1,
		"superstep: "+send+`:4:38: branches[0].route: thread s1: node "a" failed at step 1: invalid update: invalid node name "wrker" in Send packet from "a"`)
	r := superstep(t, "", "trace", send)
	r.want(t, 0, "superstep: warning: "+send+`:4:38: branches[0].route: ops[0] (invoke) failed: node "a" failed at step 1: invalid update: invalid node name "wrker"`)
	if strings.Contains(r.stdout, "send.json:") {
		t.Errorf("the trace names a place in the file:\n%s", r.stdout)
	}
	superstep(t, "", "run", route, "--db", db, "--thread", "r1").want(t, 0,
		`warning: `+route+`:4:38: branches[0].route: "a" routed to "bb" (did you mean "b"?), which is no node of the graph`)
}
