package persist_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestExportHandler serves a store's threads as a service mounts the
// handler, under a prefix: a thread's answer is Export's document byte for
// byte, also for an id with a slash; every refusal is one line with the
// status header that tells it from a wrong path's 404.
func TestExportHandler(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	ctx := context.Background()
	for _, thread := range []string{"t1", "team/a b"} {
		cfg := engine.Config{ThreadID: thread}
		cp := &engine.Checkpoint{ID: id(1), ChannelValues: map[string]any{"n": 1.0}, ChannelVersions: map[string]engine.Version{"n": 1}}
		if _, err := s.Put(ctx, cfg, cp, engine.Metadata{Source: engine.SourceInput, Step: -1}, map[string]engine.Version{"n": 1}); err != nil {
			t.Fatal(err)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/debug/checkpoints/", http.StripPrefix("/debug/checkpoints", persist.ExportHandler(s)))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	get := func(method, path string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(body)
	}
	for _, thread := range []string{"t1", "team/a b"} {
		var want bytes.Buffer
		if err := s.Export(ctx, thread, &want, ""); err != nil {
			t.Fatal(err)
		}
		resp, body := get("GET", "/debug/checkpoints/threads/"+url.PathEscape(thread))
		if resp.StatusCode != 200 || resp.Header.Get(persist.ExportStatusHeader) != persist.ExportOK {
			t.Fatalf("GET %q: %s %q: %s", thread, resp.Status, resp.Header.Get(persist.ExportStatusHeader), body)
		}
		if body != want.String() {
			t.Fatalf("GET %q answered\n%s\nwant Export's\n%s", thread, body, want.String())
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		head, _ := get("HEAD", "/debug/checkpoints/threads/"+url.PathEscape(thread))
		if head.StatusCode != 200 || head.ContentLength != int64(want.Len()) {
			t.Errorf("HEAD %q: %s, length %d, want %d", thread, head.Status, head.ContentLength, want.Len())
		}
	}

	for _, tc := range []struct {
		method, path string
		status       int
		word, says   string
	}{
		{"GET", "/debug/checkpoints/threads/nope", 404, persist.ExportThreadNotFound, `export of thread "nope": `},
		{"GET", "/debug/checkpoints/threads/?limit=x", 400, persist.ExportRefused, "limit=x"},
		{"GET", "/debug/checkpoints/threads/a/b", 404, persist.ExportRefused, "not a thread's export"},
		{"GET", "/debug/checkpoints/", 404, persist.ExportRefused, "not a thread's export"},
		{"POST", "/debug/checkpoints/threads/t1", 405, persist.ExportRefused, "only GET serves an export"},
	} {
		resp, body := get(tc.method, tc.path)
		if resp.StatusCode != tc.status || resp.Header.Get(persist.ExportStatusHeader) != tc.word || !strings.Contains(body, tc.says) {
			t.Errorf("%s %s: %s %s=%q %q, want %d %q saying %q", tc.method, tc.path, resp.Status, persist.ExportStatusHeader, resp.Header.Get(persist.ExportStatusHeader), body, tc.status, tc.word, tc.says)
		}
		if strings.Count(strings.TrimSuffix(body, "\n"), "\n") != 0 {
			t.Errorf("%s %s: more than one line: %q", tc.method, tc.path, body)
		}
	}
	if resp, _ := get("POST", "/debug/checkpoints/threads/t1"); resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("405 without Allow: %q", resp.Header.Get("Allow"))
	}

	s.Close()
	resp, body := get("GET", "/debug/checkpoints/threads/t1")
	if resp.StatusCode != 503 || !strings.Contains(body, "closed") {
		t.Errorf("after Close: %s %q, want 503 saying the store is closed", resp.Status, body)
	}
}
