package cli_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOnCall_Service walks the bad-case workflow as whoever is on call
// for a service does: testdata/opsagent, a tool-calling agent serving
// many users on one bbolt file with persist.ExportHandler behind a bearer
// token, runs as its own process; 48 users go through it at once, some of
// whose runs fail in a tool, panic or wait for a human. From beside it,
// with the superstep binary, its URL and token: the list tells which
// failed and why (a panic names its function), a pulled thread shows
// where it panicked, the fixed program replays it differently, an
// interrupted one is answered; then what goes wrong in real life: a
// thread pulled twice, a URL with the list's path or a query, the
// service's own file as --db, an id with a slash and a space, the service
// stopped.
func TestOnCall_Service(t *testing.T) {
	t.Parallel()
	ops := buildProgram(t, "opsagent")
	dir := t.TempDir()
	svcDB, laptop := filepath.Join(dir, "svc.db"), filepath.Join(dir, "bug.db")
	svc, lines, _ := startUntil(t, ops, []string{"OPSAGENT_TOKEN=s3cret"}, "listening on http://", "serve", "--db", svcDB, "--addr", "127.0.0.1:0")
	addr := strings.TrimPrefix(lines.Text(), "listening on ")
	base := addr + "/debug/checkpoints"
	auth := []string{"--header", "Authorization: Bearer s3cret"}

	agent(t, ops, nil, "drive", addr, "48").want(t, 0, "done:24", "failed:18", "interrupted:6")
	resp, err := http.Post(addr+"/agent/runs", "application/json", strings.NewReader(`{"thread":"team/7 chat","question":"refund C-1 5"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	// Which failed, and why: without pulling a thread.
	r := superstep(t, "", append([]string{"threads", "--from", base, "--json"}, auth...)...)
	r.want(t, 0)
	var rows []struct{ Thread, Status, Failure string }
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	byID, statuses := map[string]int{}, map[string]int{}
	for i, row := range rows {
		byID[row.Thread] = i
		statuses[row.Status]++
	}
	if len(rows) != 49 || statuses["error"] != 19 || statuses["interrupted"] != 6 {
		t.Fatalf("the service lists %d threads %v, want 49: 19 failed, 6 waiting\n%s", len(rows), statuses, r.stdout)
	}
	for thread, says := range map[string][]string{
		"u-0002":      {`lookup: order "missing" not found`},
		"u-0003":      {"panicked at step 2: runtime error: index out of range [1] with length 1 (main.refund, main.go:"},
		"u-0004":      {"assignment to entry in nil map (main.discount, main.go:"},
		"team/7 chat": {"(main.refund, main.go:"},
	} {
		i, ok := byID[thread]
		for _, s := range says {
			if !ok || !strings.Contains(rows[i].Failure, s) || rows[i].Status != "error" {
				t.Errorf("thread %q listed as %+v, want its failure to say %q", thread, rows[min(i, len(rows)-1)], s)
			}
		}
	}
	superstep(t, "", append([]string{"threads", "--from", base}, auth...)...).want(t, 0, "error: node \"tools\" panicked at step 2: assignment to entry in nil map (main.discount")

	// Pull the panic, see where it happened, replay it with the fix.
	pull := func(args ...string) result {
		return superstep(t, "", append(append([]string{"pull"}, args...), auth...)...)
	}
	pull("u-0003", "--from", base, "--db", laptop).want(t, 0, "pulled thread u-0003 from "+base+" into "+laptop)
	superstep(t, "", "show", "u-0003", "--db", laptop).want(t, 0, "status error", "panicked at:", "main.refund\n")
	agent(t, ops, nil, "replay", "u-0003", "--db", laptop).want(t, 0, "it fails as the recording did")
	agent(t, ops, []string{"OPSAGENT_FIX=1"}, "replay", "u-0003", "--db", laptop).want(t, 1, "DIVERGED at step 2, node tools: recorded a failure, replay success")
	// The one that waits: answered on the laptop.
	pull("u-0005", "--from", base, "--db", laptop).want(t, 0)
	agent(t, ops, nil, "run", "support", "--db", laptop, "--thread", "u-0005", "--resume", "yes").want(t, 0, "a human said yes")

	// Pulled twice: the second is refused with how to keep both.
	pull("u-0003", "--from", base, "--db", laptop).want(t, 2, `thread "u-0003" is already in`, "--overwrite", "--as NEW")
	pull("u-0003", "--from", base, "--db", laptop, "--overwrite").want(t, 2, "checkpoints the import lacks", "pull it beside yours with --as NEW")
	pull("u-0003", "--from", base, "--db", laptop, "--as", "u-0003-now").want(t, 0, "into "+laptop+" as u-0003-now")
	superstep(t, "", "show", "u-0003-now", "--db", laptop).want(t, 0, "main.refund\n")

	// The URLs people paste: the list's own, one with a query.
	pull("u-0003", "--from", base+"/threads/", "--db", laptop).want(t, 2, "answered 404 Not Found: neither a thread's export nor the list of threads", "without /threads/")
	superstep(t, "", append([]string{"threads", "--from", base + "?via=oncall", "--limit", "2"}, auth...)...).want(t, 0, "THREAD")
	// The service's own file is not where a pull goes.
	pull("u-0002", "--from", base, "--db", svcDB).want(t, 2, "in use by another superstep process", "pull into a database of your own")

	// An id with a slash and a space.
	pull("team/7 chat", "--from", base, "--db", laptop).want(t, 0)
	superstep(t, "", "show", "team/7 chat", "--db", laptop).want(t, 0, "main.refund\n")

	// The service stops: it closes its file, and says so to nobody.
	if err := svc.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
	}
	if err := svc.Wait(); err != nil {
		t.Fatalf("the service ended with %v: %s", err, svc.Stderr)
	}
	fresh := filepath.Join(dir, "fresh.db")
	pull("u-0002", "--from", base, "--db", fresh).want(t, 2, "cannot reach "+base)
	wantNoFiles(t, "a pull from a stopped service", fresh)
	agent(t, ops, nil, "check", "--db", svcDB).want(t, 0)
}
