package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestRun_LostBufferedCheckpoints: under --durability exit the run writes
// one checkpoint and its pending writes when it ends (LangGraph's exit
// durability), and the database commits them when it closes. When that
// commit fails (here the file may not grow: a disk as good as full) and the
// run failed too, the user must hear both: that the node failed, and that
// what the run saved was not.
func TestRun_LostBufferedCheckpoints(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatal("sh is needed to limit the file size")
	}
	db := filepath.Join(t.TempDir(), "full.db")
	scenario := testdata("boom_after_20.json")
	superstep(t, "", "run", scenario, "--db", db, "--thread", "first").want(t, 1, `node "boom" failed`)
	// A disk as good as full: the file is cut to the pages its last commit
	// uses (bbolt leaves room past them), may not grow (ulimit -f counts
	// 512-byte blocks), and the second thread starts with more data than
	// the pages freed inside the file can hold, so its commit must grow it.
	size := highWaterMark(t, db)
	if err := os.Truncate(db, size); err != nil {
		t.Fatal(err)
	}
	input := `{"n":0,"items":["` + strings.Repeat("x", 64<<10) + `"]}`
	r := runProgram(t, "sh", nil, "", "-c", `ulimit -f "$1"; shift; exec "$@"`, "sh",
		strconv.FormatInt(size/512, 10), binary, "run", scenario, "--db", db, "--thread", "second", "--durability", "exit", "--input", input)
	r.want(t, 1, `node "boom" failed`, "saving the database failed", "1 checkpoint", "not saved")
}

// highWaterMark returns the bytes of db that its last commit uses.
func highWaterMark(t *testing.T, db string) int64 {
	t.Helper()
	b, err := bolt.Open(db, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var size int64
	b.View(func(tx *bolt.Tx) error { size = tx.Size(); return nil })
	return size
}

// renameThread gives thread from the name to, copying its checkpoints,
// writes and fingerprint through the store's Saver methods, which take any
// id: the commands refuse such names now, but databases written before, or
// by a program, can hold them.
func renameThread(t *testing.T, db, from, to string) {
	t.Helper()
	ctx := context.Background()
	st, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(ctx, engine.Config{ThreadID: from}, engine.ListOptions{AllNamespaces: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := len(list) - 1; i >= 0; i-- { // oldest first: parents before children
		tup := list[i]
		cfg := engine.Config{ThreadID: to, CheckpointNS: tup.Config.CheckpointNS, CheckpointID: tup.ParentID}
		if _, err := st.Put(ctx, cfg, tup.Checkpoint, tup.Metadata, nil); err != nil {
			t.Fatal(err)
		}
		cfg.CheckpointID = tup.Checkpoint.ID
		for j := 0; j < len(tup.PendingWrites); {
			task := tup.PendingWrites[j].TaskID
			var writes []engine.Write
			for ; j < len(tup.PendingWrites) && tup.PendingWrites[j].TaskID == task; j++ {
				writes = append(writes, engine.Write{Channel: tup.PendingWrites[j].Channel, Value: tup.PendingWrites[j].Value})
			}
			if err := st.PutWrites(ctx, cfg, task, writes); err != nil {
				t.Fatal(err)
			}
		}
	}
	fp, err := st.Fingerprint(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetFingerprint(ctx, to, fp); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteThread(ctx, from); err != nil {
		t.Fatal(err)
	}
}

// TestEscaping_EveryCommand: names that are terminal escape sequences (a
// graph, node and state keys from a scenario file; thread ids from a
// database) reach no terminal raw, from any command, in text or JSON.
func TestEscaping_EveryCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "hostile.db")
	scenario := testdata("hostile_names.json")
	const bidi = "bidi\u202eevil"
	const osc = "srv\x1b]52;c;aGk=\a\nFORGED line"
	superstep(t, "", "run", scenario, "--db", db, "--thread", "plain").want(t, 0, "interrupted")
	superstep(t, "", "run", scenario, "--db", db, "--thread", bidi).want(t, 0, "interrupted")
	renameThread(t, db, "plain", osc)
	export := filepath.Join(dir, "export.json")
	r := superstep(t, "", "export", osc, "--db", db)
	if err := os.WriteFile(export, []byte(r.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	clean := func(what string, r result) {
		t.Helper()
		all := r.stdout + r.stderr
		for _, bad := range []string{"\x1b", "\a", "\x00", "\u009b", "\u202e"} {
			if strings.Contains(all, bad) {
				t.Errorf("%s prints %q raw:\n%s", what, bad, all)
			}
		}
		for _, line := range strings.Split(all, "\n") {
			if strings.HasPrefix(line, "FORGED") {
				t.Errorf("%s prints a line a name forged:\n%s", what, all)
			}
		}
	}
	for _, thread := range []string{osc, bidi} {
		for _, args := range [][]string{
			{"threads"},
			{"history", thread},
			{"history", thread, "--graph", scenario},
			{"show", thread},
			{"show", thread, "--graph", scenario},
			{"diff", thread},
			{"export", thread},
			{"replay", thread, "--graph", scenario},
			{"run", scenario, "--thread", thread, "--resume", `"yes"`},
			{"import", export},
			{"import", export, "--overwrite"},
			{"check"},
			{"graph", scenario},
			{"trace", scenario},
			{"tui", scenario, "--thread", thread},
		} {
			for _, asJSON := range []bool{false, true} {
				full := append(append([]string{}, args...), "--db", db)
				if asJSON {
					full = append(full, "--json")
				}
				clean(strings.Join(full, " "), superstep(t, "", full...))
			}
		}
	}
}

// TestImport_FullDiskLeavesNoFile: an import into a new database on a disk
// that is full (here: a file that may not grow past 0 bytes, or past 20
// blocks, less than a database's first pages) fails with exit 1 and
// leaves no empty or half-written database that the next command would
// call damaged.
func TestImport_FullDiskLeavesNoFile(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatal("sh is needed to limit the file size")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	export := filepath.Join(dir, "t.json")
	putSteps(t, src, "t", 3)
	out := superstep(t, "", "export", "t", "--db", src)
	out.want(t, 0)
	if err := os.WriteFile(export, []byte(out.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, blocks := range []string{"0", "20"} {
		db := filepath.Join(dir, "new"+blocks+".db")
		r := runProgram(t, "sh", nil, "", "-c", `ulimit -f "$1"; shift; exec "$@"`, "sh",
			blocks, binary, "import", export, "--db", db)
		r.want(t, 1, "too large")
		if fi, err := os.Stat(db); err == nil {
			t.Errorf("ulimit -f %s: import failed but left %s (%d bytes)", blocks, db, fi.Size())
		}
		// With room, the same import works on the same path.
		superstep(t, "", "import", export, "--db", db).want(t, 0, "imported thread t")
	}
}
