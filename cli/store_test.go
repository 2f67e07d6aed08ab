package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/persist"
)

// inUse is what every command prints when another process holds the
// database.
const inUse = "is in use by another superstep process"

// TestDatabase_Locked holds the database from this process, as a running
// superstep would: every command, reading or writing, gives up after
// --timeout with exit 2 and one line naming the file, instead of hanging.
func TestDatabase_Locked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "held.db")
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t1").want(t, 0, "interrupted")
	export := filepath.Join(dir, "t1.json")
	r := superstep(t, "", "export", "t1", "--db", db)
	r.want(t, 0)
	if err := os.WriteFile(export, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}

	st, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, args := range [][]string{
		{"threads"}, {"history", "t1"}, {"show", "t1"}, {"export", "t1"}, {"check"},
		{"run", testdata("approve.json"), "--thread", "t1", "--resume", `"yes"`},
		{"import", "--overwrite", export},
		{"replay", "t1"},
	} {
		start := time.Now()
		r := superstep(t, "", append(args, "--db", db, "--timeout", "100ms")...)
		r.want(t, 2, inUse, db, "waited 100ms", "--timeout", "pull its threads from the persist.ExportHandler it mounts")
		if n := countLines(r.stderr); n != 1 {
			t.Fatalf("%s: stderr has %d lines, want one:\n%s", args[0], n, r.stderr)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("%s took %v to give up", args[0], d)
		}
	}
	// The default timeout is one second. bbolt's flock loop retries every
	// 50 ms and gives up once more than timeout-50ms has passed (bbolt
	// bolt_unix.go flock), so that, not the full second, is the guarantee.
	start := time.Now()
	superstep(t, "", "threads", "--db", db).want(t, 2, inUse, "waited 1s")
	if d := time.Since(start); d < time.Second-50*time.Millisecond {
		t.Fatalf("gave up after %v, before the default --timeout of 1s less bbolt's 50ms retry step", d)
	}
}

// TestDatabase_SharedByReaders: commands that only read open the database
// read-only, so they run beside another reader; a writer is refused.
func TestDatabase_SharedByReaders(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shared.db")
	superstep(t, "", "run", "linear", "--db", db, "--thread", "l1").want(t, 0, "done")
	st, err := persist.Open(db, persist.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	superstep(t, "", "threads", "--db", db).want(t, 0, "l1")
	superstep(t, "", "history", "l1", "--db", db).want(t, 0, "step -1 input")
	superstep(t, "", "check", "--db", db).want(t, 0, "ok")
	// A reader does not record itself in the lock file: the writer cannot
	// tell which program holds the database, and does not guess.
	r := superstep(t, "", "run", "linear", "--db", db, "--timeout", "100ms")
	r.want(t, 2, "is locked by another process")
	if strings.Contains(r.stderr, inUse) {
		t.Errorf("a writer blocked by an unknown reader says %q:\n%s", inUse, r.stderr)
	}
}

// TestRun_KilledMidSuperstep starts a run whose superstep has a fast and a
// slow node. While the slow node works, another command finds the database
// in use; then the run is killed. The file must check clean and the thread
// resume from its last checkpoint, reusing the fast node's saved writes.
func TestRun_KilledMidSuperstep(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "killed.db")
	cmd := exec.Command(binary, "run", testdata("slow.json"), "--db", db, "--thread", "s1", "--json")
	cmd.Env = testEnv(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() // a no-op once it is killed below
	lines := bufio.NewScanner(out)
	for {
		if !lines.Scan() {
			cmd.Wait()
			t.Fatalf("run ended before the fast node finished:\n%s", stderr.String())
		}
		if strings.Contains(lines.Text(), `"name":"fast","status":"ran"`) {
			break
		}
	}

	start := time.Now()
	superstep(t, "", "threads", "--db", db, "--timeout", "200ms").want(t, 2, inUse, db)
	if d := time.Since(start); d > 1500*time.Millisecond {
		// The slow node sleeps 2s: a slower answer would race its end.
		t.Logf("threads took %v to find the database in use", d)
	}

	// The fast node's writes were on disk before its result was
	// reported (persist.Store.PutWrites under sync durability).
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	superstep(t, "", "check", "--db", db).want(t, 0, "ok")
	r := superstep(t, "", "run", testdata("slow.json"), "--db", db, "--thread", "s1", "--json")
	r.want(t, 0, `"name":"fast","status":"reused"`, `"name":"slow","status":"ran"`, `"event":"done"`)
	events := jsonLines(t, r.stdout)
	done := fmt.Sprint(events[len(events)-1]["values"])
	if done != "map[done:[fast slow]]" {
		t.Fatalf("resumed run ended with %s, want done [fast slow]", done)
	}
}

// TestRun_KilledAsTaskFinishes kills a run the moment it reports the
// fast node's result, while its sibling still works: under sync
// durability a reported result is on disk, so the resumed run reuses it
// and does not run the node again (a repeated model call). Three kills, as
// the window this closes was a few milliseconds wide.
func TestRun_KilledAsTaskFinishes(t *testing.T) {
	t.Parallel()
	for i := range 3 {
		db := filepath.Join(t.TempDir(), fmt.Sprintf("killed-%d.db", i))
		cmd, _, _ := startUntil(t, binary, nil, `"name":"fast","status":"ran"`, "run", testdata("slow.json"), "--db", db, "--thread", "s1", "--json")
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		r := superstep(t, "", "run", testdata("slow.json"), "--db", db, "--thread", "s1", "--json")
		r.want(t, 0, `"name":"fast","status":"reused"`, `"name":"slow","status":"ran"`, `"event":"done"`)
	}
}

// TestCheck_DamagedPage damages the header of a page deep in a copy of a
// real database: check names the damage (exit 1), and commands that read
// the page report it instead of crashing.
func TestCheck_DamagedPage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	superstep(t, "", "run", "research", "--db", good, "--thread", "r1").want(t, 0, "interrupted")
	superstep(t, "", "run", "research", "--db", good, "--thread", "r1", "--resume", `{"action":"approve"}`).want(t, 0, "done")

	page, size := deepestPage(t, good)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// A page header is id (8 bytes), flags (2), count (2), overflow (4);
	// flags no page has makes bbolt refuse the page.
	data[page*size+8], data[page*size+9] = 0x55, 0x00
	bad := filepath.Join(dir, "bad.db")
	if err := os.WriteFile(bad, data, 0o600); err != nil {
		t.Fatal(err)
	}

	superstep(t, "", "check", "--db", good).want(t, 0, "ok")
	r := superstep(t, "", "check", "--db", bad)
	r.want(t, 1, "bad.db", "database is damaged", fmt.Sprintf("page %d", page))
	if n := countLines(r.stderr); n != 1 {
		t.Fatalf("stderr has %d lines, want one:\n%s", n, r.stderr)
	}
	superstep(t, "", "history", "r1", "--db", bad).want(t, 1, "database is damaged")
}

// deepestPage returns a page of the most deeply nested bucket of the bbolt
// file at path that has a page of its own (small buckets live inline in
// their parent's), and the file's page size. Damage there leaves the
// top-level buckets, which opening the file reads, intact.
func deepestPage(t *testing.T, path string) (page, size int) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	depth := 0
	var walk func(b *bolt.Bucket, d int)
	walk = func(b *bolt.Bucket, d int) {
		if root := int(b.Root()); root != 0 && d > depth {
			page, depth = root, d
		}
		b.ForEachBucket(func(k []byte) error {
			walk(b.Bucket(k), d+1)
			return nil
		})
	}
	db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			walk(b, 1)
			return nil
		})
	})
	if depth < 2 {
		t.Fatalf("%s has no nested bucket with a page of its own", path)
	}
	return page, db.Info().PageSize
}

// TestDatabase_NotSuperstep: a bbolt file of another program and a file
// that is not bbolt are refused by every command, check included (exit 2),
// and left as they were.
func TestDatabase_NotSuperstep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "other.db")
	db, err := bolt.Open(foreign, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("widgets"))
		if err != nil {
			return err
		}
		return b.Put([]byte("w1"), []byte("blue"))
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(foreign)
	if err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, bytes.Repeat([]byte("not a database "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}

	// A real export, so that import gets as far as the database.
	good := filepath.Join(dir, "good.db")
	superstep(t, "", "run", "linear", "--db", good, "--thread", "t1").want(t, 0)
	export := filepath.Join(dir, "t1.json")
	if err := os.WriteFile(export, []byte(superstep(t, "", "export", "t1", "--db", good).stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check"}, {"threads"}, {"run", "linear"}, {"import", export}} {
		superstep(t, "", append(args, "--db", foreign)...).want(t, 2, "not a superstep database", "a bbolt file of another program", "other.db")
		superstep(t, "", append(args, "--db", garbage)...).want(t, 2, "not a superstep database", "garbage.db")
	}
	after, err := os.ReadFile(foreign)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("a refused command changed the other program's file")
	}
}

// TestExportImport_BetweenDatabases moves a thread from one bbolt database
// to another through stdin, replays it there, and exports it unchanged.
func TestExportImport_BetweenDatabases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	superstep(t, "", "run", "research", "--db", a, "--thread", "r1").want(t, 0, "interrupted")
	superstep(t, "", "run", "research", "--db", a, "--thread", "r1", "--resume", `{"action":"approve"}`).want(t, 0, "done")
	exported := superstep(t, "", "export", "r1", "--db", a)
	exported.want(t, 0, `"superstep-thread"`)

	superstep(t, exported.stdout, "import", "-", "--db", b, "--json").want(t, 0, `"thread": "r1"`)
	superstep(t, exported.stdout, "import", "-", "--db", b).want(t, 2, "already exists", "--overwrite")
	superstep(t, exported.stdout, "import", "-", "--db", b, "--overwrite").want(t, 0, "imported thread r1")
	superstep(t, "", "check", "--db", b).want(t, 0, "ok")
	again := superstep(t, "", "export", "r1", "--db", b)
	again.want(t, 0)
	if again.stdout != exported.stdout {
		t.Fatal("the thread exported from the second database differs from the one imported")
	}
	superstep(t, "", "replay", "r1", "--db", b).want(t, 0, "replay matches")

	r := superstep(t, "", "threads", "--db", b, "--json")
	r.want(t, 0)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("threads --json: %v\n%s", err, r.stdout)
	}
	if len(rows) != 1 || rows[0]["thread"] != "r1" || rows[0]["graph"] != "research" || rows[0]["interrupted"] != false {
		t.Fatalf("threads --json = %v, want r1 on research, not interrupted", rows)
	}
}

// TestBench_Bbolt times runs on a temporary bbolt file in each durability
// mode and leaves no file behind.
func TestBench_Bbolt(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	for _, d := range []string{"sync", "async", "exit"} {
		r := superstepEnv(t, []string{"TMPDIR=" + tmp}, "", "bench", testdata("approve.json"), "--saver", "bbolt", "--durability", d, "--runs", "2", "--json")
		r.want(t, 0, `"ok": true`, `"saver": "bbolt `+d+`"`)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Fatalf("bench left %s in the temporary directory", left[0].Name())
	}
}

// TestDatabase_DefaultPath: without --db the database is $SUPERSTEP_DB, else
// in the user's data directory.
func TestDatabase_DefaultPath(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	superstepEnv(t, []string{"HOME=" + home}, "", "run", "linear", "--thread", "l1").want(t, 0, "done")
	if _, err := os.Stat(filepath.Join(home, ".local", "share", "superstep", "superstep.db")); err != nil {
		t.Fatalf("no database in the data directory: %v", err)
	}
	db := filepath.Join(t.TempDir(), "env.db")
	superstepEnv(t, []string{"SUPERSTEP_DB=" + db}, "", "run", "linear", "--thread", "l2").want(t, 0, "done")
	superstep(t, "", "threads", "--db", db).want(t, 0, "l2")
}
