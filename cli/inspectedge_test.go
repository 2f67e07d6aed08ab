package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestInspect_ShortTaskIDs: a Saver takes task ids of any length (a
// program's own, an imported thread's), and history and show name a
// task by its id's start: an id shorter than that start must print
// whole, not end the command with a panic.
func TestInspect_ShortTaskIDs(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "short.db")
	st, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{ThreadID: "short"}
	cp := &engine.Checkpoint{
		ID:              "00000000-0000-0000-0000-000000000001",
		ChannelValues:   map[string]any{"n": 1.0},
		ChannelVersions: map[string]engine.Version{"n": 1},
		VersionsSeen:    map[string]map[string]engine.Version{},
	}
	out, err := st.Put(ctx, cfg, cp, engine.Metadata{Source: engine.SourceLoop, Step: 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	asked := []engine.Interruption{{Value: "ok?", ID: "i1"}}
	if err := st.PutWrites(ctx, out, "t7", []engine.Write{{Channel: engine.InterruptChannel, Value: asked}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutWrites(ctx, out, "t8", []engine.Write{{Channel: "n", Value: 2.0}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "--db", db, "history", "short").want(t, 0, "t7")
	superstep(t, "", "--db", db, "show", "short").want(t, 0, "t7", "t8")
}

// TestPull_SameFileSpelledTwice: pull and push refuse a copy between two
// spellings of one file as they refuse the same spelling; each open waited
// for the other's lock, and the refusal read "locked by another process".
func TestPull_SameFileSpelledTwice(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "l2.db")
	superstep(t, "", "run", "linear", "--db", db, "--thread", "s1").want(t, 0)
	other := dir + "/./l2.db" // not cleaned: another spelling of db
	superstep(t, "", "--db", db, "pull", "s1", "--from", other, "--overwrite").want(t, 2, "names the database the thread is already in")
	superstep(t, "", "--db", db, "push", "s1", "--to", other, "--overwrite").want(t, 2, "names the database the thread is already in")
}

// TestBench_RunsBounded: a --runs past the bound is a usage error; it
// panicked allocating a time for each run (or took gigabytes first).
func TestBench_RunsBounded(t *testing.T) {
	file := filepath.Join("..", "testdata", "perf", "chain_1000.json")
	superstep(t, "", "bench", file, "--runs", "99999999999999").want(t, 2, "--runs and --warmup must be at most")
	superstep(t, "", "bench", file, "--runs", "0").want(t, 2, "--runs must be at least 1")
}

// TestRun_InputTooDeepIsUsage: an input or an answer nested past the
// bound is the command's input refused (exit 2), named as the input, and
// nothing is saved; the input failed at its checkpoint's save, exit 1,
// naming the internal __start__ channel.
func TestRun_InputTooDeepIsUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "d.db")
	deep := strings.Repeat("[", 1500) + strings.Repeat("]", 1500)
	superstep(t, "", "run", testdata("answer.json"), "--db", db, "--thread", "d1", "--input", `{"total":`+deep+`}`).want(t, 2, "the run input nests deeper than 1000 levels")
	superstep(t, "", "run", testdata("answer.json"), "--db", db, "--thread", "d2").want(t, 0, "how many?")
	superstep(t, "", "run", testdata("answer.json"), "--db", db, "--thread", "d2", "--resume", deep).want(t, 2, "the answer to an interrupt nests deeper")
	superstep(t, "", "threads", "--db", db).want(t, 0, "d2")
	if out := superstep(t, "", "threads", "--db", db); strings.Contains(out.stdout, "d1") {
		t.Fatalf("the refused input's thread was saved:\n%s", out.stdout)
	}
}

// TestRun_InputWithoutStateKeys: a run of a file whose invoke input is
// null is refused naming --input, not with LangGraph's words about the
// internal __start__ channel. (It was refused as an input of {} writing
// no state key: a nil map passed as the example; the file has none.)
func TestRun_InputWithoutStateKeys(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "noin.json")
	src := `{"name":"b","state":{"x":null},"nodes":[{"name":"a","update":{"x":"1"}}],"edges":[["__start__","a"]],"ops":[{"op":"invoke","thread":"t","input":null}]}`
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	r := superstep(t, "", "run", file, "--db", filepath.Join(dir, "n.db"), "--thread", "t1")
	r.want(t, 2, "noin.json has no example input (no invoke op with an input): pass --input")
	if strings.Contains(r.stderr, "__start__") {
		t.Fatalf("the error names the internal channel:\n%s", r.stderr)
	}
}

// TestRun_UnsavableWriteNamesTheNode: a node's write that the store
// cannot keep (1/0 is Infinity, which JSON cannot hold) fails the run
// naming the node, not only the channel.
func TestRun_UnsavableWriteNamesTheNode(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "div0.json")
	src := `{"name":"b","state":{"x":null},"nodes":[{"name":"a","update":{"x":"1/0"}}],"edges":[["__start__","a"]],"ops":[{"op":"invoke","thread":"t","input":{"x":1}}]}`
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "run", file, "--db", filepath.Join(dir, "d.db"), "--thread", "t1").want(t, 1, `saving the writes of node "a"`, `write to "x"`)
}

// TestDB_EmptyIsRefused: an empty --db (an unset variable, --db "$DB")
// is refused; it quietly opened, and created, the default database.
func TestDB_EmptyIsRefused(t *testing.T) {
	superstep(t, "", "--db", "", "threads").want(t, 2, "--db is empty")
	superstep(t, "", "run", "linear", "--db", "").want(t, 2, "--db is empty")
}

// TestRun_RecursionLimitNamesTheFlag: the recursion limit's failure says
// --recursion-limit raises it, not the engine's Go option.
func TestRun_RecursionLimitNamesTheFlag(t *testing.T) {
	r := superstep(t, "", "run", testdata("loop_limit_40.json"), "--db", filepath.Join(t.TempDir(), "l.db"), "--thread", "l1", "--recursion-limit", "3")
	r.want(t, 1, "recursion limit of 3 reached", "--recursion-limit raises it")
	if strings.Contains(r.stdout+r.stderr, "WithRecursionLimit") {
		t.Fatalf("the message names the Go option:\n%s%s", r.stdout, r.stderr)
	}
}

// TestRun_FileRuntimeContext: run gives a scenario file's nodes the
// runtime context of its first invoke op, as trace does; it dropped it.
func TestRun_FileRuntimeContext(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ctx.json")
	src := `{"name":"c","state":{"x":null},"nodes":[{"name":"a","update":{"x":"context.k"}}],"edges":[["__start__","a"]],"ops":[{"op":"invoke","thread":"t","input":{"x":0},"context":{"k":42}}]}`
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "run", file, "--db", filepath.Join(dir, "c.db"), "--thread", "c1").want(t, 0, `"x": 42`)
}
