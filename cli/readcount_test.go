package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// countingStore counts the checkpoints a command reads with their state
// values (List and GetTuple) and the pages it outlines; Outline,
// CheckpointIDs and Export read no value for it.
type countingStore struct {
	*persist.Store
	withValues int
	pages      []int // the Limit of each Outline call
}

func (c *countingStore) List(ctx context.Context, cfg engine.Config, opt engine.ListOptions) ([]*engine.CheckpointTuple, error) {
	out, err := c.Store.List(ctx, cfg, opt)
	c.withValues += len(out)
	return out, err
}

func (c *countingStore) GetTuple(ctx context.Context, cfg engine.Config) (*engine.CheckpointTuple, error) {
	out, err := c.Store.GetTuple(ctx, cfg)
	if out != nil {
		c.withValues++
	}
	return out, err
}

func (c *countingStore) Outline(ctx context.Context, cfg engine.Config, opt engine.ListOptions, keep func(string) bool) ([]*engine.CheckpointTuple, error) {
	c.pages = append(c.pages, opt.Limit)
	return c.Store.Outline(ctx, cfg, opt, keep)
}

// runCounted runs a command on db through a countingStore and returns it
// with the command's output.
func runCounted(t *testing.T, db string, args ...string) (*countingStore, string) {
	t.Helper()
	var cs *countingStore
	var out, errOut bytes.Buffer
	app := &App{Stdout: &out, Stderr: &errOut, storeOpener: func(db string, o storeOptions) (Store, error) {
		s, err := openStore(db, o)
		if err != nil {
			return nil, err
		}
		cs = &countingStore{Store: s.(*persist.Store)}
		return cs, nil
	}}
	if code := app.Run(context.Background(), append(args, "--db", db)); code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, errOut.String())
	}
	return cs, out.String()
}

// putThread writes a chain of n checkpoints to thread "t" of db and
// returns their ids, oldest first.
func putThread(t *testing.T, db string, n int) []string {
	t.Helper()
	st, err := persist.Open(db, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	parent := ""
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("1f0a3c00-%04x-6000-8000-000000000000", i)
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, TS: time.Unix(1700000000, int64(i)).UTC(),
			ChannelValues:   map[string]any{"step": float64(i)},
			ChannelVersions: map[string]engine.Version{"step": engine.Version(i)},
			VersionsSeen:    map[string]map[string]engine.Version{}}
		if _, err := st.Put(context.Background(), engine.Config{ThreadID: "t", CheckpointID: parent}, cp, engine.Metadata{Source: engine.SourceLoop, Step: i - 1}, nil); err != nil {
			t.Fatal(err)
		}
		ids, parent = append(ids, id), id
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestInspect_ReadsValuesOfShownCheckpointsOnly is item 5 of issue 17:
// show, diff and export read every checkpoint of the thread with its
// values (2.5 GB at 10k checkpoints). Now show reads one checkpoint, diff
// two, history none (an outline), export none but through Export, which
// streams.
func TestInspect_ReadsValuesOfShownCheckpointsOnly(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	ids := putThread(t, db, 40)
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"history", "t"}, 0},
		{[]string{"show", "t"}, 1},
		{[]string{"show", "t", "--checkpoint", ids[3]}, 1},
		{[]string{"show", "t", "--checkpoint", engine.ShortID(ids[3])}, 1},
		{[]string{"diff", "t", ids[3], engine.ShortID(ids[30])}, 2},
		{[]string{"export", "t"}, 0},
	} {
		cs, _ := runCounted(t, db, c.args...)
		if cs.withValues != c.want {
			t.Errorf("%v read %d checkpoints with their values, want %d", c.args, cs.withValues, c.want)
		}
	}
}

// TestHistory_PagesThroughOutline: history of a thread longer than a page
// reads it a page at a time (one page of stored checkpoints held at once)
// and still lists every checkpoint, newest first.
func TestHistory_PagesThroughOutline(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	ids := putThread(t, db, 2*outlinePage+7)
	cs, out := runCounted(t, db, "history", "t", "--json")
	var rows []struct {
		ID          string `json:"id"`
		RecordedRun bool   `json:"recorded_run"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(ids) || !rows[0].RecordedRun {
		t.Fatalf("history lists %d checkpoints (first %+v), want %d, the first the end of the recorded run", len(rows), rows[0], len(ids))
	}
	for i, r := range rows {
		if want := ids[len(ids)-1-i]; r.ID != want {
			t.Fatalf("row %d is %s, want %s", i, r.ID, want)
		}
	}
	if len(cs.pages) != 3 || cs.withValues != 0 {
		t.Errorf("history read %d pages (%v) and %d checkpoints with values, want 3 pages and none", len(cs.pages), cs.pages, cs.withValues)
	}
	for _, p := range cs.pages {
		if p <= 0 || p > outlinePage {
			t.Errorf("a page of %d checkpoints, want 1 to %d", p, outlinePage)
		}
	}
}

// TestThreads_ReadsEachLatestCheckpointOnce: threads reads each thread's
// latest checkpoint once for its status, with the recorded graph through
// GetState at the id Threads listed; it read it first with GetTuple too,
// only to learn that id (twice the reads, the bulk of a listing on
// PostgreSQL). The statuses are the engine's, as before: a thread that
// waits at an interrupt, one at a subgraph's, one that failed, one done,
// and one without a recorded graph (the saved writes alone).
func TestThreads_ReadsEachLatestCheckpointOnce(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	for _, mode := range []string{"done", "ask", "subask", "boom"} {
		var errOut bytes.Buffer
		app := &App{Stdout: &bytes.Buffer{}, Stderr: &errOut}
		input := fmt.Sprintf(`{"n":0,"k":0,"limit":60,"mode":%q}`, mode)
		if code := app.Run(context.Background(), []string{"run", "testdata/threads_mix.json", "--db", db, "--thread", mode, "--input", input}); code != 0 && mode != "boom" {
			t.Fatalf("run %s: exit %d\n%s", mode, code, errOut.String())
		}
	}
	putThread(t, db, 3) // thread "t", no recorded graph
	cs, out := runCounted(t, db, "threads", "--json")
	if cs.withValues != 5 {
		t.Errorf("threads read %d checkpoints with their values, want 5 (one a thread)", cs.withValues)
	}
	var rows []threadRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.ID] = r.Status
	}
	want := map[string]string{"done": "done", "ask": "interrupted", "subask": "interrupted", "boom": "error", "t": "unknown"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}
