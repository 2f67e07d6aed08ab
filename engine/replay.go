package engine

import (
	"context"
	"strings"
	"sync"
)

// replayState is what a root run that travels in time (a run addressed at
// a checkpoint it does not simply resume) tells its subgraphs: on the
// first visit to a subgraph's namespace in the run, the subgraph loads its
// latest checkpoint saved before bound, not its latest one, and does not
// resume it (it takes its input); later visits load the latest, as usual
// (LangGraph.js pregel/replay.ts ReplayState; created in loop.ts _first
// when isTimeTraveling, 1.7.3 dist loop.js:938-950; used at load,
// loop.js:411-414, which also drops CONFIG_KEY_RESUMING). So a run
// addressed at an update or fork checkpoint that is the thread's head
// starts its subgraphs afresh instead of resuming what an earlier run
// from that checkpoint left in their namespaces.
type replayState struct {
	bound string // checkpoint id: subgraph checkpoints before it count

	mu      sync.Mutex
	visited map[string]bool // stable namespaces seen in the run
}

// firstVisit reports whether ns (its last task id dropped, so one subgraph
// node's runs share a visit) is visited for the first time in the run, and
// records the visit (replay.ts #isFirstVisit).
func (r *replayState) firstVisit(ns string) bool {
	stable := ns
	if i := strings.LastIndexByte(ns, ':'); i >= 0 {
		stable = ns[:i]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.visited[stable] {
		return false
	}
	if r.visited == nil {
		r.visited = map[string]bool{}
	}
	r.visited[stable] = true
	return true
}

// rootReplay is the replay state of the root run above a subgraph run, nil
// when the root run does not travel in time.
func (l *loop) rootReplay() *replayState {
	root := l
	for root.opts.parent != nil {
		root = root.opts.parent.run
	}
	if root == l {
		return nil
	}
	return root.replay
}

// loadReplayed loads a subgraph's checkpoint under a root's replay: on the
// first visit the latest saved before the replay bound (replay.ts
// getCheckpoint: list with before and limit 1), else the latest.
func (l *loop) loadReplayed(ctx context.Context, r *replayState) (*CheckpointTuple, error) {
	cfg := Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS}
	if !r.firstVisit(l.cfg.CheckpointNS) {
		return l.saver.GetTuple(ctx, cfg)
	}
	list, err := l.saver.List(ctx, cfg, ListOptions{Before: r.bound, Limit: 1})
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}
