package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// countingStore counts the checkpoints a command reads with their state
// values (List and GetTuple); Outline, CheckpointIDs and Export come
// through uncounted.
type countingStore struct {
	*persist.Store
	withValues int
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

// TestInspect_ReadsValuesOfShownCheckpointsOnly is item 5 of issue 17:
// show, diff and export read every checkpoint of the thread with its
// values (2.5 GB at 10k checkpoints). Now show reads one checkpoint, diff
// two, history none (an outline), export none but through Export, which
// streams.
func TestInspect_ReadsValuesOfShownCheckpointsOnly(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	st, err := persist.Open(db, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
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
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"history", "t"}, 0},
		{[]string{"show", "t"}, 1},
		{[]string{"show", "t", "--checkpoint", engine.ShortID(ids[3])}, 1},
		{[]string{"diff", "t", ids[3], engine.ShortID(ids[30])}, 2},
		{[]string{"export", "t"}, 0},
	} {
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
		if code := app.Run(context.Background(), append(c.args, "--db", db)); code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.args, code, errOut.String())
		}
		if cs.withValues != c.want {
			t.Errorf("%v read %d checkpoints with their values, want %d", c.args, cs.withValues, c.want)
		}
	}
}
