package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/persist"
)

// TestPull_FromAService: a service that runs on a bbolt file holds it, so
// pull reads its threads from the persist.ExportHandler it mounts: the
// thread arrives whole (its export is the service's, byte for byte) and
// goes on where it stopped. What goes wrong says what and where, in one
// line: credentials, a wrong path, a thread the service lacks, a service
// that is not there, and the flags that do not go together.
func TestPull_FromAService(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	served, laptop := filepath.Join(dir, "service.db"), filepath.Join(dir, "laptop.db")
	graph := testdata("approve.json")
	superstep(t, "", "run", graph, "--db", served, "--thread", "t1").want(t, 0, "interrupted")

	// The service: the file open for as long as it runs, the handler
	// behind its own authentication.
	store, err := persist.Open(served, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv, base, auth := serveExports(t, store)
	mux := srv.Config.Handler

	pull := func(args ...string) result {
		return superstep(t, "", append([]string{"pull"}, args...)...)
	}
	pull(append([]string{"t1", "--from", base, "--db", laptop}, auth...)...).want(t, 0, "pulled thread t1 from "+base+" into "+laptop)
	var want bytes.Buffer
	if err := store.Export(context.Background(), "t1", &want, ""); err != nil {
		t.Fatal(err)
	}
	if got := superstep(t, "", "export", "t1", "--db", laptop); got.code != 0 || got.stdout != want.String() {
		t.Fatalf("the pulled thread exports as\n%s\nwant the service's\n%s\n%s", got.stdout, want.String(), got.stderr)
	}
	superstep(t, "", "run", graph, "--db", laptop, "--thread", "t1", "--resume", "yes").want(t, 0, "done")

	pull(append([]string{"t1", "--from", base, "--db", laptop}, auth...)...).want(t, 2, `thread "t1" is already in`, "--overwrite")
	pull(append([]string{"nope", "--from", base, "--db", laptop}, auth...)...).want(t, 2, `thread "nope" is not in `+base)
	pull("t1", "--from", base, "--db", laptop, "--overwrite").
		want(t, 2, "answered 401 Unauthorized, not a superstep export: who are you?", `--header "Authorization: Bearer $TOKEN"`)
	pull(append([]string{"t1", "--from", srv.URL + "/wrong", "--db", laptop}, auth...)...).
		want(t, 2, "GET "+srv.URL+"/wrong/threads/t1 answered 404 Not Found, not a superstep export", "is --from where the service mounts persist.ExportHandler?")
	pull("t1", "--from", "http://me:hunter2@"+srv.Listener.Addr().String()+"/wrong", "--db", laptop).want(t, 2, "http://me:xxxxx@")
	pull("t1", "--from", base, "--db", laptop, "--header", "Authorization Bearer s3cret").want(t, 2, `--header "Authorization Bearer s3cret": want "Name: value"`)
	pull("t1", "--from", served, "--db", laptop, "--header", "A: b").want(t, 2, "--header goes with an http:// or https:// --from")
	superstep(t, "", "push", "t1", "--db", laptop, "--to", base).want(t, 2, "serves pull only")

	// A service whose certificate this machine does not trust: said, with
	// how to trust it.
	tlsSrv := httptest.NewTLSServer(mux)
	defer tlsSrv.Close()
	pull("t1", "--from", tlsSrv.URL+"/debug/checkpoints", "--db", laptop).
		want(t, 2, "cannot reach "+tlsSrv.URL+"/debug/checkpoints", "certificate", "SSL_CERT_FILE=")

	// Nothing listens: said at once, exit 2 as for a server that is down.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + l.Addr().String() + "/debug/checkpoints"
	l.Close()
	fresh := filepath.Join(dir, "fresh.db")
	pull("t1", "--from", gone, "--db", fresh).want(t, 2, "cannot reach "+gone, "refused")
	wantNoFiles(t, "a pull that fetched nothing", fresh)
}

// serveExports serves store's threads as a service does: ExportHandler
// mounted at /debug/checkpoints behind the service's own login (a bearer
// token). It returns the server (closed with the test), the URL to give
// --from and the --header flags that pass the login.
func serveExports(t *testing.T, store persist.Exporter) (srv *httptest.Server, base string, auth []string) {
	t.Helper()
	exports := http.StripPrefix("/debug/checkpoints", persist.ExportHandler(store))
	mux := http.NewServeMux()
	mux.Handle("/debug/checkpoints/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		exports.ServeHTTP(w, r)
	}))
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, srv.URL + "/debug/checkpoints", []string{"--header", "Authorization: Bearer s3cret"}
}

// TestPull_ServiceCutsOff: a service that stops or restarts in the middle
// of its answer (or before it) is said to have, with how much came, and
// nothing is written.
func TestPull_ServiceCutsOff(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/mid/threads/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(persist.ExportStatusHeader, persist.ExportOK)
		w.Header().Set("Content-Length", "4096")
		fmt.Fprint(w, strings.Repeat(" ", 100))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection is cut
	})
	mux.HandleFunc("/before/threads/", func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "bug.db")
	superstep(t, "", "pull", "t1", "--from", srv.URL+"/mid", "--db", db).
		want(t, 2, srv.URL+`/mid sent 100 bytes of thread "t1"'s export of 4.0 KiB, then closed the connection (unexpected EOF): did it stop or restart? Nothing was written; try again`)
	superstep(t, "", "threads", "--from", srv.URL+"/mid").want(t, 2, srv.URL+"/mid sent 100 bytes of the list of threads of 4.0 KiB, then closed the connection")
	superstep(t, "", "pull", "t1", "--from", srv.URL+"/before", "--db", db).
		want(t, 2, srv.URL+"/before closed the connection before answering (EOF): did the service stop or restart? Nothing was written")
	wantNoFiles(t, "a pull cut off", db)
}
