package typed

import (
	"context"
	"iter"
	"reflect"
	"slices"

	"github.com/superstep/superstep/engine"
)

// Part is one chunk of a typed stream: the engine's chunk (mode, namespace
// and data, as engine.Graph.StreamModes yields it) with the chunks that
// carry state decoded for the root graph. A subgraph's chunks (Namespace
// not empty) have another state type: their state is left to Data, for the
// subgraph's Graph.DecodePart, and the rest is read as at the root — chat
// messages (Message), and an update's Node, Keys (sorted by name), Cached
// and Interrupts — so that a stream's printer needs no DecodePart to say
// which subgraph node wrote which keys. engine.NamespaceNodes(
// strings.Join(Namespace, "|")) is the path of subgraph nodes without task
// ids ("researcher" for "researcher:<task id>").
type Part[S any] struct {
	engine.StreamPart

	// State is the state after a superstep (StreamValues).
	State *S
	// Node wrote Update (StreamUpdates): the fields it set hold its
	// writes, and Keys lists their state keys (in field order); a key
	// written twice holds the last write (Data has every one). Cached
	// marks writes the node did not make in this run: a task's saved
	// writes re-applied on resume, or a node cache hit
	// (engine.WithCachePolicy), as LangGraph marks both
	// ("__metadata__": {"cached": true}).
	Node   string   // the node
	Update *S       // its writes
	Keys   []string // the keys it wrote
	Cached bool     // reused, not run: resumed or from the node cache
	// Interrupts are the run's pending interrupts (StreamValues and
	// StreamUpdates when it pauses; empty for a breakpoint).
	Interrupts []engine.Interruption
	// Message is a chat message (StreamMessages) that has the shape of a
	// Message, with where it came from: one a node streamed with
	// StreamMessage, or returned in its update (nil for a value of another
	// shape, left to Data).
	Message  *Message               // the message
	Metadata engine.MessageMetadata // the task that streamed it
}

// Stream runs the graph like Run and yields the chunks of the given modes
// as they happen, typed (see Part). As with Run, an input that sets nothing
// (the zero Update) continues the thread from its checkpoint, as Continue
// does (LangGraph's stream(None)). The engine's event stream stays
// available as g.Graph.Stream. A value that does not fit S is yielded as
// a *DecodeError with its part; the run's own failure comes last, as in
// engine.Graph.StreamModes. Leaving the loop early cancels the run (see
// engine.Graph.Stream).
func (g *Graph[S]) Stream(ctx context.Context, input Update[S], modes []engine.StreamMode, opts ...engine.RunOption) iter.Seq2[Part[S], error] {
	var in any
	if !input.empty() {
		m, err := g.inputOf(&input)
		if err != nil {
			return failed[S](err)
		}
		in = m
	}
	return g.stream(ctx, in, modes, opts)
}

// StreamResume answers the pending interrupt, as Resume, and streams the
// run that follows, as Stream.
func (g *Graph[S]) StreamResume(ctx context.Context, answer any, modes []engine.StreamMode, opts ...engine.RunOption) iter.Seq2[Part[S], error] {
	cmd, err := Resume(answer)
	if err != nil {
		return failed[S](err)
	}
	return g.stream(ctx, cmd, modes, opts)
}

func failed[S any](err error) iter.Seq2[Part[S], error] {
	return func(yield func(Part[S], error) bool) { yield(Part[S]{}, err) }
}

func (g *Graph[S]) stream(ctx context.Context, input any, modes []engine.StreamMode, opts []engine.RunOption) iter.Seq2[Part[S], error] {
	return func(yield func(Part[S], error) bool) {
		for p, err := range g.Graph.StreamModes(ctx, input, modes, opts...) {
			if err != nil {
				if input == nil {
					err = nothingToContinue(err, "Stream was given an input that sets no field, which continues the thread, and", opts)
				}
				yield(Part[S]{StreamPart: p}, err)
				return
			}
			part, err := g.typedPart(p)
			if !yield(part, err) {
				return
			}
		}
	}
}

// DecodePart decodes a chunk of a run of g, as Stream does for the root
// graph's: a subgraph's chunks (Namespace not empty), which its parent's
// Stream leaves to Data, are decoded with the subgraph's own graph,
// sub.DecodePart(part.StreamPart) (the namespace's last element,
// "node:task-id", names the node whose subgraph streamed the chunk):
//
//	for part, err := range parent.Stream(ctx, input, modes, engine.WithSubgraphs()) {
//		if len(part.Namespace) > 0 {
//			part, err := sub.DecodePart(part.StreamPart)
//			…
//		}
//	}
//
// A value that does not fit S is a *DecodeError, returned with the part.
func (g *Graph[S]) DecodePart(p engine.StreamPart) (Part[S], error) {
	return g.decodePart(p)
}

// typedPart decodes the state in a root graph's chunk; a subgraph's keeps
// its state in Data (another type), and what does not depend on the state's
// type is read as at the root: its chat messages, and an update's node, keys,
// cache mark and interrupts.
func (g *Graph[S]) typedPart(p engine.StreamPart) (Part[S], error) {
	if len(p.Namespace) > 0 {
		part := Part[S]{StreamPart: p}
		switch d := p.Data.(type) {
		case engine.MessageChunk:
			part.Metadata = d.Metadata
			part.Message = decodeMessage(d.Message)
		case engine.UpdatesChunk:
			subgraphUpdate(d, &part)
		case engine.ValuesChunk:
			part.Interrupts, _ = d[engine.InterruptChannel].([]engine.Interruption)
		}
		return part, nil
	}
	return g.decodePart(p)
}

// subgraphUpdate reads what a subgraph's updates chunk says beside its
// values: the node, the keys it wrote (sorted, as no field order is known
// here), whether it was cached, or the interrupts.
func subgraphUpdate[S any](d engine.UpdatesChunk, part *Part[S]) {
	if ints, ok := d[engine.InterruptChannel].([]engine.Interruption); ok {
		part.Interrupts = ints
		return
	}
	if meta, ok := d["__metadata__"].(map[string]any); ok {
		part.Cached, _ = meta["cached"].(bool)
	}
	for node, u := range d {
		if node == "__metadata__" {
			continue
		}
		part.Node = node
		switch w := u.(type) {
		case map[string]any:
			part.Keys = addKeys(part.Keys, w)
		case []any:
			for _, x := range w {
				if m, ok := x.(map[string]any); ok {
					part.Keys = addKeys(part.Keys, m)
				}
			}
		}
	}
	slices.Sort(part.Keys)
	part.Keys = slices.Compact(part.Keys)
}

func addKeys(keys []string, w map[string]any) []string {
	for k := range w {
		keys = append(keys, k)
	}
	return keys
}

// decodeMessage is a streamed message in a Message's shape, else nil.
func decodeMessage(v any) *Message {
	if m, ok := v.(map[string]any); ok {
		if msg, err := Decode[Message](m); err == nil {
			return &msg
		}
	}
	return nil
}

func (g *Graph[S]) decodePart(p engine.StreamPart) (Part[S], error) {
	part := Part[S]{StreamPart: p}
	switch d := p.Data.(type) {
	case engine.ValuesChunk:
		if ints, ok := d[engine.InterruptChannel].([]engine.Interruption); ok {
			part.Interrupts = ints
			return part, nil
		}
		part.State = new(S)
		return part, g.schema.decode(d, reflect.ValueOf(part.State).Elem())
	case engine.UpdatesChunk:
		return part, g.decodeUpdate(d, &part)
	case engine.MessageChunk:
		part.Metadata = d.Metadata
		part.Message = decodeMessage(d.Message)
	}
	return part, nil
}

// decodeUpdate reads an updates chunk: {node: {key: value}}, or
// {node: [{key: value}, …]} for a node that wrote a key twice.
func (g *Graph[S]) decodeUpdate(d engine.UpdatesChunk, part *Part[S]) error {
	if ints, ok := d[engine.InterruptChannel].([]engine.Interruption); ok {
		part.Interrupts = ints
		return nil
	}
	if meta, ok := d["__metadata__"].(map[string]any); ok {
		part.Cached, _ = meta["cached"].(bool)
	}
	for node, u := range d {
		if node == "__metadata__" {
			continue
		}
		part.Node = node
		part.Update = new(S)
		dst := reflect.ValueOf(part.Update).Elem()
		var writes []map[string]any
		switch w := u.(type) {
		case map[string]any:
			writes = []map[string]any{w}
		case []any:
			for _, x := range w {
				if m, ok := x.(map[string]any); ok {
					writes = append(writes, m)
				}
			}
		}
		for _, w := range writes {
			for _, f := range g.schema.fields {
				if _, ok := w[f.key]; ok {
					part.Keys = append(part.Keys, f.key)
				}
			}
			if err := g.schema.decode(w, dst); err != nil {
				return err
			}
		}
	}
	return nil
}
