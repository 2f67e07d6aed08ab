package recording

import (
	"context"
	"fmt"

	"github.com/superstep/superstep/engine"
)

// RunFrom returns the checkpoint a replay of thread runs from so that the
// superstep planned at checkpoint id runs again, every task of it: id
// itself when the thread has a later checkpoint (a run addressed at an
// older checkpoint travels in time: it forks there and runs every task
// afresh), else a copy of id beside it (update_state as AsCopy, a "fork"
// checkpoint). A run addressed at the thread's latest checkpoint resumes
// it instead (LangGraph.js pregel/loop.ts:660-672, resumeAtHead), reusing
// the writes the recording saved there, so a replay from a thread's only
// checkpoint (an entrypoint's that waited or failed) re-ran nothing that
// had finished and wrote onto the recording.
func RunFrom(ctx context.Context, g *engine.Graph, thread, id string) (string, error) {
	latest, err := g.History(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{Limit: 1})
	if err != nil {
		return "", fmt.Errorf("reading thread %q: %w", thread, err)
	}
	if len(latest) == 0 || latest[0].Config.CheckpointID != id {
		return id, nil
	}
	cfg, err := g.UpdateState(ctx, engine.Config{ThreadID: thread, CheckpointID: id}, nil, engine.AsCopy)
	if err != nil {
		return "", fmt.Errorf("copying checkpoint %s to replay from: %w", engine.ShortID(id), err)
	}
	return cfg.CheckpointID, nil
}
