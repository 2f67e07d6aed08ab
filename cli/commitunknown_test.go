package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// frozenStore answers as a PostgreSQL store does when Ctrl-C stops a run
// whose superstep's commit waits on a server that stopped answering: the
// checkpoint after the first superstep comes back a *CommitUnknownError
// (the run's context is cancelled then), and Close, which gives up on the
// same commit, returns the same error without the cause.
type frozenStore struct {
	*persist.Store
	cancel context.CancelFunc
	puts   int
	err    *postgres.CommitUnknownError
}

func (f *frozenStore) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, v map[string]engine.Version) (engine.Config, error) {
	f.puts++
	if f.puts < 2 {
		return f.Store.Put(ctx, cfg, cp, md, v)
	}
	f.cancel()
	f.err = &postgres.CommitUnknownError{Addr: "db.internal:5432", Thread: cfg.ThreadID, Sent: true, Waited: 10 * time.Second,
		Writes: []postgres.UnknownWrite{{Checkpoint: cp.ID}}}
	e := *f.err
	e.Cause = ctx.Err()
	return engine.Config{}, &e
}

func (f *frozenStore) Close() error {
	f.Store.Close()
	if f.err == nil {
		return nil
	}
	return f.err
}

// A run stopped by Ctrl-C while its commit waited on a frozen server says
// so once, in one line: the thread, the checkpoint in flight, that it may
// or may not be saved, and the commands that tell and that go on; not
// "the finished ones' writes are kept", which nobody knows.
func TestRun_CtrlCWithACommitInFlightSaysItIsUnknown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var fs *frozenStore
	var out, errOut bytes.Buffer
	app := &App{Stdout: &out, Stderr: &errOut, storeOpener: func(db string, o storeOptions) (Store, error) {
		s, err := openStore(db, o)
		if err != nil {
			return nil, err
		}
		fs = &frozenStore{Store: s.(*persist.Store), cancel: cancel}
		return fs, nil
	}}
	code := app.Run(ctx, []string{"run", "linear", "--thread", "t1", "--db", db})
	stderr := errOut.String()
	if code != ExitFailure || fs == nil || fs.err == nil {
		t.Fatalf("exit %d, stderr %q; want 1 after a commit in flight", code, stderr)
	}
	cp := fs.err.Writes[0].Checkpoint
	for _, want := range []string{
		"thread t1: cancelled while its commit was in flight: postgres db.internal:5432",
		"checkpoint " + cp, "did not answer", "may or may not be saved",
		"superstep history t1 --db " + db, "continue it with: superstep run linear --db " + db + " --thread t1",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	if strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "kept") || strings.Contains(stderr, "saving the database failed") {
		t.Errorf("stderr %q: want one line, the error said once, and no claim that writes are kept", stderr)
	}

	out.Reset()
	errOut.Reset()
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	app.storeOpener = func(db string, o storeOptions) (Store, error) {
		s, err := openStore(db, o)
		if err != nil {
			return nil, err
		}
		fs = &frozenStore{Store: s.(*persist.Store), cancel: cancel2}
		return fs, nil
	}
	app.Run(ctx2, []string{"run", "linear", "--thread", "t2", "--db", db, "--json"})
	if !strings.Contains(out.String(), `"kind":"CommitUnknown"`) {
		t.Errorf("--json: %q, want an error event of kind CommitUnknown", out.String())
	}
}

// frozenWritesStore answers as a PostgreSQL store does when Ctrl-C stops a
// run whose task's writes wait on a server that stopped answering: the
// engine saves them with a context the cancellation does not end, the
// store learns of it from engine.RunContext and gives up with a
// *CommitUnknownError naming them; Close returns the same error without
// the cause.
type frozenWritesStore struct {
	*persist.Store
	cancel context.CancelFunc
	puts   int
	err    *postgres.CommitUnknownError
}

func (f *frozenWritesStore) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, v map[string]engine.Version) (engine.Config, error) {
	f.puts++
	return f.Store.Put(ctx, cfg, cp, md, v)
}

func (f *frozenWritesStore) PutWrites(ctx context.Context, cfg engine.Config, task string, writes []engine.Write) error {
	if f.puts < 2 || f.err != nil {
		return f.Store.PutWrites(ctx, cfg, task, writes)
	}
	f.cancel()
	f.err = &postgres.CommitUnknownError{Addr: "db.internal:5432", Thread: cfg.ThreadID, Sent: true, Waited: 10 * time.Second,
		Writes: []postgres.UnknownWrite{{Checkpoint: cfg.CheckpointID, Task: task}}}
	e := *f.err
	e.Cause = context.Cause(engine.RunContext(ctx))
	return &e
}

func (f *frozenWritesStore) DeferWrites(ctx context.Context, cfg engine.Config, task string, writes []engine.Write) (func() error, error) {
	err := f.PutWrites(ctx, cfg, task, writes)
	return func() error { return err }, nil
}

func (f *frozenWritesStore) Close() error {
	f.Store.Close()
	if f.err == nil {
		return nil
	}
	return f.err
}

// Ctrl-C while a task's writes wait on a frozen server is said once, in
// one line, as for a checkpoint: the writes in flight, that they may or
// may not be saved, and the commands that tell and that go on.
func TestRun_CtrlCWithTaskWritesInFlightSaysTheyAreUnknown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var fs *frozenWritesStore
	var out, errOut bytes.Buffer
	app := &App{Stdout: &out, Stderr: &errOut, storeOpener: func(db string, o storeOptions) (Store, error) {
		s, err := openStore(db, o)
		if err != nil {
			return nil, err
		}
		fs = &frozenWritesStore{Store: s.(*persist.Store), cancel: cancel}
		return fs, nil
	}}
	code := app.Run(ctx, []string{"run", "linear", "--thread", "t1", "--db", db})
	stderr := errOut.String()
	if code != ExitFailure || fs == nil || fs.err == nil {
		t.Fatalf("exit %d, stderr %q; want 1 after task writes in flight", code, stderr)
	}
	w := fs.err.Writes[0]
	for _, want := range []string{
		"thread t1: cancelled while its commit was in flight: postgres db.internal:5432",
		"the writes of task " + w.Task + " at checkpoint " + w.Checkpoint, "may or may not be saved",
		"superstep history t1 --db " + db, "continue it with: superstep run linear --db " + db + " --thread t1",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	if strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "kept") || strings.Contains(stderr, "saving the database failed") {
		t.Errorf("stderr %q: want one line, the error said once, and no claim that writes are kept", stderr)
	}
}
