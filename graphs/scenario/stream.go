package scenario

import (
	"strings"
	"sync"

	"github.com/superstep/superstep/engine"
)

// streamRecord collects the stream chunks an op asked for ("stream"), in
// the order the run made them.
type streamRecord struct {
	mu     sync.Mutex
	subs   bool
	chunks []any
}

// streamRecorder adds the op's stream modes to opts and returns where the
// chunks go (nil when the op records none).
func (r *Runner) streamRecorder(op Op, opts *[]engine.RunOption) *streamRecord {
	if op.Stream == nil {
		return nil
	}
	sr := &streamRecord{subs: op.StreamSubs}
	modes := make([]engine.StreamMode, len(op.Stream))
	for i, m := range op.Stream {
		modes[i] = engine.StreamMode(m)
	}
	*opts = append(*opts, engine.WithStreamParts(r.graph, modes, sr.add))
	if op.StreamSubs {
		*opts = append(*opts, engine.WithSubgraphs())
	}
	return sr
}

func (sr *streamRecord) add(p engine.StreamPart) {
	var data any
	switch d := p.Data.(type) {
	case engine.ValuesChunk:
		data = plain(map[string]any(d))
	case engine.UpdatesChunk:
		data = plain(map[string]any(d))
	case engine.TaskChunk: // without the task id, random in LangGraph
		data = map[string]any{"name": d.Name, "input": plain(d.Input), "triggers": stringsToAny(d.Triggers)}
	case engine.TaskResultChunk: // the error's text differs by runtime: only whether there is one
		data = map[string]any{"name": d.Name, "result": plain(d.Result), "interrupts": plain(interruptValues(d.Interrupts)), "error": d.Error != ""}
	default:
		data = plain(d)
	}
	rec := []any{string(p.Mode), data}
	if sr.subs {
		ns := make([]any, len(p.Namespace))
		for i, part := range p.Namespace {
			ns[i], _, _ = strings.Cut(part, ":")
		}
		rec = []any{ns, string(p.Mode), data}
	}
	sr.mu.Lock()
	sr.chunks = append(sr.chunks, rec)
	sr.mu.Unlock()
}

func (sr *streamRecord) records() []any {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	if sr.chunks == nil {
		return []any{}
	}
	return sr.chunks
}
