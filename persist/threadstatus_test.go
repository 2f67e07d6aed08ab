package persist_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestThreads_StatusFromRecord: Threads says, from each thread's graph
// record alone, what GetState with the graph says of its latest
// checkpoint — done, pending (a breakpoint), interrupted, failed — and
// nothing for a thread whose record is a bare fingerprint; ExportHandler's
// list carries the statuses to ReadThreadList.
func TestThreads_StatusFromRecord(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "db"), persist.Options{NoSync: true})
	g, err := engine.NewStateGraph(engine.LastValueKey("mode"), engine.AppendKey("log")).
		AddNode("work", func(ctx context.Context, in any) (any, error) {
			switch in.(map[string]any)["mode"] {
			case "ask":
				if _, err := engine.Interrupt(ctx, "ok?"); err != nil {
					return nil, err
				}
			case "fail":
				return nil, errors.New("boom")
			}
			return engine.Pairs("log", []any{"work"}), nil
		}).
		AddNode("after", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"after"}), nil }).
		AddEdge(engine.Start, "work").AddEdge("work", "after").
		Compile(engine.WithSaver(s), engine.WithInterruptBefore("after"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(thread, mode string, resume bool) {
		t.Helper()
		_, err := g.Invoke(ctx, map[string]any{"mode": mode}, engine.OnThread(thread))
		if err == nil && resume {
			_, err = g.Invoke(ctx, nil, engine.OnThread(thread))
		}
		if err != nil && mode != "fail" {
			t.Fatal(err)
		}
	}
	run("done", "go", true)
	run("pending", "go", false)
	run("asks", "ask", false)
	run("fails", "fail", false)
	if err := s.SetFingerprint(ctx, "bare", "0123abcd"); err != nil {
		t.Fatal(err)
	}
	run("bare", "go", true)
	want := map[string]string{"done": "done", "pending": "pending", "asks": "interrupted", "fails": "error", "bare": ""}

	check := func(from string, threads []persist.ThreadInfo) {
		t.Helper()
		for _, ti := range threads {
			got := ""
			if ti.StatusKnown {
				got = ti.Status.String()
			}
			if got != want[ti.ID] {
				t.Errorf("%s: thread %s: status %q, want %q", from, ti.ID, got, want[ti.ID])
			}
			if snap, err := g.GetState(ctx, engine.Config{ThreadID: ti.ID}); err != nil || (ti.StatusKnown && snap.Status() != ti.Status) {
				t.Errorf("%s: thread %s: the graph says %v (%v)", from, ti.ID, snap.Status(), err)
			}
		}
		if len(threads) != len(want) {
			t.Errorf("%s: %d threads", from, len(threads))
		}
	}
	listed, err := s.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("Threads", listed)

	rec := httptest.NewRecorder()
	persist.ExportHandler(s).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, persist.ExportPath, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("%d: %s", rec.Code, rec.Body)
	}
	// Still version 1: a reader built before the status reads the list,
	// skipping the field.
	if body := rec.Body.String(); !strings.Contains(body, `"version":1,`) || !strings.Contains(body, `"status":"pending"`) {
		t.Fatalf("list document: %s", body)
	}
	served, _, err := persist.ReadThreadList(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	check("ExportHandler", served)
}

// TestReadThreadList_Status: a list without statuses (an older service's)
// reads with none known, a known word reads as its status, and a word this
// build does not know (a newer service's) as none, without failing the list.
func TestReadThreadList_Status(t *testing.T) {
	doc := `{"format":"superstep-threads","version":1,"total":3,"threads":[
		{"thread":"old","checkpoints":2,"namespaces":1,"step":1,"pending_writes":0,"interrupted":false,"failed":false},
		{"thread":"p","checkpoints":2,"namespaces":1,"step":1,"pending_writes":0,"interrupted":false,"failed":false,"status":"pending"},
		{"thread":"new","checkpoints":2,"namespaces":1,"step":1,"pending_writes":0,"interrupted":false,"failed":false,"status":"paused"}]}`
	threads, total, err := persist.ReadThreadList(strings.NewReader(doc))
	if err != nil || total != 3 || len(threads) != 3 {
		t.Fatalf("%d of %d threads, %v", len(threads), total, err)
	}
	if threads[0].StatusKnown || threads[2].StatusKnown {
		t.Errorf("a status from nothing: %+v, %+v", threads[0], threads[2])
	}
	if !threads[1].StatusKnown || threads[1].Status != engine.CheckpointPending {
		t.Errorf("pending read as %+v", threads[1])
	}
}
