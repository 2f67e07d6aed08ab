package persist_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestThreads_OneUnreadable: a thread whose latest checkpoint record is
// damaged is listed with Err; the others are listed as usual.
func TestThreads_OneUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "superstep.db")
	s, err := persist.Open(path, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, thread := range []string{"a", "bad", "z"} {
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: fmt.Sprintf("%032x", 1), TS: time.Unix(1700000000, 0).UTC(),
			ChannelValues: map[string]any{"x": 1.0}, ChannelVersions: map[string]engine.Version{"x": 1}, VersionsSeen: map[string]map[string]engine.Version{}}
		if _, err := s.Put(ctx, engine.Config{ThreadID: thread}, cp, engine.Metadata{Source: engine.SourceInput, Step: -1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		cps := persist.RawRecordsForTest(tx, "bad", "", "cp")
		k, _ := cps.Last()
		return cps.Put(k, []byte{0xff, 0x00, 0x01})
	})
	s = openAt(t, path, persist.Options{ReadOnly: true})
	infos, err := s.Threads(ctx)
	if err != nil {
		t.Fatalf("Threads: %v, want the readable threads listed", err)
	}
	if len(infos) != 3 {
		t.Fatalf("Threads: %d threads, want 3: %+v", len(infos), infos)
	}
	for _, info := range infos {
		switch {
		case info.ID == "bad" && !errors.Is(info.Err, persist.ErrCorrupt) && !errors.Is(info.Err, persist.ErrUnknownValueFormat):
			t.Errorf("damaged thread: Err %v, want ErrCorrupt or ErrUnknownValueFormat", info.Err)
		case info.ID != "bad" && (info.Err != nil || info.Checkpoints != 1 || info.LastID == ""):
			t.Errorf("thread %s: %+v, want it read in full", info.ID, info)
		}
	}
}

// TestSetLatestWrites: the status flags a store lists for a thread come
// from engine.SavedWrites.Status of its latest checkpoint's writes, and
// do not depend on the values of writes other than questions, answers and
// errors (a store may leave those nil); a failed thread's Failure is the
// saved error.
func TestSetLatestWrites(t *testing.T) {
	ask := engine.PendingWrite{TaskID: "a", Channel: engine.InterruptChannel, Value: []engine.Interruption{{ID: "q1", Value: "how many?"}}}
	answer := engine.PendingWrite{TaskID: "a", Channel: engine.ResumeChannel, Value: []any{2.0}}
	fail := engine.PendingWrite{TaskID: "a", Channel: engine.ErrorChannel, Value: map[string]any{"message": "boom", "name": "Error"}}
	out := engine.PendingWrite{TaskID: "b", Channel: "x", Value: 1.0}
	for _, tc := range []struct {
		name                string
		ws                  []engine.PendingWrite
		interrupted, failed bool
	}{
		{"none", nil, false, false},
		{"outputs only", []engine.PendingWrite{out}, false, false},
		{"asks", []engine.PendingWrite{ask, out}, true, false},
		{"fails", []engine.PendingWrite{fail, out}, false, true},
		// It took its answer, then failed: it waits for nothing.
		{"answered then failed", []engine.PendingWrite{fail, ask, answer}, false, true},
		// One task waits while another's error is saved: a resume is
		// what the thread needs.
		{"asks beside a failure", []engine.PendingWrite{ask, {TaskID: "b", Channel: engine.ErrorChannel, Value: "boom"}}, true, false},
		// Answered and finished: nothing waits.
		{"answered and finished", []engine.PendingWrite{ask, answer, {TaskID: "a", Channel: "x", Value: 2.0}}, false, false},
		// A plain resume value no task used yet answers the question.
		{"resume value waiting to be used", []engine.PendingWrite{{TaskID: engine.NullTaskID, Channel: engine.ResumeChannel, Value: 2.0}, ask}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var info persist.ThreadInfo
			info.SetLatestWrites(tc.ws)
			if info.Interrupted != tc.interrupted || info.Failed != tc.failed || info.PendingWrites != len(tc.ws) {
				t.Errorf("interrupted %v, failed %v, %d pending writes; want %v, %v, %d", info.Interrupted, info.Failed, info.PendingWrites, tc.interrupted, tc.failed, len(tc.ws))
			}
			// A failed thread says what failed it; no other does.
			if want := map[bool]string{true: "boom"}[tc.failed]; info.Failure != want {
				t.Errorf("failure %q, want %q", info.Failure, want)
			}
			// Without the values SetLatestWrites does not read.
			bare := make([]engine.PendingWrite, len(tc.ws))
			for i, w := range tc.ws {
				bare[i] = w
				if !slices.Contains(persist.StatusChannels(), w.Channel) {
					bare[i].Value = nil
				}
			}
			var without persist.ThreadInfo
			without.SetLatestWrites(bare)
			if without != info {
				t.Errorf("without the values of other writes: %+v, with them %+v", without, info)
			}
		})
	}
}
