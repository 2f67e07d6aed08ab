package enginetest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// Conversation puts n checkpoints on thread th the way a chat agent grows
// one: one message appended per step, a step counter, alternating branch
// channels, versions_seen that change, and the task's output saved as a
// pending write. It returns the checkpoints put. compact writes each
// message as a string of about the same size, a sixth of the codec's work
// (for runs under the race detector). The stores' size and read tests
// share it, so their numbers compare.
func Conversation(t testing.TB, s engine.Saver, th string, n int, compact bool) []*engine.Checkpoint {
	t.Helper()
	ctx := context.Background()
	var out []*engine.Checkpoint
	msgs := []any{}
	parent := ""
	seen := map[string]map[string]engine.Version{}
	for i := 1; i <= n; i++ {
		v := engine.Version(i)
		var msg any = map[string]any{"type": "ai", "id": fmt.Sprintf("msg-%06d", i), "content": fmt.Sprintf("This is message number %d of a long conversation.", i)}
		if compact {
			msg = fmt.Sprintf(`{"type": "ai", "id": "msg-%06d", "content": "This is message number %d of a long conversation."}`, i, i)
		}
		msgs = append(slices.Clip(msgs), msg)
		node := []string{"agent", "tools"}[i%2]
		seen = maps.Clone(seen)
		seen[node] = map[string]engine.Version{"branch:to:" + node: v - 1}
		cp := &engine.Checkpoint{
			V: engine.CheckpointFormat, ID: fmt.Sprintf("%032x", i), TS: time.Unix(1700000000, int64(i)).UTC(),
			ChannelValues:   map[string]any{"messages": msgs, "step": float64(i)},
			ChannelVersions: map[string]engine.Version{"messages": v, "step": v, "branch:to:agent": v, "branch:to:tools": v},
			VersionsSeen:    seen,
			UpdatedChannels: []string{"branch:to:" + node, "messages", "step"},
		}
		nv := map[string]engine.Version{"messages": v, "step": v}
		if _, err := s.Put(ctx, engine.Config{ThreadID: th, CheckpointID: parent}, cp, engine.Metadata{Source: engine.SourceLoop, Step: i - 1, Parents: map[string]string{}}, nv); err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
		task := fmt.Sprintf("%08x-task", i)
		if err := s.PutWrites(ctx, engine.Config{ThreadID: th, CheckpointID: cp.ID}, task, []engine.Write{{Channel: "messages", Value: []any{msg}}}); err != nil {
			t.Fatalf("PutWrites %d: %v", i, err)
		}
		out = append(out, cp)
		parent = cp.ID
	}
	return out
}
