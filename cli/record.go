package cli

import (
	"context"
	"errors"
	"sync"

	"github.com/superstep/superstep/engine"
)

// graphRecorder is the database as a command that starts a thread hands it
// to the engine: it records the thread's graph (recordGraph) in the same
// order as, and just before, the thread's first checkpoint, so the graph
// is durable with it — a run killed mid-way still names its graph — and a
// session that never wrote a checkpoint leaves no trace in the database.
type graphRecorder struct {
	Store
	mu     sync.Mutex
	thread string
	record func(ctx context.Context) error // nil once recorded
	// recordNew, when set, records the graph of any other thread whose
	// first checkpoint is written through the recorder: the debugger
	// starts threads of its own (the threads list's new thread), which
	// run the graph that is open and must read back as the command
	// line's threads do (the threads command, the picker's GRAPH).
	recordNew func(ctx context.Context, thread string) error
}

// Flush stores what the store buffers (flushStore).
func (r *graphRecorder) Flush() error { return flushStore(r.Store) }

// flushStore stores what st buffers, when it buffers (a durability other
// than sync): both stores do, and a wrapper of one (graphRecorder).
func flushStore(st Store) error {
	if f, ok := st.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

var (
	_ Store                = (*graphRecorder)(nil)
	_ engine.WriteDeferrer = (*graphRecorder)(nil)
	_ engine.HeadLister    = (*graphRecorder)(nil)
	_ engine.Outliner      = (*graphRecorder)(nil)
)

// Heads passes engine.HeadLister on to the store, which the embedded Store
// interface hides: without it the debugger's tree read every checkpoint
// of a thread whole to draw it. A store that lists no heads says so
// (errors.ErrUnsupported) and the engine reads with List.
func (r *graphRecorder) Heads(ctx context.Context, cfg engine.Config) ([]engine.CheckpointHead, error) {
	if hl, ok := r.Store.(engine.HeadLister); ok {
		return hl.Heads(ctx, cfg)
	}
	return nil, errors.ErrUnsupported
}

// recordFor arranges for thread's graph to be recorded by record: now when
// the thread exists (its record may need the current topology), else just
// before its first checkpoint is written.
func (r *graphRecorder) recordFor(ctx context.Context, thread string, exists bool, record func(ctx context.Context) error) error {
	if exists {
		return record(ctx)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.thread, r.record = thread, record
	return nil
}

// Put implements engine.Saver: it records the graph before the thread's
// first root checkpoint.
func (r *graphRecorder) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, nv map[string]engine.Version) (engine.Config, error) {
	r.mu.Lock()
	record := r.record
	if cfg.ThreadID != r.thread || cfg.CheckpointNS != "" {
		record = nil
	}
	if record != nil {
		if err := record(ctx); err != nil {
			r.mu.Unlock()
			return engine.Config{}, err
		}
		r.record = nil
	}
	// A checkpoint with no parent at the root is a new thread's first.
	if record == nil && r.recordNew != nil && cfg.ThreadID != r.thread && cfg.CheckpointNS == "" && cfg.CheckpointID == "" {
		if err := r.recordNew(ctx, cfg.ThreadID); err != nil {
			r.mu.Unlock()
			return engine.Config{}, err
		}
	}
	r.mu.Unlock()
	return r.Store.Put(ctx, cfg, cp, md, nv)
}

// DeferWrites implements engine.WriteDeferrer with the store's own, which
// the embedded Store interface would hide from the engine: a run through
// the recorder then commits a superstep's last task writes with its
// checkpoint, as a run on the store does (one commit a superstep instead
// of two under sync durability). A store without one stores the writes
// now, as PutWrites does, which the contract allows (wait has nothing
// left to do).
func (r *graphRecorder) DeferWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) (wait func() error, err error) {
	if d, ok := r.Store.(engine.WriteDeferrer); ok {
		return d.DeferWrites(ctx, cfg, taskID, writes)
	}
	if err := r.Store.PutWrites(ctx, cfg, taskID, writes); err != nil {
		return nil, err
	}
	return func() error { return nil }, nil
}

// Outline implements engine.Outliner with the store's own (the debugger's
// tree then reads no state values); a store without one is listed whole.
func (r *graphRecorder) Outline(ctx context.Context, cfg engine.Config, opt engine.ListOptions, keep func(channel string) bool) ([]*engine.CheckpointTuple, error) {
	if o, ok := r.Store.(engine.Outliner); ok {
		return o.Outline(ctx, cfg, opt, keep)
	}
	return r.Store.List(ctx, cfg, opt)
}
