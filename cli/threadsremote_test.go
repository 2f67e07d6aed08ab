package cli_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/superstep/superstep/persist"
)

// TestThreads_FromAService: threads --from lists what a running service's
// persist.ExportHandler serves, newest first, with the statuses it tells
// without the graph (from the saved writes and the recorded topology),
// --limit keeps the newest and says how many were left
// out, and every refusal says what to do.
func TestThreads_FromAService(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	served, laptop := filepath.Join(dir, "service.db"), filepath.Join(dir, "laptop.db")
	for _, mode := range []string{"done", "ask", "subask", "boom"} {
		code := 0
		if mode == "boom" {
			code = 1
		}
		superstep(t, "", "run", "testdata/threads_mix.json", "--db", served, "--thread", mode, "--input", `{"n":0,"k":0,"limit":3,"mode":"`+mode+`"}`).want(t, code)
	}

	store, err := persist.Open(served, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv, base, auth := serveExports(t, store)
	threads := func(args ...string) result {
		return superstep(t, "", append([]string{"threads"}, args...)...)
	}

	r := threads(append([]string{"--from", base, "--json"}, auth...)...)
	r.want(t, 0)
	var rows []struct{ Thread, Status, Graph string }
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	mix := testdata("threads_mix.json")
	want := []struct{ Thread, Status, Graph string }{
		{"boom", "error", mix},
		{"subask", "interrupted", mix},
		{"ask", "interrupted", mix},
		// Done or pending: the service planned it from the thread's
		// recorded topology.
		{"done", "done", mix},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("threads --from the service:\n%+v\nwant\n%+v", rows, want)
	}
	threads(append([]string{"--from", base}, auth...)...).want(t, 0, "THREAD", "boom ", "error", "threads_mix")
	r = threads(append([]string{"--from", base, "--limit", "2"}, auth...)...)
	r.want(t, 0, "boom", "subask")
	if strings.Contains(r.stdout, "\nask ") || strings.Contains(r.stdout, "done") {
		t.Errorf("--limit 2 listed more than the newest two:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "listed the 2 written last of 4 threads (--limit)") {
		t.Errorf("--limit 2 did not say how many were left out: %q", r.stderr)
	}

	// A pulled thread lists from the laptop's file as --db would.
	superstep(t, "", append([]string{"pull", "ask", "--from", base, "--db", laptop}, auth...)...).want(t, 0)
	threads("--from", laptop).want(t, 0, "ask", "interrupted")

	threads("--from", base).want(t, 2, "answered 401 Unauthorized", `--header "Authorization: Bearer $TOKEN"`)
	threads(append([]string{"--from", srv.URL + "/wrong"}, auth...)...).want(t, 2, "GET "+srv.URL+"/wrong/threads/ answered 404 Not Found", "is --from where the service mounts persist.ExportHandler?")
	threads("--from", served).want(t, 2, "persist.ExportHandler")
	threads("--from", laptop, "--header", "A: b").want(t, 2, "--header goes with an http:// or https:// --from")
	threads("--limit", "-1", "--db", laptop).want(t, 2, "--limit -1: want the number of threads to list, or 0 for all")
}
