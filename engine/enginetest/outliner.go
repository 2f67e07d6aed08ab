package enginetest

import (
	"context"
	"maps"

	"github.com/superstep/superstep/engine"
)

// OutlineSaver is a MemorySaver that is an engine.Outliner, as a store
// that reads checkpoints without their values is (persist.Store): Outline
// is List with the values keep refuses dropped from each copy.
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
		out[i] = &tt
	}
	return out, err
}
