package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestThreads_StatusWithoutTheGraph: a database another program wrote,
// with a graph this command does not have, lists its threads as done,
// pending (a breakpoint, a run the recursion limit stopped), interrupted
// or error, from the topology each thread recorded, both read from the
// file and served by the program's persist.ExportHandler; a thread whose
// record is a bare fingerprint stays unknown, and one that failed or asks
// says so from its saved writes as before.
func TestThreads_StatusWithoutTheGraph(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "service.db")
	store, err := persist.Open(db, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	want := writeBillingThreads(t, store)
	_, base, auth := serveExports(t, store)
	wantStatuses(t, "the service", want, superstep(t, "", append([]string{"threads", "--from", base, "--json"}, auth...)...))
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	wantStatuses(t, "the database", want, superstep(t, "", "threads", "--db", db, "--json"))
}

// TestThreads_StatusWithoutTheGraph_Postgres: the same threads pushed to
// PostgreSQL list the same statuses, planned by that store's listing.
func TestThreads_StatusWithoutTheGraph_Postgres(t *testing.T) {
	pg := postgresDB(t)
	db := filepath.Join(t.TempDir(), "service.db")
	store, err := persist.Open(db, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	want := writeBillingThreads(t, store)
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	for thread := range want {
		superstep(t, "", "push", thread, "--db", db, "--to", pg).want(t, 0)
	}
	wantStatuses(t, "PostgreSQL", want, superstep(t, "", "threads", "--db", pg, "--json"))
}

// writeBillingThreads writes, as a program of its own would, threads of a
// graph this command does not have, and returns the status of each.
func writeBillingThreads(t *testing.T, store *persist.Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	g, err := engine.NewStateGraph(engine.LastValueKey("mode"), engine.AppendKey("log")).Named("billing-agent").
		AddNode("charge", func(ctx context.Context, in any) (any, error) {
			switch in.(map[string]any)["mode"] {
			case "ask":
				if _, err := engine.Interrupt(ctx, "refund?"); err != nil {
					return nil, err
				}
			case "fail":
				return nil, errors.New("card declined")
			}
			return engine.Pairs("log", []any{"charged"}), nil
		}).
		AddNode("notify", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"notified"}), nil }).
		AddNode("audit", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"audited"}), nil }).
		AddEdge(engine.Start, "charge").AddEdge("charge", "notify").AddEdge("notify", "audit").
		Compile(engine.WithSaver(store), engine.WithInterruptBefore("audit"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(thread, mode string, opts ...engine.RunOption) {
		t.Helper()
		opts = append(opts, engine.OnThread(thread))
		_, err := g.Invoke(ctx, map[string]any{"mode": mode}, opts...)
		if err == nil && mode == "done" {
			_, err = g.Invoke(ctx, nil, opts...) // past the breakpoint
		}
		var limit *engine.GraphRecursionError
		if err != nil && mode != "fail" && !errors.As(err, &limit) {
			t.Fatalf("%s: %v", thread, err)
		}
	}
	run("done", "done")
	run("breakpoint", "go")
	run("limited", "go", engine.WithRecursionLimit(1))
	run("asks", "ask")
	run("fails", "fail")
	if err := store.SetFingerprint(ctx, "bare", "9f2c61"); err != nil {
		t.Fatal(err)
	}
	run("bare", "done")
	return map[string]string{"done": "done", "breakpoint": "pending", "limited": "pending", "asks": "interrupted", "fails": "error", "bare": "unknown"}
}

// wantStatuses checks that r, a threads --json listing, lists the threads
// of want with their statuses.
func wantStatuses(t *testing.T, from string, want map[string]string, r result) {
	t.Helper()
	r.want(t, 0)
	var rows []struct{ Thread, Status string }
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%s: %v\n%s", from, err, r.stdout)
	}
	got := map[string]string{}
	for _, row := range rows {
		got[row.Thread] = row.Status
	}
	for thread, status := range want {
		if got[thread] != status {
			t.Errorf("%s: thread %s is %q, want %q", from, thread, got[thread], status)
		}
	}
	if len(rows) != len(want) {
		t.Errorf("%s: %d threads, want %d", from, len(rows), len(want))
	}
}
