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
	// reserved holds, for a stable namespace not yet visited, the task
	// of a superstep running now whose subgraph run takes its first
	// visit: the first planned one (reserveFirstVisits).
	reserved map[string]*task
}

// stableNamespace is ns without its last task id, so that one subgraph
// node's runs share a visit (replay.ts #isFirstVisit).
func stableNamespace(ns string) string {
	if i := strings.LastIndexByte(ns, ':'); i >= 0 {
		return ns[:i]
	}
	return ns
}

// reserveFirstVisits gives each not yet visited subgraph namespace that
// run's subgraph nodes load to the first of them in planned order, and
// returns the namespaces it reserved. LangGraph.js starts a superstep's
// tasks in planned order and a subgraph node loads its checkpoint before
// its first await that waits for anything, so the first planned run
// visits first (1.7.3 dist pregel/runner.js:137-146 starts them in order;
// the load, loop.js:412-413); goroutines load in any order. A node
// whose function runs a subgraph loads when it gets there, so it takes
// its visit as it comes.
func (r *replayState) reserveFirstVisits(run []*task) []string {
	var keys []string
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range run {
		sub := t.node.subgraph
		if sub == nil {
			continue
		}
		ns := t.namespace()
		if sub.stateful {
			ns = NamespaceNodes(ns)
		}
		stable := stableNamespace(ns)
		if r.visited[stable] || r.reserved[stable] != nil {
			continue
		}
		if r.reserved == nil {
			r.reserved = map[string]*task{}
		}
		r.reserved[stable] = t
		keys = append(keys, stable)
	}
	return keys
}

// release drops the reservations of a superstep that ended, the visits
// its tasks did not take included.
func (r *replayState) release(keys []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range keys {
		delete(r.reserved, k)
	}
}

// firstVisit reports whether ns, loaded by a subgraph run in task t, is
// the first visit to its stable namespace in the run, and records the
// visit (replay.ts #isFirstVisit): the visit reserved for a task is its
// own, and no other run takes it first.
func (r *replayState) firstVisit(ns string, t *task) bool {
	stable := stableNamespace(ns)
	r.mu.Lock()
	defer r.mu.Unlock()
	owner, reserved := r.reserved[stable]
	switch {
	case reserved && owner == t:
		delete(r.reserved, stable)
	case reserved, r.visited[stable]:
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
	if l.opts.parent == nil {
		return nil
	}
	return l.runReplay()
}

// runReplay is the replay state of the run l belongs to: its root's, nil
// when the root run does not travel in time.
func (l *loop) runReplay() *replayState {
	root := l
	for root.opts.parent != nil {
		root = root.opts.parent.run
	}
	return root.replay
}

// loadReplayed loads a subgraph's checkpoint under a root's replay: on the
// first visit the latest saved before the replay bound (replay.ts
// getCheckpoint: list with before and limit 1), else the latest.
func (l *loop) loadReplayed(ctx context.Context, r *replayState) (*CheckpointTuple, error) {
	cfg := Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS}
	if !r.firstVisit(l.cfg.CheckpointNS, l.opts.parent.t) {
		return l.saver.GetTuple(ctx, cfg)
	}
	list, err := l.saver.List(ctx, cfg, ListOptions{Before: r.bound, Limit: 1})
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}
