package enginetest

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/superstep/superstep/engine"
)

// OutlineSaver is a MemorySaver that is an engine.Outliner, as a store
// that reads checkpoints without their values is (persist.Store): Outline
// is List with the values keep refuses dropped from each copy, and from
// the pending writes an outline leaves undecoded.
type OutlineSaver struct {
	*engine.MemorySaver
}

// Outline implements engine.Outliner.
func (s OutlineSaver) Outline(ctx context.Context, cfg engine.Config, opt engine.ListOptions, keep func(string) bool) ([]*engine.CheckpointTuple, error) {
	out, err := s.MemorySaver.List(ctx, cfg, opt)
	for i, t := range out {
		cp := *t.Checkpoint.Materialize()
		cp.ChannelValues = maps.Clone(cp.ChannelValues)
		maps.DeleteFunc(cp.ChannelValues, func(ch string, _ any) bool { return keep == nil || !keep(ch) })
		tt := *t
		tt.Checkpoint = &cp
		// As a store does, the outline leaves a task's output to a state
		// key undecoded.
		tt.PendingWrites = slices.Clone(t.PendingWrites)
		for j, w := range tt.PendingWrites {
			if !engine.IsControlWrite(w.Channel) && w.TaskID != engine.NullTaskID && (keep == nil || !keep(w.Channel)) {
				tt.PendingWrites[j].Value = nil
			}
		}
		out[i] = &tt
	}
	return out, err
}

// Heads implements engine.HeadLister from List.
func (s OutlineSaver) Heads(ctx context.Context, cfg engine.Config) ([]engine.CheckpointHead, error) {
	list, err := s.MemorySaver.List(ctx, cfg, engine.ListOptions{})
	out := make([]engine.CheckpointHead, len(list))
	for i, t := range list {
		out[i] = engine.HeadOf(t)
	}
	return out, err
}

// CheckpointIDs implements IDLister from List.
func (s OutlineSaver) CheckpointIDs(ctx context.Context, cfg engine.Config, prefix string, limit int) ([]string, error) {
	list, err := s.MemorySaver.List(ctx, engine.Config{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS}, engine.ListOptions{})
	var out []string
	for _, t := range slices.Backward(list) {
		if id := t.Checkpoint.ID; strings.HasPrefix(id, prefix) && (limit <= 0 || len(out) < limit) {
			out = append(out, id)
		}
	}
	return out, err
}
