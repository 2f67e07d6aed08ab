package engine

import (
	"context"
	"errors"
	"slices"
)

// SubgraphNamespaces lists where the subgraphs task ran keep their
// checkpoints in thread, in run order: for each run of the task's
// subgraphs (the task's namespace, then "<ns>|1", …: subgraphRunNS) that
// saved a checkpoint, the namespace it is stored under (a stateful
// subgraph keeps one without task ids, ownNamespace), which GetState,
// History and UpdateState take. task is one of a snapshot's Tasks, of
// this graph's thread (its Subgraph namespace is from the root); a task
// that runs no subgraph has none. It reads one checkpoint a run.
func (g *Graph) SubgraphNamespaces(ctx context.Context, thread string, task SnapshotTask) ([]string, error) {
	if task.Subgraph == "" || g.saver == nil {
		return nil, nil
	}
	var out []string
	for k := 0; ; k++ {
		ns := SubgraphRunNamespace(task.Subgraph, k)
		owner, err := g.graphForNamespace(ctx, thread, ns)
		if errors.Is(err, ErrNoCheckpoint) {
			return out, nil // a declared subgraph's run that did not happen
		}
		if err != nil {
			return nil, err
		}
		stored := owner.ownNamespace(ns)
		if slices.Contains(out, stored) {
			return out, nil // a stateful subgraph: every run in one namespace
		}
		t, err := g.saver.GetTuple(ctx, Config{ThreadID: thread, CheckpointNS: stored})
		if err != nil {
			return nil, err
		}
		if t == nil {
			return out, nil
		}
		out = append(out, stored)
	}
}
