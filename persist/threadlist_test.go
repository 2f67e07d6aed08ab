package persist_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestExportHandler_ListsThreads: GET ExportPath answers the store's
// threads as Threads reads them, the one written last first, without the
// threads that have nothing to pull; a failed thread carries its error;
// ?limit=N keeps the newest N and says how many there are; a damaged
// thread is listed with its error; a client that takes gzip gets the list
// compressed.
func TestExportHandler_ListsThreads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "svc.db")
	clock := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	opts := persist.Options{NoSync: true, Now: func() time.Time { clock = clock.Add(time.Minute); return clock }}
	s := openAt(t, path, opts)
	ctx := context.Background()
	put := func(thread string, writes ...engine.Write) {
		t.Helper()
		cfg := engine.Config{ThreadID: thread}
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id(1), TS: time.Unix(1700000000, 0).UTC(), ChannelValues: map[string]any{"n": 1.0}, ChannelVersions: map[string]engine.Version{"n": 1}}
		saved, err := s.Put(ctx, cfg, cp, engine.Metadata{Source: engine.SourceInput, Step: -1}, map[string]engine.Version{"n": 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(writes) > 0 {
			if err := s.PutWrites(ctx, saved, "task-1", writes); err != nil {
				t.Fatal(err)
			}
		}
	}
	put("done")
	put("failed", engine.Write{Channel: engine.ErrorChannel, Value: map[string]any{"message": "boom", "name": "Error"}})
	put("asks", engine.Write{Channel: engine.InterruptChannel, Value: []engine.Interruption{{ID: "q1", Value: "ok?"}}})
	put("team/a b")
	// A thread with a fingerprint and no checkpoint: nothing to pull.
	if err := s.SetFingerprint(ctx, "empty", "fp"); err != nil {
		t.Fatal(err)
	}
	put("bad")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		cps := persist.RawRecordsForTest(tx, "bad", "", "cp")
		k, _ := cps.Last()
		return cps.Put(k, []byte{0xff, 0x00, 0x01})
	})
	s = openAt(t, path, persist.Options{ReadOnly: true})
	stored, err := s.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}

	mux := http.NewServeMux()
	mux.Handle("/debug/checkpoints/", http.StripPrefix("/debug/checkpoints", persist.ExportHandler(s)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	list := func(query string) ([]persist.ThreadInfo, int) {
		t.Helper()
		resp, err := http.Get(srv.URL + "/debug/checkpoints" + persist.ExportPath + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get(persist.ExportStatusHeader) != persist.ExportOK || resp.Header.Get("Content-Type") != "application/json" {
			body, _ := io.ReadAll(resp.Body)
			t.Fatalf("GET list%s: %s %q: %s", query, resp.Status, resp.Header.Get(persist.ExportStatusHeader), body)
		}
		threads, total, err := persist.ReadThreadList(resp.Body)
		if err != nil {
			t.Fatalf("GET list%s: %v", query, err)
		}
		return threads, total
	}

	threads, total := list("")
	var ids []string
	for _, th := range threads {
		ids = append(ids, th.ID)
	}
	// Written last first; "empty" has no checkpoint.
	if want := []string{"bad", "team/a b", "asks", "failed", "done"}; !reflect.DeepEqual(ids, want) || total != 5 {
		t.Fatalf("listed %q of %d, want %q of 5", ids, total, want)
	}
	byID := map[string]persist.ThreadInfo{}
	for _, th := range stored {
		byID[th.ID] = th
	}
	for _, got := range threads {
		want := byID[got.ID]
		if (want.Err == nil) != (got.Err == nil) || (got.Err != nil && got.Err.Error() != want.Err.Error()) {
			t.Errorf("thread %q: Err %v, want %v", got.ID, got.Err, want.Err)
		}
		var le *persist.ListedThreadError
		if got.Err != nil && (!errors.As(got.Err, &le) || le.Thread != got.ID) {
			t.Errorf("thread %q: Err %T, want a *ListedThreadError naming it", got.ID, got.Err)
		}
		got.Err, want.Err = nil, nil
		if !sameInfo(got, want) {
			t.Errorf("thread %q listed as\n%+v\nThreads reads\n%+v", got.ID, got, want)
		}
	}
	if th := byID["failed"]; !th.Failed || th.Failure != "boom" || byID["asks"].Interrupted != true || byID["done"].Failed || byID["done"].Interrupted || byID["done"].Failure != "" {
		t.Errorf("the store's flags are not what the test set up: %+v", byID)
	}

	// Compressed for a client that takes gzip (Go's asks on its own), the
	// same document; plain, with its length, for one that does not.
	get := func(acceptGzip bool) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/debug/checkpoints"+persist.ExportPath, nil)
		if acceptGzip {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	plainResp, plain := get(false)
	gzResp, zipped := get(true)
	if plainResp.Header.Get("Content-Encoding") != "" || plainResp.ContentLength != int64(len(plain)) {
		t.Errorf("plain list: Content-Encoding %q, length %d of %d bytes", plainResp.Header.Get("Content-Encoding"), plainResp.ContentLength, len(plain))
	}
	if gzResp.Header.Get("Content-Encoding") != "gzip" || gzResp.Header.Get(persist.ExportStatusHeader) != persist.ExportOK {
		t.Fatalf("list for a client that takes gzip: %s, Content-Encoding %q", gzResp.Status, gzResp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(zr); err != nil || !bytes.Equal(unzipped, plain) {
		t.Errorf("the gzip list reads %d bytes (%v), want the plain list's %d", len(unzipped), err, len(plain))
	}

	threads, total = list("?limit=2")
	if len(threads) != 2 || threads[0].ID != "bad" || threads[1].ID != "team/a b" || total != 5 {
		t.Errorf("?limit=2: %d threads (%v…) of %d, want the newest two of 5", len(threads), threads, total)
	}
	for _, q := range []string{"?limit=0", "?limit=two", "?limit=-1"} {
		resp, err := http.Get(srv.URL + "/debug/checkpoints" + persist.ExportPath + q)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || resp.Header.Get(persist.ExportStatusHeader) != persist.ExportRefused || !strings.Contains(string(body), "want a positive number") {
			t.Errorf("GET list%s: %s %q, want 400 saying what limit wants", q, resp.Status, body)
		}
	}
}

// sameInfo compares two ThreadInfos field by field, times by instant (a
// time read from JSON has another location).
func sameInfo(a, b persist.ThreadInfo) bool {
	if !a.LastTS.Equal(b.LastTS) || !a.Updated.Equal(b.Updated) {
		return false
	}
	a.LastTS, b.LastTS, a.Updated, b.Updated = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

// exportOnly is an Exporter that does not list its threads.
type exportOnly struct{}

func (exportOnly) Export(context.Context, string, io.Writer, string) error {
	return persist.ErrThreadNotFound
}

// TestExportHandler_StoreThatDoesNotList: a store without Threads refuses
// the list in one line that says what it serves.
func TestExportHandler_StoreThatDoesNotList(t *testing.T) {
	srv := httptest.NewServer(persist.ExportHandler(exportOnly{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + persist.ExportPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || resp.Header.Get(persist.ExportStatusHeader) != persist.ExportRefused || !strings.Contains(string(body), "does not list its threads; GET /threads/THREAD") {
		t.Errorf("%s %q", resp.Status, body)
	}
}

// TestReadThreadList_Refuses: anything but a list document of this
// version is ErrNotThreadList, saying what it was.
func TestReadThreadList_Refuses(t *testing.T) {
	for _, tc := range []struct{ doc, says string }{
		{"<html>sign in</html>", "invalid character"},
		{`{"format":"superstep-export","version":1}`, `format "superstep-export"`},
		{`{"format":"superstep-threads","version":2,"threads":[]}`, "version 2, this build reads version 1"},
		{`{"format":"superstep-threads","version":1,"threads":[{"checkpoints":1}]}`, "without an id"},
	} {
		_, _, err := persist.ReadThreadList(strings.NewReader(tc.doc))
		if !errors.Is(err, persist.ErrNotThreadList) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("ReadThreadList(%s): %v, want ErrNotThreadList saying %q", tc.doc, err, tc.says)
		}
	}
	threads, total, err := persist.ReadThreadList(bytes.NewBufferString(`{"format":"superstep-threads","version":1,"total":0,"threads":[]}`))
	if err != nil || len(threads) != 0 || total != 0 {
		t.Errorf("an empty list: %v, %d, %v", threads, total, err)
	}
}
