package postgres_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// conversation is enginetest.Conversation, compact under the race detector.
func conversation(t testing.TB, s engine.Saver, th string, n int) []*engine.Checkpoint {
	t.Helper()
	return enginetest.Conversation(t, s, th, n, raceEnabled)
}

// threadBytes is what a thread's rows take: the stored size of every row
// of it (pg_column_size of the whole row), without index or page overhead.
func threadBytes(t testing.TB, s *postgres.Store, thread string) int64 {
	t.Helper()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var total int64
	for _, table := range []string{"threads", "checkpoints", "blobs", "writes"} {
		var n *int64
		q := fmt.Sprintf("SELECT sum(pg_column_size(x.*)) FROM %s.%s x WHERE thread = $1", pgx.Identifier{s.Schema()}.Sanitize(), table)
		if err := conn.QueryRow(ctx, q, []byte(thread)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != nil {
			total += *n
		}
	}
	return total
}

// TestStore_GrowingMessages: a thread that appends one message per
// checkpoint reads back exactly, and its rows grow roughly linearly: a
// message is stored once, not once per checkpoint.
func TestStore_GrowingMessages(t *testing.T) {
	t.Parallel()
	s := open(t, schemaURL(t), postgres.Options{Durability: persist.DurabilityAsync})
	sizes := map[int]int64{}
	for _, n := range []int{100, 1000} {
		th := fmt.Sprintf("grow-%d", n)
		cps := conversation(t, s, th, n)
		for _, i := range []int{0, 1, 62, 63, 64, 65, n / 2, n - 2, n - 1} {
			tup, err := s.GetTuple(ctx, engine.Config{ThreadID: th, CheckpointID: cps[i].ID})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tup.Checkpoint.ChannelValues, engine.Normalize(cps[i].ChannelValues)) {
				t.Fatalf("checkpoint %d of %d reads back wrong", i+1, n)
			}
		}
		sizes[n] = threadBytes(t, s, th)
		t.Logf("%4d checkpoints: %7d bytes of rows", n, sizes[n])
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if sizes[1000] >= 4<<20 {
		t.Errorf("1000 checkpoints take %d bytes, want < 4 MiB", sizes[1000])
	}
	if sizes[1000] > 15*sizes[100] {
		t.Errorf("1000 checkpoints take %d bytes, more than 15× the %d of 100", sizes[1000], sizes[100])
	}
}

// BenchmarkInsertCommit is the floor for a durable write on the server:
// one single-row INSERT committed on its own.
func BenchmarkInsertCommit(b *testing.B) { benchInsert(b, serverURL) }

func benchInsert(b *testing.B, serverURL string) {
	conn, insert := insertTable(b, serverURL)
	m := startCPU(b, conn, "")
	for i := 0; b.Loop(); i++ {
		insert(i)
	}
	m.report(b)
}

// insertTable connects to the server and creates a table, both dropped
// when b ends, and returns the connection and a function that commits
// one single-row INSERT into the table.
func insertTable(b *testing.B, serverURL string) (*pgx.Conn, func(id int)) {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		b.Fatal(err)
	}
	table := pgx.Identifier{"bench_insert_" + fmt.Sprint(time.Now().UnixNano())}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE TABLE "+table+" (id bigint PRIMARY KEY, v bytea)"); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		conn.Exec(context.Background(), "DROP TABLE "+table)
		conn.Close(context.Background())
	})
	val := make([]byte, 100)
	return conn, func(id int) {
		if _, err := conn.Exec(ctx, "INSERT INTO "+table+" (id, v) VALUES ($1, $2)", id, val); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuSpan is a CPU measurement in progress.
type cpuSpan struct {
	m              *cpuMeter
	conn           *pgx.Conn
	client, server time.Duration
	syncs          int64
	wal            int64
	app            string                // the store's application_name, or ""
	backends       map[int]time.Duration // CPU so far of the server processes serving app
	gc             []metrics.Sample      // this process's garbage collections so far (gcMetrics)
}

// gcMetrics are the collector's cycles and its CPU time (the runtime's
// estimate: stop-the-world phases count wall time times GOMAXPROCS, idle
// mark workers their time), read at a span's start and end: a store's
// allocations cost the client their collections.
func gcMetrics() []metrics.Sample {
	m := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(m)
	return m
}

func startCPU(b *testing.B, conn *pgx.Conn, app string) *cpuSpan {
	m := newCPUMeter(conn)
	sp := &cpuSpan{m: m, conn: conn, syncs: walSyncs(conn), wal: walPosition(conn), app: app, backends: m.backends(conn, app), gc: gcMetrics()}
	sp.client, sp.server = m.sample()
	return sp
}

// walSyncs is the number of times the server has flushed its WAL to disk
// (pg_stat_wal, server-wide), or -1.
func walSyncs(conn *pgx.Conn) int64 {
	var n int64
	if err := conn.QueryRow(ctx, "SELECT wal_sync FROM pg_stat_wal").Scan(&n); err != nil {
		return -1
	}
	return n
}

// walPosition is the server's WAL insert position in bytes, or -1.
func walPosition(conn *pgx.Conn) int64 {
	var n int64
	if err := conn.QueryRow(ctx, "SELECT (pg_current_wal_insert_lsn() - '0/0')::int8").Scan(&n); err != nil {
		return -1
	}
	return n
}

// report adds the CPU per op of the client (this process) and the
// server, and the ops per second the machine's cores would allow if
// CPU were all an op needed: runtime.NumCPU() / (client + server).
func (sp *cpuSpan) report(b *testing.B) {
	c, s := sp.m.sample()
	if b.N == 0 {
		return
	}
	if gc := gcMetrics(); gc[0].Value.Kind() == metrics.KindUint64 && gc[1].Value.Kind() == metrics.KindFloat64 {
		b.ReportMetric(float64(gc[0].Value.Uint64()-sp.gc[0].Value.Uint64())*1000/float64(b.N), "gc-cycles/kop")
		b.ReportMetric((gc[1].Value.Float64()-sp.gc[1].Value.Float64())*1e6/float64(b.N), "client-gc-cpu-µs/op")
	}
	// Commits per flush: how many commits of concurrent threads share
	// one fsync (other sessions of the server count too).
	if n := walSyncs(sp.conn); n > sp.syncs && sp.syncs >= 0 {
		b.ReportMetric(float64(b.N)/float64(n-sp.syncs), "ops/wal-flush")
	}
	// WAL written per op: what the server stored, a figure the machine's
	// load does not change (other sessions of the server count too).
	if n := walPosition(sp.conn); n >= 0 && sp.wal >= 0 {
		b.ReportMetric(float64(n-sp.wal)/float64(b.N), "wal-B/op")
	}
	if c < 0 {
		return
	}
	perOp := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	client := perOp(c - sp.client)
	b.ReportMetric(client, "client-cpu-µs/op")
	if s < 0 || sp.server < 0 {
		return
	}
	server := perOp(s - sp.server)
	b.ReportMetric(server, "server-cpu-µs/op")
	// The server processes serving this benchmark's store alone: what to
	// compare when two benchmarks run at once against one server, as the
	// same load then weighs on both (the WAL writer and other background
	// processes are left out).
	if end := sp.m.backends(sp.conn, sp.app); len(end) > 0 {
		var own time.Duration
		for pid, t := range end {
			own += t - sp.backends[pid]
		}
		b.ReportMetric(perOp(own), "backend-cpu-µs/op")
	}
	if client+server > 0 {
		b.ReportMetric(float64(runtime.NumCPU())*1e6/(client+server), "cpu-ceiling-ops/s")
	}
}

// benchSteps runs supersteps of a chat thread as the engine saves them
// under sync durability: the task's writes, then the checkpoint (which
// commits both), on threads threads at once. ns/op is per superstep.
func benchSteps(b *testing.B, serverURL string, threads, commits int) {
	app := fmt.Sprintf("superstep-bench-%d-%d", os.Getpid(), time.Now().UnixNano())
	s := open(b, withParam(withParams(schemaURL(b), serverURL), "application_name", app), postgres.Options{MaxConns: int32(threads) + 1, ConcurrentCommits: commits})
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var next atomic.Int64
	b.ResetTimer()
	m := startCPU(b, conn, app)
	start := time.Now()
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := range threads {
		wg.Go(func() {
			c := &chatThread{s: s, name: fmt.Sprintf("w%d", w)}
			for next.Add(1) <= int64(b.N) {
				if err := c.step(); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	m.report(b)
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "steps/s")
	// Threads per group commit: a group's statement, commit and flush are
	// shared by its threads.
	if groups, threads := postgres.GroupsSent(s); groups > 0 {
		b.ReportMetric(float64(threads)/float64(groups), "threads/group")
	}
}

// chatThread saves the supersteps of a chat thread as the engine does
// under sync durability: the task's writes, then the checkpoint, which
// commits both.
type chatThread struct {
	s        *postgres.Store
	name, th string
	i        int
	// msgs is the list's storage, grown by doubling: each checkpoint
	// gets msgs[:n:n], which no later append can change, as the engine's
	// append reducer hands out its channel's list (engine
	// reducerChannel.appendAll: a superstep costs what it appends, not a
	// copy of the list).
	msgs   []any
	parent string
}

// step saves the thread's next superstep.
func (c *chatThread) step() error {
	c.i++
	i := c.i
	if c.th == "" || i%200 == 0 { // bounded threads: ns/op must not grow with b.N
		c.th, c.msgs, c.parent = fmt.Sprintf("%s-%d", c.name, i), nil, ""
	}
	v := engine.Version(i)
	msg := map[string]any{"role": "ai", "content": fmt.Sprintf("message %d", i)}
	c.msgs = append(c.msgs, msg)
	msgs := c.msgs[:len(c.msgs):len(c.msgs)]
	// The superstep's one task is its last to finish: the engine defers
	// its writes to the checkpoint's commit and waits for them after the
	// Put (engine.WriteDeferrer).
	wait := func() error { return nil }
	if c.parent != "" {
		var err error
		if wait, err = c.s.DeferWrites(ctx, engine.Config{ThreadID: c.th, CheckpointID: c.parent}, "task", []engine.Write{{Channel: "messages", Value: []any{msg}}}); err != nil {
			return err
		}
	}
	cp := &engine.Checkpoint{V: 4, ID: fmt.Sprintf("%032x", i), TS: time.Now(),
		ChannelValues:   map[string]any{"messages": msgs, "step": float64(i)},
		ChannelVersions: map[string]engine.Version{"messages": v, "step": v},
		VersionsSeen:    map[string]map[string]engine.Version{"agent": {"messages": v - 1}},
		// The engine records that the list only grew, as it does for an
		// append reducer's channel.
		Appends: map[string]engine.ListAppend{"messages": {From: v - 1, Len: len(msgs) - 1}},
	}
	if _, err := c.s.Put(ctx, engine.Config{ThreadID: c.th, CheckpointID: c.parent}, cp, engine.Metadata{Source: "loop", Step: i}, nil); err != nil {
		return err
	}
	if err := wait(); err != nil {
		return err
	}
	c.parent = cp.ID
	return nil
}

// BenchmarkSuperstepVsInsert is the goal's ratio measured in one loop:
// each op commits one single-row INSERT and saves one superstep under
// sync durability, one after the other, so both meet the same load on a
// shared machine (apart, minutes of other work can separate the two).
// It reports each one's mean time and superstep/insert, the ratio the
// goal bounds (≤ 2).
func BenchmarkSuperstepVsInsert(b *testing.B) {
	s := open(b, withParams(schemaURL(b), serverURL), postgres.Options{})
	_, insertRow := insertTable(b, serverURL)
	c := &chatThread{s: s, name: "t"}
	var insert, step time.Duration
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		insertRow(i)
		t1 := time.Now()
		if err := c.step(); err != nil {
			b.Fatal(err)
		}
		insert, step = insert+t1.Sub(t0), step+time.Since(t1)
	}
	b.ReportMetric(float64(insert.Microseconds())/float64(b.N), "insert-µs")
	b.ReportMetric(float64(step.Microseconds())/float64(b.N), "superstep-µs")
	b.ReportMetric(float64(step)/float64(insert), "superstep/insert")
}

// BenchmarkSuperstepSync is one superstep's saving per op, one thread at a
// time: compare with BenchmarkInsertCommit.
func BenchmarkSuperstepSync(b *testing.B) { benchSteps(b, serverURL, 1, 0) }

// BenchmarkSuperstepSyncConcurrent is the throughput of 1, 8 and 32
// threads saving supersteps at once in one process: their commits share
// the server's WAL flushes.
func BenchmarkSuperstepSyncConcurrent(b *testing.B) {
	for _, n := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("threads=%d", n), func(b *testing.B) { benchSteps(b, serverURL, n, 0) })
	}
}

// BenchmarkConcurrentCommits is BenchmarkSuperstepSyncConcurrent with
// more commits under way at once than the default
// (Options.ConcurrentCommits): smaller groups, more CPU per superstep,
// less waiting when the server's CPU is contended.
func BenchmarkConcurrentCommits(b *testing.B) {
	for _, n := range []int{8, 32} {
		for _, c := range []int{2, 8} {
			b.Run(fmt.Sprintf("threads=%d/commits=%d", n, c), func(b *testing.B) { benchSteps(b, serverURL, n, c) })
		}
	}
}

// BenchmarkSlowFsync is BenchmarkInsertCommit and
// BenchmarkSuperstepSyncConcurrent on a server whose WAL flush takes a
// millisecond longer, as on a disk with a slow fsync (networked storage):
// every session sets commit_delay, so a flush waits 1 ms, holding the WAL
// write lock, before it writes, and covers every commit that arrived
// meanwhile (commit_siblings = 0: always). Where this machine's disk
// flushes in well under a millisecond, throughput is bound by CPU, and
// this shows what concurrent threads gain from sharing flushes when the
// disk is what a commit waits for. commit_delay needs a superuser (the
// user of .ci/pg.sh's cluster is one).
func BenchmarkSlowFsync(b *testing.B) {
	slow := withParam(withParam(serverURL, "commit_delay", "1000"), "commit_siblings", "0")
	conn, err := pgx.Connect(ctx, slow)
	if err != nil {
		b.Skipf("cannot set commit_delay: %v", err)
	}
	conn.Close(ctx)
	b.Run("insert", func(b *testing.B) { benchInsert(b, slow) })
	for _, n := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("threads=%d", n), func(b *testing.B) { benchSteps(b, slow, n, 0) })
	}
}

// withParams adds the query parameters of from to u.
func withParams(u, from string) string {
	f, err := url.Parse(from)
	if err != nil {
		panic(err)
	}
	for k, vs := range f.Query() {
		u = withParam(u, k, vs[0])
	}
	return u
}

// BenchmarkReadConversation is the read side of a 1000-step conversation
// (enginetest.Conversation, as TestStore_GrowingMessages stores it): the
// latest checkpoint (get_state), one in the middle, the whole history
// (List), and Check, each from a store that has nothing cached.
func BenchmarkReadConversation(b *testing.B) {
	u := withParams(schemaURL(b), serverURL)
	w := open(b, u, postgres.Options{Durability: persist.DurabilityAsync})
	cps := conversation(b, w, "chat", 1000)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	s := open(b, u, postgres.Options{})
	get := func(id string) {
		tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "chat", CheckpointID: id})
		if err != nil || tup == nil || len(tup.PendingWrites) != 1 {
			b.Fatalf("GetTuple %q: %v, %v", id, tup, err)
		}
	}
	b.Run("latest", func(b *testing.B) {
		for b.Loop() {
			get("")
		}
	})
	b.Run("middle", func(b *testing.B) {
		for b.Loop() {
			get(cps[500].ID)
		}
	})
	b.Run("history", func(b *testing.B) {
		for b.Loop() {
			hist, err := s.List(ctx, engine.Config{ThreadID: "chat"}, engine.ListOptions{})
			if err != nil || len(hist) != len(cps) {
				b.Fatalf("List: %d, %v", len(hist), err)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if err := s.Check(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
