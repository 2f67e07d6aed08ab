package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/cli"
)

// BenchmarkThreadsCommand times superstep threads, in process, on the same
// threads in a bbolt file and on the PostgreSQL test server (skipped
// without SUPERSTEP_TEST_POSTGRES): 35 threads of testdata/threads_mix.json,
// a counting loop that runs a subgraph every 50 steps (a namespace each)
// and then ends, waits at an interrupt, waits at a subgraph's interrupt,
// or fails. Each thread has SUPERSTEP_BENCH_THREAD_STEPS supersteps (250
// unless set; 2500 makes the 90,000 checkpoints of the PostgreSQL report,
// which take a minute or two to build). The listing reads each thread's
// latest checkpoint for its status, with the recorded graph.
//
//	go test ./cli -run '^$' -bench BenchmarkThreadsCommand -benchtime 20x
func BenchmarkThreadsCommand(b *testing.B) {
	steps := 250
	if s := os.Getenv("SUPERSTEP_BENCH_THREAD_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("SUPERSTEP_BENCH_THREAD_STEPS=%q: want a positive number", s)
		}
		steps = n
	}
	file := threadsMixDB(b, steps)
	for _, store := range []string{"bbolt", "postgres"} {
		b.Run(store, func(b *testing.B) {
			db := file
			if store == "postgres" {
				db = postgresDB(b)
				for i := range threadsMixCount {
					runApp(b, "push", threadsMixName(i), "--db", file, "--to", db)
				}
				vacuumAnalyze(b, db)
			}
			want := runApp(b, "threads", "--db", file)
			if got := runApp(b, "threads", "--db", db); len(got) != len(want) {
				b.Fatalf("the two stores list different threads:\n%s\n%s", got, want)
			}
			for b.Loop() {
				app := &cli.App{Stdout: io.Discard, Stderr: io.Discard}
				if code := app.Run(context.Background(), []string{"threads", "--db", db}); code != 0 {
					b.Fatalf("threads: exit %d", code)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/threadsMixCount/1000, "ms/thread")
		})
	}
}

// threadsMixCount is how many threads threadsMixDB runs.
const threadsMixCount = 35

var threadsMixModes = []string{"done", "ask", "subask", "boom"}

func threadsMixName(i int) string {
	return fmt.Sprintf("t%02d-%s", i, threadsMixModes[i%len(threadsMixModes)])
}

// threadsMixDB returns a bbolt file holding threadsMixCount threads of
// testdata/threads_mix.json with steps supersteps each.
func threadsMixDB(b *testing.B, steps int) string {
	db := filepath.Join(b.TempDir(), "threads.db")
	for i := range threadsMixCount {
		input := fmt.Sprintf(`{"n":0,"k":0,"limit":%d,"mode":%q}`, steps, threadsMixModes[i%len(threadsMixModes)])
		args := []string{"run", "testdata/threads_mix.json", "--db", db, "--thread", threadsMixName(i), "--input", input,
			"--durability", "async", "--recursion-limit", strconv.Itoa(2 * steps)}
		app := &cli.App{Stdout: io.Discard, Stderr: io.Discard}
		app.Run(context.Background(), args) // exits 1 for the threads that fail
	}
	return db
}

// vacuumAnalyze vacuums and analyzes the tables of db's schema, as
// autovacuum does a while after a bulk load, so that every op is planned
// with the same statistics.
func vacuumAnalyze(b *testing.B, db string) {
	u, err := url.Parse(db)
	if err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	schema := q.Get("schema")
	q.Del("schema")
	u.RawQuery = q.Encode()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, table := range []string{"threads", "checkpoints", "blobs", "writes"} {
		if _, err := conn.Exec(ctx, "VACUUM ANALYZE "+pgx.Identifier{schema, table}.Sanitize()); err != nil {
			b.Fatal(err)
		}
	}
}

// runApp runs the command line in process and returns its output; it
// fails b on a nonzero exit.
func runApp(b *testing.B, args ...string) string {
	b.Helper()
	var out, errOut bytes.Buffer
	app := &cli.App{Stdout: &out, Stderr: &errOut}
	if code := app.Run(context.Background(), args); code != 0 {
		b.Fatalf("%v: exit %d\n%s", args, code, errOut.String())
	}
	return out.String()
}
