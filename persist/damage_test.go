package persist_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
)

// The damage test: a real database file is damaged at random — a flipped
// byte anywhere, a flipped byte in a page header, a truncation — and every
// read and write the store offers runs on the result. None may crash the
// process (a crash fails the whole test binary), hang, or report damage as
// anything but ErrCorrupt or an open error that says what the file is.
// And Check must see every change to what is stored: when Check (or the
// open before it) reports nothing, everything the file reads back — every
// thread, checkpoint, value, write, child edge, fingerprint and setting —
// must equal what it held before the damage.
//
// make test runs a few trials; make damage runs many (DAMAGE_TRIALS).

var (
	damageSeed   = flag.Uint64("damage.seed", 0, "seed of TestStore_Damage (0: random)")
	damageTrials = flag.Int("damage.trials", 0, "trials of TestStore_Damage (0: $DAMAGE_TRIALS or 12)")
)

func damageTrialCount() int {
	if *damageTrials > 0 {
		return *damageTrials
	}
	if n, err := strconv.Atoi(os.Getenv("DAMAGE_TRIALS")); err == nil && n > 0 {
		return n
	}
	return 12
}

// damageBase builds the file every trial damages: several threads, a
// long one whose buckets span many pages, forks, subgraph namespaces and
// pending writes.
func damageBase(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "base.db")
	s, err := persist.Open(path, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	chain(t, s, "long", 120)
	richThread(t, s, "rich")
	for i := range 8 {
		chain(t, s, fmt.Sprintf("short-%d", i), 3)
	}
	if err := s.SetFingerprint(ctx, "rich", "graph-fp"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutSetting(ctx, "tui/breakpoints", []byte(`{"nodes":["agent"]}`)); err != nil {
		t.Fatal(err)
	}
	// The last commit: a meta page that falls back would undo it.
	chain(t, s, "last", 2)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestStore_Damage(t *testing.T) {
	seed := *damageSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -damage.seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	base := damageBase(t)
	dir := t.TempDir()
	basePath := filepath.Join(dir, "base.db")
	if err := os.WriteFile(basePath, base, 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := dumpFile(basePath)
	if err != nil {
		t.Fatalf("dump of the undamaged file: %v", err)
	}
	seen, changed := 0, 0
	for trial := range damageTrialCount() {
		data, what := enginetest.Damage(rng, base)
		path := filepath.Join(dir, fmt.Sprintf("trial-%d.db", trial))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			reported, err := checkSeesChange(path, want)
			if reported {
				seen++
			}
			if err == nil {
				err = exercise(path)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("trial %d (%s): %v", trial, what, err)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("trial %d (%s): hung", trial, what)
		}
		changed++
		os.Remove(path)
	}
	t.Logf("%d trials, %d reported as damage by Open or Check", changed, seen)
}

// checkSeesChange opens the damaged file at path read-only and runs Check.
// When neither reports damage, the file must read back exactly as want:
// a change Check did not see is an error. reported says whether the
// damage was reported.
func checkSeesChange(path string, want []byte) (reported bool, err error) {
	s, err := persist.Open(path, persist.Options{ReadOnly: true})
	if err != nil {
		return true, nil
	}
	cerr := s.Check()
	s.Close()
	if cerr != nil {
		if !errors.Is(cerr, persist.ErrCorrupt) {
			return true, fmt.Errorf("Check: %v, want ErrCorrupt", cerr)
		}
		return true, nil
	}
	got, err := dumpFile(path)
	switch {
	case err != nil:
		return false, fmt.Errorf("Check said the file is sound, but reading it fails: %v", err)
	case !bytes.Equal(got, want):
		return false, fmt.Errorf("Check said the file is sound, but what it holds changed:\n%s", firstDiff(want, got))
	}
	return false, nil
}

// dumpFile reads everything the database at path holds, through the
// store's API, into one deterministic document.
func dumpFile(path string) ([]byte, error) {
	s, err := persist.Open(path, persist.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	threads, err := s.Threads(ctx)
	if err != nil {
		return nil, err
	}
	for _, th := range threads {
		if th.Err != nil {
			return nil, fmt.Errorf("thread %q: %w", th.ID, th.Err)
		}
		fp, err := s.Fingerprint(ctx, th.ID)
		if err != nil {
			return nil, err
		}
		list, err := s.List(ctx, engine.Config{ThreadID: th.ID}, engine.ListOptions{AllNamespaces: true})
		if err != nil {
			return nil, err
		}
		tree, err := s.Tree(ctx, th.ID)
		if err != nil {
			return nil, err
		}
		kids := map[string][]string{}
		for _, n := range tree {
			if kids[n.ID], err = s.Children(ctx, engine.Config{ThreadID: th.ID, CheckpointID: n.ID}); err != nil {
				return nil, err
			}
		}
		if err := enc.Encode(map[string]any{"thread": th, "fingerprint": fp, "list": list, "tree": tree, "children": kids}); err != nil {
			return nil, err
		}
	}
	setting, err := s.Setting(ctx, "tui/breakpoints")
	if err != nil {
		return nil, err
	}
	out.Write(setting)
	return out.Bytes(), nil
}

// firstDiff shows where two dumps part.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("before: …%s…\nafter:  …%s…", a[from:min(len(a), i+80)], b[from:min(len(b), i+80)])
}

// exercise runs every read and write on the file at path. Errors that say
// the file is damaged, or not a database, are expected; it returns the
// first other one.
func exercise(path string) error {
	damaged := func(op string, err error) error {
		switch {
		case err == nil, errors.Is(err, persist.ErrCorrupt), errors.Is(err, persist.ErrNotDatabase),
			errors.Is(err, persist.ErrForeign), errors.Is(err, persist.ErrNewerFormat),
			errors.Is(err, persist.ErrUnknownValueFormat), errors.Is(err, persist.ErrNotSetUp),
			errors.Is(err, persist.ErrThreadNotFound), errors.Is(err, persist.ErrInvalidID),
			errors.Is(err, persist.ErrAsyncWrite):
			return nil
		}
		return fmt.Errorf("%s: unexpected error %w", op, err)
	}
	for _, ro := range []bool{true, false} {
		s, err := persist.Open(path, persist.Options{ReadOnly: ro, NoSync: true})
		if err != nil {
			if err := damaged("Open", err); err != nil {
				return err
			}
			continue
		}
		if err := damaged("Check", s.Check()); err != nil {
			s.Close()
			return err
		}
		threads, err := s.Threads(ctx)
		if err := damaged("Threads", err); err != nil {
			s.Close()
			return err
		}
		for _, th := range append(threads, persist.ThreadInfo{ID: "long"}, persist.ThreadInfo{ID: "rich"}) {
			cfg := engine.Config{ThreadID: th.ID}
			_, err1 := s.List(ctx, cfg, engine.ListOptions{AllNamespaces: true})
			_, err2 := s.GetTuple(ctx, cfg)
			_, err3 := s.Tree(ctx, th.ID)
			err4 := s.Export(ctx, th.ID, io.Discard, "")
			_, err5 := s.PendingWrites(ctx, cfg)
			for i, err := range []error{err1, err2, err3, err4, err5} {
				if err := damaged(fmt.Sprintf("read %d of %q", i+1, th.ID), err); err != nil {
					s.Close()
					return err
				}
			}
		}
		if !ro {
			var export bytes.Buffer
			if s.Export(ctx, "rich", &export, "") == nil {
				_, err := s.Import(ctx, &export, persist.ImportOptions{Overwrite: true})
				if err := damaged("Import", err); err != nil {
					s.Close()
					return err
				}
			}
			err := putOne(s, "long")
			if err := damaged("Put", err); err != nil {
				s.Close()
				return err
			}
			if err := damaged("DeleteThread", s.DeleteThread(ctx, "short-1")); err != nil {
				s.Close()
				return err
			}
		}
		if err := damaged("Close", s.Close()); err != nil {
			return err
		}
	}
	return nil
}

// putOne puts a checkpoint after the latest of thread th, with a write.
func putOne(s *persist.Store, th string) error {
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: th})
	if err != nil {
		return err
	}
	parent := ""
	if tup != nil {
		parent = tup.Config.CheckpointID
	}
	cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id(1 << 30), TS: time.Unix(1800000000, 0).UTC(),
		ChannelValues:   map[string]any{"step": 1.0},
		ChannelVersions: map[string]engine.Version{"step": 1 << 20},
		VersionsSeen:    map[string]map[string]engine.Version{}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: th, CheckpointID: parent}, cp, engine.Metadata{Source: engine.SourceLoop, Step: 99}, nil); err != nil {
		return err
	}
	return s.PutWrites(ctx, engine.Config{ThreadID: th, CheckpointID: cp.ID}, "t", []engine.Write{{Channel: "step", Value: 2.0}})
}

// TestStore_CheckWhileWriting runs Check over and over while another
// goroutine writes: Check must neither race with the commits (bbolt's own
// tx.Check reads its free list unguarded) nor report damage that is not
// there.
func TestStore_CheckWhileWriting(t *testing.T) {
	for _, d := range []persist.Durability{persist.DurabilitySync, persist.DurabilityAsync} {
		t.Run(d.String(), func(t *testing.T) {
			s := openTemp(t, persist.Options{NoSync: true, Durability: d})
			wrote := make(chan struct{})
			go func() {
				defer close(wrote)
				for i := range 60 {
					chain(t, s, fmt.Sprintf("w%d", i), 5)
				}
			}()
			checks := 0
			for writing := true; writing || checks < 5; checks++ {
				select {
				case <-wrote:
					writing = false
				default:
				}
				if err := s.Check(); err != nil {
					t.Errorf("Check %d while writing: %v", checks, err)
				}
			}
			if err := s.Check(); err != nil {
				t.Errorf("Check after writing: %v", err)
			}
		})
	}
}
