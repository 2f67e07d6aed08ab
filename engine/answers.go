package engine

import (
	"context"
	"errors"
	"slices"
)

// TaskAnswers returns the answers task (of the checkpoint cfg addresses)
// was given, in the order they were used, so that a replay can give them
// again: the answers its own Interrupt calls saved; for a task whose
// interrupts a subgraph raised, the answers the tasks of its subgraph's
// namespace saved, checkpoint by checkpoint from the oldest, deeper
// subgraphs included. An answer is saved where the Interrupt call that
// used it ran — the task writes it as its own RESUME write (LangGraph
// types.py interrupt; JS interrupt.ts) — and a resume map is not saved by
// itself (ENGINE-NOTES: a resume map is not persisted as a write), so a
// subgraph's answers are found in its namespace only.
func (g *Graph) TaskAnswers(ctx context.Context, cfg Config, task SnapshotTask) ([]any, error) {
	if len(task.Answers) > 0 || len(task.Interrupts) == 0 {
		return slices.Clone(task.Answers), nil
	}
	owner, err := g.graphForNamespace(ctx, cfg.ThreadID, cfg.CheckpointNS)
	if err != nil {
		return nil, err
	}
	if n := owner.nodes[task.Name]; n == nil || !n.runsSubgraphs() {
		// Interrupts of a node that runs no subgraph were raised by it (or
		// by the functional API's tasks it called, which save their own
		// answers) and no answer reached it: they still wait for one.
		return nil, nil
	}
	// Each run of a subgraph in the task has its namespace: the task's, then
	// "<ns>|1" and on (a retried subgraph node starts again in a fresh one;
	// runChild), each with the answers its run used.
	base := TaskNamespace(cfg.CheckpointNS, task.Name, task.ID)
	var out []any
	for k := 0; ; k++ {
		ns := SubgraphRunNamespace(base, k)
		hist, err := g.History(ctx, Config{ThreadID: cfg.ThreadID, CheckpointNS: ns}, ListOptions{})
		if errors.Is(err, ErrNoCheckpoint) || err == nil && len(hist) == 0 {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		a, err := g.historyAnswers(ctx, cfg.ThreadID, ns, hist)
		if err != nil {
			return nil, err
		}
		out = append(out, a...)
	}
}

// historyAnswers collects the answers saved in namespace ns of thread,
// whose checkpoints are hist (newest first), oldest checkpoint first.
func (g *Graph) historyAnswers(ctx context.Context, thread, ns string, hist []*StateSnapshot) ([]any, error) {
	var out []any
	for i := len(hist) - 1; i >= 0; i-- {
		for _, t := range hist[i].Tasks {
			a, err := g.TaskAnswers(ctx, Config{ThreadID: thread, CheckpointNS: ns}, t)
			if err != nil {
				return nil, err
			}
			out = append(out, a...)
		}
	}
	return out, nil
}
