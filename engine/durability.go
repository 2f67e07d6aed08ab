package engine

import (
	"context"
	"fmt"
	"strings"
)

// Durability says what a run checkpoints: LangGraph's run-level
// durability (Python pregel/main.py:2602-2603, types.py Durability;
// LangGraph.js pregel/index.ts _defaults, dist/pregel/index.js:998-1004).
// It is not when a write reaches the disk: that is the store's own
// option (persist.Options.Durability), and the two combine freely: a run
// with DurabilityExit on a bbolt file opened with persist.DurabilitySync
// writes one checkpoint at its end, and that one is on disk before Put
// returns.
//
// A subgraph run inherits its parent's mode (LangGraph.js passes the
// durability on in the config, pregel/utils/config.ts; Python sets
// CONFIG_KEY_DURABILITY, main.py:2862-2864). Without a saver the mode
// changes nothing (LangGraph only warns, main.py:2802-2804).
type Durability int

const (
	// DurabilityAsync, the default: every checkpoint and every task's
	// writes go to the saver as the run makes them. In LangGraph the
	// write may overlap the next superstep; the engine's Saver contract
	// has Put return before the loop goes on, so here it behaves as
	// DurabilitySync (see DurabilitySync).
	DurabilityAsync Durability = iota
	// DurabilitySync: a superstep's checkpoint is stored before the next
	// superstep starts (LangGraph.js loop.ts awaits the saver's promises,
	// dist/pregel/loop.js:661; Python main.py:2987-2988). The engine
	// calls Put on the run's goroutine and plans the next superstep only
	// after it returned, so sync and async are the same here: the order
	// of saver calls is the same in both (each Put before any write of
	// the next superstep). What "stored" means is the saver's: with a
	// bbolt store in persist.DurabilityAsync, on disk after its flush.
	DurabilitySync
	// DurabilityExit: nothing goes to the saver while the run goes on;
	// when it ends (done, interrupted or failed) it writes ONE checkpoint,
	// the current one in memory with the metadata of its last superstep
	// and as parent the checkpoint the run started from, then the pending
	// writes its tasks made since (loop.js:714-717 finishAndHandleError,
	// :1028-1084 _putCheckpoint, :1168-1180 _flushPendingWrites; Python
	// _loop.py:1317-1335, :1092-1095, :510-540). No input checkpoint and
	// no per-superstep checkpoints are written, though steps still count
	// in memory. A subgraph run writes at its end only if it failed or
	// was interrupted, or if its namespace holds no task id (a stateful
	// subgraph); a subgraph that finished leaves its result to its
	// parent's checkpoint. A crash loses the whole run, and so does a
	// Stepper dropped before its run ended without Stepper.Close (which
	// saves as any end does). Values and updates stream as
	// in the other modes, and so does the checkpoints mode, each
	// superstep's checkpoint from memory as LangGraph.js streams it
	// (loop.js:684; see StreamCheckpoints); EventCheckpoint reports
	// only the checkpoint written at the end.
	DurabilityExit
)

// String returns the mode as LangGraph spells it: "async", "sync", "exit".
func (d Durability) String() string {
	switch d {
	case DurabilityAsync:
		return "async"
	case DurabilitySync:
		return "sync"
	case DurabilityExit:
		return "exit"
	}
	return fmt.Sprintf("Durability(%d)", int(d))
}

// ParseDurability reads "async", "sync" or "exit".
func ParseDurability(s string) (Durability, error) {
	for _, d := range []Durability{DurabilityAsync, DurabilitySync, DurabilityExit} {
		if s == d.String() {
			return d, nil
		}
	}
	return 0, fmt.Errorf("%w %q: want async, sync or exit", ErrUnknownDurability, s)
}

// WithDurability sets what the run checkpoints (see Durability). Its
// subgraphs run with the same mode.
func WithDurability(d Durability) RunOption { return func(o *RunOptions) { o.Durability = d } }

// exitState is what a DurabilityExit run keeps until its end.
type exitState struct {
	savedID string             // the checkpoint loaded at entry ("" for none): the exit checkpoint's parent
	loaded  map[string]Version // its channel versions: the exit Put's new versions are the ones changed since
	written map[string]bool    // task ids whose writes this run put (LangGraph.js _writtenTaskIds); under loop.mu
	done    bool               // the run ended and saveAtExit ran
	// savedParent is savedID's parent: EventPlanned reports savedID and
	// it while the run goes on (loop.emitPlanned).
	savedParent string
}

// saveAtExit writes a DurabilityExit run's one checkpoint and its pending
// writes once the run ended (loop.js:713-717). The caller calls it when
// the run stops, before an interrupted superstep's writes are applied in
// memory (the checkpoint holds the state the superstep started from, as
// finishAndHandleError saves before _suppressInterrupt applies them). A
// saver error becomes the run's error as adoptSaveError says, and is
// returned as the run's error then; nil means the run's own error stands.
func (l *loop) saveAtExit(ctx context.Context) error {
	x := l.exit
	if x == nil || x.done {
		return nil
	}
	x.done = true
	// A finished subgraph whose namespace names its task leaves it to its
	// parent (loop.js:714: !isNested || error || no part holds ':').
	if l.opts.parent != nil && l.status != StatusInterrupted && l.status != StatusFailed && strings.Contains(l.cfg.CheckpointNS, ":") {
		return nil
	}
	ctx = detach(ctx) // a cancelled run is saved too (RunContext)
	err := l.putExitCheckpoint(ctx)
	if err == nil {
		err = l.flushExitWrites(ctx)
	}
	if err != nil && l.adoptSaveError(err) {
		l.status = StatusFailed
		return l.err
	}
	return nil
}

// putExitCheckpoint stores the checkpoint in memory under its own id,
// unless it is the one loaded at entry (loop.js:1030).
func (l *loop) putExitCheckpoint(ctx context.Context) error {
	x := l.exit
	if l.cpID == x.savedID {
		return nil
	}
	var newVersions map[string]Version
	if !keepsSnapshots(l.saver) {
		newVersions = map[string]Version{}
		for c, v := range l.cs.versionMap() {
			if old, ok := x.loaded[c]; !ok || old != v {
				newVersions[c] = v
			}
		}
	}
	cp, kc := l.cs.checkpoint(l.cpID, l.g.clock(), l.hint.onlyIf(l.md.Source == SourceLoop))
	if ls := l.opts.turns; ls != nil {
		ls.wait(l.opts.turnAt)
	}
	err := l.put(ctx, Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS, CheckpointID: x.savedID}, cp, kc, l.md, newVersions)
	if ls := l.opts.turns; ls != nil {
		ls.pass(l.opts.turnAt)
	}
	if err != nil {
		return fmt.Errorf("saving checkpoint at exit (step %d): %w", l.md.Step, err)
	}
	l.parentID = x.savedID
	if l.emit != nil {
		if kc != nil {
			cp = kc.public()
		}
		l.emit(Event{Kind: EventCheckpoint, Step: l.md.Step, Checkpoint: cp.Materialize(), Metadata: l.md, ParentID: l.parentID, Namespace: l.cfg.CheckpointNS})
	}
	return nil
}

// flushExitWrites stores the pending writes this run's tasks made since
// its last superstep, against the current checkpoint (loop.js:1163-1180
// _flushPendingWrites: only the task ids this run wrote, grouped by task).
func (l *loop) flushExitWrites(ctx context.Context) error {
	l.mu.Lock()
	batches := map[string][]Write{}
	var order []string
	for _, pw := range l.pending.all() {
		if !l.exit.written[pw.TaskID] {
			continue
		}
		if _, ok := batches[pw.TaskID]; !ok {
			order = append(order, pw.TaskID)
		}
		batches[pw.TaskID] = append(batches[pw.TaskID], Write{Channel: pw.Channel, Value: pw.Value})
	}
	l.mu.Unlock()
	cfg := Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS, CheckpointID: l.cpID}
	for _, id := range order {
		if err := l.saver.PutWrites(ctx, cfg, id, batches[id]); err != nil {
			return fmt.Errorf("saving the pending writes of task %s at exit: %w", id, err)
		}
	}
	return nil
}

// startExit sets up a DurabilityExit run once its thread is loaded.
func (l *loop) startExit() {
	l.exit = &exitState{savedID: l.cpID, savedParent: l.parentID, written: map[string]bool{}}
	if !keepsSnapshots(l.saver) {
		l.exit.loaded = l.cs.versionMap()
		l.cs.dirtyOff = true // the exit Put compares with loaded instead
	}
}
