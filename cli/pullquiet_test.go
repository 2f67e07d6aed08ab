package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/superstep/superstep/persist"
)

// TestServiceExporter_QuietService: a service that takes the request and
// says nothing, before its answer or in the middle of it, fails the
// command in one line that says so, instead of hanging it; interrupting
// the wait says that nothing was written.
func TestServiceExporter_QuietService(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	asked := make(chan struct{}, 4)
	mux := http.NewServeMux()
	mux.HandleFunc("/silent/threads/", func(w http.ResponseWriter, r *http.Request) {
		asked <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	mux.HandleFunc("/stalls/threads/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(persist.ExportStatusHeader, persist.ExportOK)
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte(`{"format":`))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(release)

	exporter := func(path string) *serviceExporter {
		s, err := newServiceExporter(srv.URL+path, nil, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		s.quiet = 50 * time.Millisecond // the guarantee, not the minute, is under test
		return s
	}
	_, _, err := exporter("/silent").Threads(context.Background(), 0)
	if err == nil || !strings.Contains(err.Error(), "took the request and said nothing for 50ms: is the service stopped or overloaded?") || exitCode(err) != ExitUsage {
		t.Errorf("a silent service: %v (exit %d)", err, exitCode(err))
	}
	<-asked
	err = exporter("/stalls").Export(context.Background(), "t1", new(strings.Builder), "")
	if err == nil || !strings.Contains(err.Error(), `sent 10 bytes of thread "t1"'s export of 1000 bytes, then said nothing more for 50ms`) || !strings.Contains(err.Error(), "Nothing was written") {
		t.Errorf("a service that stalls mid-answer: %v", err)
	}

	s := exporter("/silent")
	s.quiet = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-asked; cancel() }()
	_, _, err = s.Threads(ctx, 0)
	if err == nil || !strings.Contains(err.Error(), "interrupted while waiting for "+srv.URL+"/silent to answer; nothing was written") {
		t.Errorf("an interrupted wait: %v", err)
	}
}
