package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// jsonOf decodes a command's --json output into v.
func jsonOf(t *testing.T, r result, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("not JSON (%v):\n%s%s", err, r.stdout, r.stderr)
	}
}

// subgraphsOf are the subgraph namespaces show --json lists for the
// thread's latest checkpoint.
func subgraphsOf(t *testing.T, db, thread string) []string {
	t.Helper()
	var doc struct {
		Subgraphs []string `json:"subgraphs"`
	}
	jsonOf(t, superstep(t, "", "show", thread, "--db", db, "--json"), &doc)
	return doc.Subgraphs
}

// show lists the subgraph namespaces a checkpoint's tasks ran, with the
// flag; show, history and diff read a subgraph's checkpoints with --ns (a
// unique prefix will do), as text and --json; an unknown namespace names
// itself and lists the thread's. Without --ns the commands saw only the
// root's checkpoints and no namespace could be named.
func TestNamespace_ShowHistoryDiff(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ns.db")
	superstep(t, "", "run", testdata("sub_two_asks.json"), "--db", db, "--thread", "n1").want(t, 0, `"first?"`)
	nss := subgraphsOf(t, db, "n1")
	if len(nss) != 1 || !strings.HasPrefix(nss[0], "sub:") {
		t.Fatalf("show --json subgraphs %q, want one sub:<task id>", nss)
	}
	ns := nss[0]
	superstep(t, "", "show", "n1", "--db", db).want(t, 0, "subgraphs (their checkpoints: superstep show n1 --db "+db+" --ns NS)", "--ns "+ns)

	superstep(t, "", "show", "n1", "--db", db, "--ns", ns).want(t, 0, "namespace "+ns, "next: a1", `a1 id `, `"first?"`)
	var snap struct {
		Namespace string         `json:"namespace"`
		Next      []string       `json:"next"`
		Values    map[string]any `json:"values"`
	}
	jsonOf(t, superstep(t, "", "show", "n1", "--db", db, "--ns", "sub", "--json"), &snap)
	if snap.Namespace != ns || len(snap.Next) != 1 || snap.Next[0] != "a1" {
		t.Fatalf("show --ns sub --json: %+v", snap)
	}

	h := superstep(t, "", "history", "n1", "--db", db, "--ns", ns)
	h.want(t, 0, "step 0 loop  next: a1", `interrupted: a1: "first?"`, "step -1 input")
	var rows []struct {
		ID   string `json:"id"`
		Step int    `json:"step"`
	}
	jsonOf(t, superstep(t, "", "history", "n1", "--db", db, "--ns", ns, "--json"), &rows)
	if len(rows) != 2 {
		t.Fatalf("history --ns --json: %d rows, want the subgraph's 2", len(rows))
	}
	superstep(t, "", "diff", "n1", rows[1].ID, rows[0].ID, "--db", db, "--ns", ns).want(t, 0, "branch:to:a1")
	var d struct {
		Channels []struct{ Channel string } `json:"channels"`
	}
	jsonOf(t, superstep(t, "", "diff", "n1", rows[1].ID, rows[0].ID, "--db", db, "--ns", ns, "--json"), &d)
	if len(d.Channels) == 0 {
		t.Fatalf("diff --ns --json: no channels")
	}
	// A subgraph's checkpoint named without --ns, and the root's with it.
	superstep(t, "", "diff", "n1", rows[1].ID, rows[0].ID, "--db", db).want(t, 2, "it is a checkpoint of subgraph namespace "+ns, "add --ns "+ns)
	superstep(t, "", "show", "n1", "--db", db, "--ns", ns, "--checkpoint", "ffff").
		want(t, 2, "in namespace "+ns+" (superstep history n1 --db "+db+" --ns "+ns+" lists them)")

	for _, cmd := range [][]string{{"show", "n1"}, {"history", "n1"}, {"diff", "n1", rows[1].ID, rows[0].ID}, {"update", "n1", "--values", `{"log":[]}`}} {
		r := superstep(t, "", append(cmd, "--db", db, "--ns", "nope")...)
		r.want(t, 2, "unknown namespace: --ns nope: thread n1 has no checkpoints in that namespace", "its subgraph namespaces: "+ns)
	}
}

// update --ns writes the new checkpoint in the subgraph's namespace, with
// the subgraph's keys and nodes, as LangGraph's update_state does with a
// subgraph's config (pregel/main.py bulk_update_state delegates to the
// subgraph); the parent's checkpoints are untouched, and the resumed run
// continues the subgraph from the update.
func TestNamespace_Update(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "nsu.db")
	flow := testdata("sub_two_asks.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "u1").want(t, 0, `"first?"`)
	ns := subgraphsOf(t, db, "u1")[0]
	var before []any
	jsonOf(t, superstep(t, "", "history", "u1", "--db", db, "--json"), &before)

	superstep(t, "", "update", "u1", "--db", db, "--ns", ns, "--values", `{"log":["edited"]}`).want(t, 0, "in namespace "+ns)
	var doc map[string]string
	// A unique prefix names the namespace to write in too.
	jsonOf(t, superstep(t, "", "update", "u1", "--db", db, "--ns", "sub", "--values", `{"log":["again"]}`, "--json"), &doc)
	if doc["namespace"] != ns || doc["checkpoint"] == "" {
		t.Fatalf("update --ns --json: %v", doc)
	}
	superstep(t, "", "history", "u1", "--db", db, "--ns", ns).want(t, 0, "step 1 update", "step 2 update")
	var after []any
	jsonOf(t, superstep(t, "", "history", "u1", "--db", db, "--json"), &after)
	if len(after) != len(before) {
		t.Fatalf("the parent has %d checkpoints after a subgraph's update, %d before", len(after), len(before))
	}
	// The subgraph's own keys and nodes are what --values and --as-node
	// name.
	superstep(t, "", "update", "u1", "--db", db, "--ns", ns, "--values", `{"log":[]}`, "--as-node", "sub").
		want(t, 2, `--as-node: graph`, `has no node "sub" (nodes: a1, a2)`, "in namespace "+ns)
	superstep(t, "", "update", "u1", "--db", db, "--ns", ns, "--values", `{"log":[]}`, "--as-node", "a1").want(t, 0, "in namespace")

	// As a1 the update planned a2, which the resume's answer answers:
	// the subgraph went on from its update.
	superstep(t, "", "show", "u1", "--db", db, "--ns", ns).want(t, 0, "next: a2")
	superstep(t, "", "run", flow, "--db", db, "--thread", "u1", "--resume", "B").want(t, 0, "done", `"edited"`, `"again"`, `"a2:B"`)
}

// Nested subgraphs: show lists a subgraph and the one nested in it, each
// readable with --ns; a prefix that several namespaces share is refused,
// naming them.
func TestNamespace_Nested(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "nsn.db")
	superstep(t, "", "run", own("stream_grandchild_resume.json"), "--db", db, "--thread", "g1").want(t, 0, `"deep?"`)
	nss := subgraphsOf(t, db, "g1")
	if len(nss) != 1 || !strings.HasPrefix(nss[0], "mid:") {
		t.Fatalf("show --json subgraphs %q, want mid's (the deep one is listed by mid's)", nss)
	}
	var mid struct {
		Subgraphs []string `json:"subgraphs"`
	}
	jsonOf(t, superstep(t, "", "show", "g1", "--db", db, "--ns", nss[0], "--json"), &mid)
	if len(mid.Subgraphs) != 1 || !strings.HasPrefix(mid.Subgraphs[0], nss[0]+"|deep:") {
		t.Fatalf("show --ns mid --json subgraphs %q, want the deep one in it", mid.Subgraphs)
	}
	deep := mid.Subgraphs[0]
	superstep(t, "", "show", "g1", "--db", db, "--ns", nss[0]).want(t, 0, "namespace "+nss[0], "--ns '"+deep+"'")
	superstep(t, "", "show", "g1", "--db", db, "--ns", deep).want(t, 0, "namespace "+deep, `"deep?"`)

	superstep(t, "", "run", own("subgraph_send_interrupt.json"), "--db", db, "--thread", "s1").want(t, 0, `"ok x?"`)
	if nss := subgraphsOf(t, db, "s1"); len(nss) != 2 {
		t.Fatalf("two Sends to a subgraph: subgraphs %q", nss)
	}
	superstep(t, "", "show", "s1", "--db", db, "--ns", "worker").want(t, 2, "several namespaces of thread s1 start so: worker:")

	// A stateful subgraph keeps one namespace without task ids.
	superstep(t, "", "run", own("stateful_sub_interrupt.json"), "--db", db, "--thread", "st1").want(t, 0)
	var rows []struct {
		ID     string `json:"id"`
		Next   []string
		Source string
	}
	jsonOf(t, superstep(t, "", "history", "st1", "--db", db, "--json"), &rows)
	at := ""
	for _, r := range rows {
		if len(r.Next) == 1 && r.Next[0] == "sub" {
			at = r.ID
		}
	}
	superstep(t, "", "show", "st1", "--db", db, "--checkpoint", at).want(t, 0, "\n  --ns sub\n")
	superstep(t, "", "history", "st1", "--db", db, "--ns", "sub").want(t, 0, "step 0 loop")
}

// TestNamespace_GraphWithoutTheSubgraph: a graph that has no subgraph
// where the thread's namespace ran (the thread's graph changed since, or
// --graph names another) still reads the namespace's checkpoints, without
// planning. It said the thread had no checkpoints there, and listed that
// very namespace as one it has.
func TestNamespace_GraphWithoutTheSubgraph(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ns.db")
	superstep(t, "", "run", testdata("sub_two_asks.json"), "--db", db, "--thread", "n1").want(t, 0, `"first?"`)
	ns := subgraphsOf(t, db, "n1")[0]
	superstep(t, "", "history", "n1", "--db", db, "--ns", ns, "--graph", "linear").want(t, 0, "step 0 loop", "step -1 input")
	superstep(t, "", "show", "n1", "--db", db, "--ns", ns, "--graph", "linear").want(t, 0, "namespace "+ns, `"first?"`)
}
