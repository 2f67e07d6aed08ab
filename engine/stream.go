package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// StreamMode names one of LangGraph's stream modes.
type StreamMode string

// Stream modes (LangGraph's stream_mode values).
const (
	// StreamValues: the whole state after each superstep that wrote a
	// state key, and when a run resumes (ValuesChunk).
	StreamValues StreamMode = "values"
	// StreamUpdates: each task's state update as it finishes (UpdatesChunk).
	StreamUpdates StreamMode = "updates"
	// StreamCustom: what nodes pass to Emit (the value itself).
	StreamCustom StreamMode = "custom"
	// StreamMessages: chat messages, streamed by nodes with StreamMessage
	// or returned in their updates (MessageChunk).
	StreamMessages StreamMode = "messages"
	// StreamTasks: task starts and results (TaskChunk, TaskResultChunk).
	StreamTasks StreamMode = "tasks"
	// StreamCheckpoints: the checkpoint each superstep is planned from,
	// with the tasks planned (CheckpointChunk), as LangGraph.js streams
	// it: in tick, right after planning, only with a saver (1.7.3 dist
	// pregel/loop.js:684; payload debug.js:94-126 mapDebugCheckpoint).
	// A new run streams its input checkpoint (next: the start node)
	// and then each loop checkpoint; a resumed run first streams the
	// checkpoint it resumes from, with its saved interrupts, errors and
	// results; a finished run's last checkpoint streams with no tasks;
	// an interrupt_before breakpoint streams its checkpoint before it
	// stops the run, while a checkpoint written where an interrupt_after
	// breakpoint stops it streams only when a run resumes from it.
	// Under DurabilityExit each superstep's checkpoint streams though
	// only the last is saved: its id is then the checkpoint the run
	// started from ("" on a new thread), as LangGraph.js's config keeps
	// addressing it. The conformance traces do not record this mode.
	StreamCheckpoints StreamMode = "checkpoints"
	// StreamDebug: the checkpoints and tasks modes' chunks, wrapped with
	// their step (DebugChunk): a task's superstep, a checkpoint's own
	// step, one less than the superstep planned from it (LangGraph.js
	// loop.js:972).
	StreamDebug StreamMode = "debug"
)

// ParseStreamMode returns the mode called name, or false.
func ParseStreamMode(name string) (StreamMode, bool) {
	m := StreamMode(name)
	switch m {
	case StreamValues, StreamUpdates, StreamCustom, StreamMessages, StreamTasks, StreamCheckpoints, StreamDebug:
		return m, true
	}
	return "", false
}

// StreamPart is one chunk of a multi-mode stream: the mode, the namespace
// of the (sub)graph it comes from (empty for the root graph; one
// "node:task-id" element per subgraph level), and the chunk, whose type
// depends on the mode. NamespaceNodes(strings.Join(Namespace, "|")) is the
// path of subgraph nodes without task ids ("researcher|search").
//
// In JSON it is {"mode", "ns", "data"}, the names superstep run --stream
// --json prints, and LangGraph's (namespace, mode, chunk) tuple in words;
// "ns" is left out at the root.
type StreamPart struct {
	Mode      StreamMode `json:"mode"`         // the mode the chunk belongs to
	Namespace []string   `json:"ns,omitempty"` // nil for the root graph
	Data      any        `json:"data"`         // the chunk: ValuesChunk, UpdatesChunk, MessageChunk, …
}

// ValuesChunk is the state (StreamValues). An interrupt streams
// {"__interrupt__": [...]} instead, as LangGraph.js does.
type ValuesChunk map[string]any

// UpdatesChunk maps a node to its update (StreamUpdates). A task that
// reuses writes instead of running — its saved writes on resume, or a node
// cache hit (WithCachePolicy) — adds "__metadata__": {"cached": true}; an
// interrupt is {"__interrupt__": [...]}.
type UpdatesChunk map[string]any

// MessageChunk is one message with where it came from (StreamMessages).
type MessageChunk struct {
	Message  any             `json:"message"`  // the message (a map with id, role, content) or a streamed piece
	Metadata MessageMetadata `json:"metadata"` // the task that streamed it
}

// MessageMetadata says which task streamed a message (LangGraph's
// langgraph_* metadata).
type MessageMetadata struct {
	Node         string   `json:"langgraph_node"`          // the task's node
	Step         int      `json:"langgraph_step"`          // its superstep
	Triggers     []string `json:"langgraph_triggers"`      // the channels that started it
	CheckpointNS string   `json:"langgraph_checkpoint_ns"` // its checkpoint namespace
	TaskID       string   `json:"task_id"`                 // the task id
}

// TaskChunk is a task that starts (StreamTasks). Its JSON is
// LangGraph.js's (1.7.3 dist pregel/debug.js:45-61 mapDebugTasks).
type TaskChunk struct {
	ID       string   `json:"id"`       // the task id
	Name     string   `json:"name"`     // its node
	Input    any      `json:"input"`    // the state it reads, or its Send's argument
	Triggers []string `json:"triggers"` // the channels that started it
	// Interrupts are the interrupts the task has raised: none when it
	// starts ([]), as in LangGraph.js, whose task starts list them.
	Interrupts []Interruption `json:"interrupts"`
	// Metadata is the run's metadata a task's stream chunk forwards
	// (debug.js:35-43 buildTaskMetadata): {"ls_integration":
	// "langgraph"} and the metadata the run was given (WithMetadata),
	// without LangGraph's own keys (thread_id, checkpoint_*,
	// langgraph_*). Shared by the run's chunks: do not change it.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// TaskResultChunk is a task that ended (StreamTasks). Its JSON is
// LangGraph.js's (debug.js:80-92 mapDebugTaskResults): {"id", "name",
// "result", "interrupts", "error"}, error null unless it failed.
type TaskResultChunk struct {
	ID         string         `json:"id"`         // the task id
	Name       string         `json:"name"`       // its node
	Result     map[string]any `json:"result"`     // its state-key writes
	Interrupts []Interruption `json:"interrupts"` // the interrupts it raised
	// Error is the text of the error the run reports for its failure
	// ("" if none); not in the JSON, which has Failure.
	Error string `json:"-"`
	// Failure is its failure as LangGraph.js streams it, the error the
	// node returned as {message, name}; nil (null) if none.
	Failure *TaskError `json:"error"`
}

// CheckpointChunk is a checkpoint a superstep was planned from, with the
// tasks planned (StreamCheckpoints). Its JSON is LangGraph.js's chunk
// field for field (1.7.3 dist pregel/debug.js:94-126 mapDebugCheckpoint):
// {"config", "values", "metadata", "next", "tasks", "parentConfig"}, the
// last left out for a checkpoint with no parent.
type CheckpointChunk struct {
	// Config addresses the checkpoint, with the run's config.
	Config CheckpointConfig `json:"config"`
	// Values are the state keys that have a value (a map[string]any),
	// or an entrypoint's output (nil until it returned), as LangGraph.js
	// reads a single output channel as its value (readChannels of the
	// stream channels, debug.js:118).
	Values any `json:"values"`
	// Metadata is the checkpoint's whole metadata.
	Metadata CheckpointMetadata `json:"metadata"`
	Next     []string           `json:"next"`  // the names of the tasks planned, in order
	Tasks    []PlannedTask      `json:"tasks"` // the tasks planned, in order
	// ParentConfig addresses the checkpoint this one follows, nil for
	// the first of its namespace.
	ParentConfig *CheckpointConfig `json:"parentConfig,omitempty"`
}

// ID is the checkpoint's id (Config's checkpoint_id).
func (c CheckpointChunk) ID() string { return c.Config.Configurable.CheckpointID }

// ParentID is the id of the checkpoint c follows, "" for none.
func (c CheckpointChunk) ParentID() string {
	if c.ParentConfig == nil {
		return ""
	}
	return c.ParentConfig.Configurable.CheckpointID
}

// CheckpointConfig is the config a checkpoints chunk addresses a
// checkpoint with: LangGraph's run config with the checkpoint's address
// in Configurable (debug.js:95-106 formatConfig; the loop's
// checkpointConfig, loop.js:431-439 and :1044-1050).
type CheckpointConfig struct {
	// Configurable addresses the checkpoint.
	Configurable CheckpointConfigurable `json:"configurable"`
	// Metadata is the run's metadata as LangGraph.js gives it to the run:
	// {"ls_integration": "langgraph"} (pregel/index.js:1128, every run's),
	// the metadata the run was given (WithMetadata), "thread_id"; in a
	// subgraph's run also its task's langgraph_step, langgraph_node,
	// langgraph_triggers, langgraph_path, langgraph_checkpoint_ns and
	// checkpoint_ns, as LangGraph passes a task's config on to the
	// subgraph it runs. Shared with the chunk's ParentConfig: do not
	// change it.
	Metadata map[string]any `json:"metadata"`
	// RecursionLimit is the run's recursion limit (a subgraph's: its
	// root run's).
	RecursionLimit int `json:"recursion_limit"`
	// RunName is, in a subgraph's run, the node that runs it ("" at the
	// root, and then left out).
	RunName string `json:"run_name,omitempty"`
	// Tags are the run's tags: always empty, as superstep runs have none.
	Tags []string `json:"tags"`
}

// CheckpointConfigurable is a checkpoint's address in a CheckpointConfig.
type CheckpointConfigurable struct {
	CheckpointNS string `json:"checkpoint_ns"` // "" at the root
	ThreadID     string `json:"thread_id"`     // the thread
	// CheckpointMap maps the namespaces above a subgraph's to the
	// checkpoints its run was planned from (its checkpoints' parents);
	// nil, and left out, at the root.
	CheckpointMap map[string]string `json:"checkpoint_map,omitempty"`
	// CheckpointID is the checkpoint; "" (left out) under DurabilityExit
	// before a thread's first checkpoint is saved.
	CheckpointID string `json:"checkpoint_id,omitempty"`
}

// CheckpointMetadata is a checkpoint's Metadata as a checkpoints chunk
// carries it: in JSON {"source", "step", "parents"} and the Extra keys
// beside them, as LangGraph saves metadata flat. Metadata(m) converts it.
type CheckpointMetadata Metadata

// MarshalJSON encodes m flat: source, step, parents ({} when none), then
// the Extra keys in sorted order. An Extra key named like one of the
// three is left out.
func (m CheckpointMetadata) MarshalJSON() ([]byte, error) {
	parents := m.Parents
	if parents == nil {
		parents = map[string]string{}
	}
	b, err := json.Marshal(struct {
		Source  string            `json:"source"`
		Step    int               `json:"step"`
		Parents map[string]string `json:"parents"`
	}{m.Source, m.Step, parents})
	if err != nil || len(m.Extra) == 0 {
		return b, err
	}
	keys := slices.Sorted(maps.Keys(m.Extra))
	b = b[:len(b)-1]
	for _, k := range keys {
		if k == "source" || k == "step" || k == "parents" {
			continue
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(m.Extra[k])
		if err != nil {
			return nil, fmt.Errorf("checkpoint metadata %q: %w", k, err)
		}
		b = append(append(append(append(b, ','), kb...), ':'), vb...)
	}
	return append(b, '}'), nil
}

// PlannedTask is a task planned from a checkpoint, with what was saved
// for it against that checkpoint (LangGraph.js debug.js:127-160
// tasksWithWrites): nothing for a checkpoint just written; a resumed
// run's saved interrupts, error and output. Its JSON is LangGraph.js's:
// {"id", "name", "path", "error"?, "interrupts", "state"?, "result"?}.
type PlannedTask struct {
	ID   string `json:"id"`   // the task id
	Name string `json:"name"` // its node
	// Path is the task's path, what its id is made of: ["__pregel_pull",
	// node] for a node, ["__pregel_push", index, false] for a Send (its
	// index among the superstep's Sends), as LangGraph.js writes them.
	Path []any `json:"path"`
	// Error is its saved failure, nil for none.
	Error      *TaskError     `json:"error,omitempty"`
	Interrupts []Interruption `json:"interrupts"` // its saved interrupts
	// State addresses the subgraph its node runs, nil for a node that
	// runs none or a task that failed (LangGraph.js gives a failed task
	// no state, debug.js:139-146).
	State *SubgraphConfig `json:"state,omitempty"`
	// Result is its saved writes to output keys (SnapshotTask.Result),
	// nil for none.
	Result map[string]any `json:"result,omitempty"`
}

// TaskError is a failed task's error as LangGraph.js saves and streams
// it: {"message", "name"} (pregel/runner.js:202-205). For a node's
// failure it is what the node returned, not the NodeError around it:
// Name is "Error" for an error of the node's own, or the engine's kind
// of it (NodeTimeoutError, CancelledError, Canceled, DeadlineExceeded);
// a saved error of a kind superstep does not make keeps its own.
type TaskError struct {
	Message string `json:"message"` // the error's text
	Name    string `json:"name"`    // its kind
}

// SubgraphConfig addresses the subgraph a planned task's node runs (a
// PlannedTask's state, debug.js:105-113): its thread and namespace.
type SubgraphConfig struct {
	// Configurable is the subgraph's address.
	Configurable SubgraphAddress `json:"configurable"`
}

// SubgraphAddress is the thread and checkpoint namespace of a subgraph.
type SubgraphAddress struct {
	ThreadID     string `json:"thread_id"`     // the thread
	CheckpointNS string `json:"checkpoint_ns"` // "<node>:<task id>", under its parent's
}

// DebugChunk wraps a task, task result or checkpoint with its step
// (StreamDebug): Type is "task", "task_result" or "checkpoint".
type DebugChunk struct {
	Type      string    `json:"type"`      // task, task_result or checkpoint
	Step      int       `json:"step"`      // the superstep
	Timestamp time.Time `json:"timestamp"` // when it was streamed
	Payload   any       `json:"payload"`   // a TaskChunk, TaskResultChunk or CheckpointChunk
}

// StreamModes runs the graph like Invoke and yields the chunks of the
// given modes as they happen (LangGraph's stream(input, stream_mode=[...])).
// With WithSubgraphs, subgraph runs stream too, under their namespace. A
// failure is yielded last, as the error of a zero StreamPart. Leaving the
// loop early cancels the run, as it does for Stream.
func (g *Graph) StreamModes(ctx context.Context, input any, modes []StreamMode, opts ...RunOption) iter.Seq2[StreamPart, error] {
	return func(yield func(StreamPart, error) bool) {
		parts := make(chan StreamPart, 64)
		done := make(chan error, 1)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		s := newStreamer(g, modes, func(p StreamPart) {
			select {
			case parts <- p:
			case <-ctx.Done():
			}
		})
		go func() {
			err := g.invokeRecovered(ctx, input, append(opts, alsoEvents(s.onEvent), s.attach))
			done <- err
			close(parts)
		}()
		for p := range parts {
			if !yield(p, nil) {
				cancel()
				for range parts {
				}
				return
			}
		}
		if err := <-done; err != nil {
			yield(StreamPart{}, err)
		}
	}
}

// WithStreamParts delivers the chunks of the given modes to fn as the run
// makes them, besides any WithEvents listener. fn is called from the run's
// goroutines (sibling tasks at once): it must be safe for concurrent use.
func WithStreamParts(g *Graph, modes []StreamMode, fn func(StreamPart)) RunOption {
	s := newStreamer(g, modes, fn)
	return func(o *RunOptions) {
		o.streamers = append(o.streamers, s)
	}
}

// WithSubgraphs makes a run deliver its subgraphs' events too (StreamModes
// chunks under their namespace; Events with Namespace set). Custom events
// (Emit) come from subgraphs with or without it, as in LangGraph.js.
func WithSubgraphs() RunOption { return func(o *RunOptions) { o.StreamSubgraphs = true } }

// subgraphEvents forwards a subgraph run's events to its parent's
// listener, marked with the subgraph's namespace.
func subgraphEvents(ns string, sub *Graph, emit func(Event)) func(Event) {
	return func(e Event) {
		if e.Namespace == "" {
			e.Namespace = ns
		}
		if e.graph == nil {
			e.graph = sub
		}
		emit(e)
	}
}

// streamer turns engine events into stream chunks of the selected modes.
// Events arrive from the run's goroutines; send must be safe for that.
type streamer struct {
	g     *Graph
	modes map[StreamMode]bool
	send  func(StreamPart)

	mu sync.Mutex
	// seen holds the ids of the messages streamed so far or given to a
	// task as input: they are not streamed again from a task's output
	// (LangGraph.js pregel/messages.ts StreamMessagesHandler.seen).
	seen map[string]bool
	// planned holds, by namespace, the starts of a superstep's tasks until
	// its last one: LangGraph.js streams the saved writes of a resumed
	// superstep's tasks (cached updates) first and then the start of
	// every task, those included, all in the tick that prepared them,
	// before any task runs (1.7.3 dist loop.js:705-709:
	// _outputCachedWrites(taskList), then mapDebugTasks(taskList)).
	planned map[string][]plannedTask
	// runMeta is the metadata the run was given (RunOptions.Metadata),
	// read when the run starts (attach); taskMeta is what task chunks
	// forward of it, made once (taskMetadata).
	runMeta  map[string]any
	taskMeta map[string]any
}

// plannedTask is a task start held back (streamer.planned).
type plannedTask struct {
	step  int
	chunk TaskChunk
}

func newStreamer(g *Graph, modes []StreamMode, send func(StreamPart)) *streamer {
	s := &streamer{g: g, modes: map[StreamMode]bool{}, send: send, seen: map[string]bool{}}
	for _, m := range modes {
		s.modes[m] = true
	}
	return s
}

// attach readies s for the run o configures: it keeps the run's
// metadata for task chunks, and asks the run for EventPlanned when s
// streams a mode made of it (checkpoints, debug): other runs do not make
// it. It runs after every other option of the run: StreamModes applies
// it last, and buildRunOptions calls it for WithStreamParts.
func (s *streamer) attach(o *RunOptions) {
	s.runMeta = o.Metadata
	if s.modes[StreamCheckpoints] || s.modes[StreamDebug] {
		o.planEvents = true
	}
}

func (s *streamer) out(mode StreamMode, ns string, data any) {
	if s.modes[mode] {
		s.send(StreamPart{Mode: mode, Namespace: splitNamespace(ns), Data: data})
	}
}

func splitNamespace(ns string) []string {
	if ns == "" {
		return nil
	}
	return strings.Split(ns, "|")
}

// graphOf is the graph whose run made e: its state keys decide what a
// chunk holds.
func (s *streamer) graphOf(e Event) *Graph {
	if e.graph != nil {
		return e.graph
	}
	return s.g
}

func (s *streamer) onEvent(e Event) {
	switch e.Kind {
	case EventValues:
		if s.graphOf(e).entrypoint {
			// A single output channel streams its value itself
			// (LangGraph.js io.ts mapOutputValues readChannel).
			s.out(StreamValues, e.Namespace, e.Output)
			return
		}
		s.out(StreamValues, e.Namespace, ValuesChunk(e.Values))
	case EventCustom:
		s.out(StreamCustom, e.Namespace, e.Value)
	case EventMessage:
		s.markSeen(e.Value)
		s.out(StreamMessages, e.Namespace, MessageChunk{Message: e.Value, Metadata: messageMetadata(e)})
	case EventPlanned:
		next := make([]string, len(e.Planned))
		for i, t := range e.Planned {
			next[i] = t.Name
		}
		cp := CheckpointChunk{Values: e.Values, Metadata: CheckpointMetadata(e.Metadata), Next: next, Tasks: e.Planned, ParentConfig: e.parentConfig}
		if e.config != nil {
			cp.Config = *e.config
		}
		if s.graphOf(e).entrypoint {
			cp.Values = e.Output
		}
		s.out(StreamCheckpoints, e.Namespace, cp)
		// The debug wrapper's step is the planned superstep's less one
		// (LangGraph.js loop.js:972), the checkpoint's own step.
		s.out(StreamDebug, e.Namespace, DebugChunk{Type: "checkpoint", Step: e.Step - 1, Timestamp: time.Now(), Payload: cp})
	case EventTask:
		s.taskStart(e)
	case EventTaskResult:
		s.taskResult(e)
	case EventCached:
		u := updatesOf(s.graphOf(e), e.Node, e.Writes)
		u["__metadata__"] = map[string]any{"cached": true}
		s.out(StreamUpdates, e.Namespace, u)
	case EventBreakpoint:
		s.staticBreakpoint(e)
	}
}

// taskStart streams a task's start, or a reused task's saved writes as
// cached updates. The starts of a superstep's tasks are held until its
// last one, so that they follow the cached updates of the reused ones,
// and include them; a call's start streams when it is made (loop.js:753
// acceptPush), its saved writes after it.
func (s *streamer) taskStart(e Event) {
	if e.Reused {
		// Saved writes re-applied on resume stream as cached updates
		// (LangGraph.js loop.ts _outputCachedWrites).
		u := updatesOf(s.graphOf(e), e.Node, e.Writes)
		u["__metadata__"] = map[string]any{"cached": true}
		s.out(StreamUpdates, e.Namespace, u)
	} else if in, ok := e.Input.(map[string]any); ok && s.modes[StreamMessages] {
		for _, v := range in {
			s.markSeen(v)
		}
	}
	if !s.modes[StreamTasks] && !s.modes[StreamDebug] || e.IsCall && e.Reused || e.Unstarted {
		return // a call's start went with its first event (functional.go)
	}
	tc := TaskChunk{ID: e.TaskID, Name: e.Node, Input: e.Input, Triggers: slices.Clone(e.Triggers), Interrupts: []Interruption{}, Metadata: s.taskMetadata()}
	if e.IsCall {
		s.out(StreamTasks, e.Namespace, tc)
		s.out(StreamDebug, e.Namespace, DebugChunk{Type: "task", Step: e.Step, Timestamp: time.Now(), Payload: tc})
		return
	}
	s.mu.Lock()
	if s.planned == nil {
		s.planned = map[string][]plannedTask{}
	}
	s.planned[e.Namespace] = append(s.planned[e.Namespace], plannedTask{e.Step, tc})
	s.mu.Unlock()
	if e.lastStart {
		// Streamed with the last start, before any task runs: tick
		// streams them all and returns, then the runner starts the tasks
		// (langgraphjs libs/langgraph-core/src/pregel/loop.ts:1144-1151;
		// 1.7.3 dist loop.js:705-711). Held until the namespace's next
		// event, they came after a sibling subgraph's chunks made while
		// these tasks worked.
		s.flushNamespace(e.Namespace)
	}
}

// taskMetadata is what a task chunk forwards of the run's metadata
// (TaskChunk.Metadata), made on first use and shared by the run's
// chunks.
func (s *streamer) taskMetadata() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.taskMeta == nil {
		md := map[string]any{"ls_integration": "langgraph"} // pregel/index.js:1128
		for k, v := range s.runMeta {
			if !excludedTaskMetadata(k) {
				md[k] = v
			}
		}
		s.taskMeta = md
	}
	return s.taskMeta
}

// excludedTaskMetadata reports whether a task chunk leaves metadata key
// k out: LangGraph's own bookkeeping, which the chunk's fields and
// namespace say already (@langchain/langgraph-checkpoint 1.2.2 dist
// base.js:222-232 EXCLUDED_METADATA_KEYS).
func excludedTaskMetadata(k string) bool {
	switch k {
	case "thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map",
		"langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns":
		return true
	}
	return false
}

// flushNamespace streams the task starts held back in namespace ns.
func (s *streamer) flushNamespace(ns string) {
	s.mu.Lock()
	tcs := s.planned[ns]
	delete(s.planned, ns)
	s.mu.Unlock()
	for _, p := range tcs {
		s.out(StreamTasks, ns, p.chunk)
		s.out(StreamDebug, ns, DebugChunk{Type: "task", Step: p.step, Timestamp: time.Now(), Payload: p.chunk})
	}
}

// taskResult streams a finished task: its update or interrupts, the
// messages in its update, and its task result (LangGraph.js loop.ts
// _outputWrites).
func (s *streamer) taskResult(e Event) {
	switch {
	case len(e.Interrupts) > 0:
		ints := slices.Clone(e.Interrupts)
		s.out(StreamUpdates, e.Namespace, UpdatesChunk{InterruptChannel: ints})
		s.out(StreamValues, e.Namespace, ValuesChunk{InterruptChannel: ints})
	case e.Err == nil || e.failedUpdate:
		s.out(StreamUpdates, e.Namespace, updatesOf(s.graphOf(e), e.Node, e.Writes))
		if e.Err == nil && s.modes[StreamMessages] {
			for _, m := range s.unseenMessages(s.graphOf(e), e.Writes) {
				s.out(StreamMessages, e.Namespace, MessageChunk{Message: m, Metadata: messageMetadata(e)})
			}
		}
	}
	r := TaskResultChunk{ID: e.TaskID, Name: e.Node, Result: e.Update, Interrupts: e.Interrupts}
	if r.Result == nil {
		r.Result = map[string]any{}
	}
	if r.Interrupts == nil {
		r.Interrupts = []Interruption{}
	}
	if e.Err != nil {
		r.Error, r.Failure = e.Err.Error(), taskErrorFrom(e.Err)
	}
	s.out(StreamTasks, e.Namespace, r)
	s.out(StreamDebug, e.Namespace, DebugChunk{Type: "task_result", Step: e.Step, Timestamp: time.Now(), Payload: r})
}

// staticBreakpoint streams the empty interrupt of interrupt_before/after,
// as LangGraph.js does (loop.ts:1206-1213: updates and values
// {"__interrupt__": []}), from the root only: a subgraph's loop does not
// suppress its interrupt (_suppressInterrupt, loop.ts:1373-1374, is false
// when nested) but throws it to its parent, and the root streams it when
// no task's interrupt carried values (runner.go tick). The root streams
// it under the namespace the event names: its own, or with subgraph
// streaming the deepest of its checkpoint map (loop.breakpointStreamNS).
func (s *streamer) staticBreakpoint(e Event) {
	if e.Namespace != "" {
		return
	}
	s.out(StreamUpdates, e.streamNS, UpdatesChunk{InterruptChannel: []Interruption{}})
	s.out(StreamValues, e.streamNS, ValuesChunk{InterruptChannel: []Interruption{}})
}

// updatesOf is a task's updates chunk: {node: {key: value}} of its state
// writes, or {node: [{key: value}, ...]} when it wrote a key twice; a Task
// call's {name: result} and an entrypoint's {name: output} (LangGraph.js
// io.ts mapOutputUpdates: RETURN writes first, then a single output
// channel's value). A task that wrote nothing streams {node: {}}: its
// writes are then the __no_writes__ marker (runner.ts:463-469), which
// LangGraph.js streams like any other writes (loop.ts _outputWrites).
func updatesOf(g *Graph, node string, writes []Write) UpdatesChunk {
	for _, w := range writes {
		if w.Channel == ReturnChannel {
			return UpdatesChunk{node: w.Value}
		}
	}
	if g.entrypoint {
		for _, w := range writes {
			if w.Channel == End {
				return UpdatesChunk{node: w.Value}
			}
		}
		return UpdatesChunk{}
	}
	counts := map[string]int{}
	for _, w := range writes {
		if g.IsStateKey(w.Channel) {
			counts[w.Channel]++
		}
	}
	for _, n := range counts {
		if n > 1 {
			var list []any
			for _, w := range writes {
				if g.IsStateKey(w.Channel) {
					list = append(list, map[string]any{w.Channel: w.Value})
				}
			}
			return UpdatesChunk{node: list}
		}
	}
	return UpdatesChunk{node: g.stateUpdate(writes)}
}

func messageMetadata(e Event) MessageMetadata {
	return MessageMetadata{Node: e.Node, Step: e.Step, Triggers: slices.Clone(e.Triggers), CheckpointNS: e.TaskNS, TaskID: e.TaskID}
}

// isMessage reports whether v is a chat message map.
func isMessage(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok && m["role"] != nil && m["content"] != nil
}

// markSeen records the ids of the messages in v (a message or a list).
func (s *streamer) markSeen(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	items, isList := v.([]any)
	if !isList {
		items = []any{v}
	}
	for _, it := range items {
		if m, ok := isMessage(it); ok {
			if id, _ := m["id"].(string); id != "" {
				s.seen[id] = true
			}
		}
	}
}

// unseenMessages lists the messages a task's state writes carry that were
// not streamed or seen before, and marks them seen (LangGraph.js
// pregel/messages.ts handleChainEnd with dedupe).
func (s *streamer) unseenMessages(g *Graph, writes []Write) []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []any
	add := func(v any) {
		m, ok := isMessage(v)
		if !ok {
			return
		}
		if id, _ := m["id"].(string); id != "" {
			if s.seen[id] {
				return
			}
			s.seen[id] = true
		}
		out = append(out, m)
	}
	for _, w := range writes {
		if !g.IsStateKey(w.Channel) {
			continue
		}
		if l, ok := w.Value.([]any); ok {
			for _, v := range l {
				add(v)
			}
			continue
		}
		add(w.Value)
	}
	return out
}

// StreamMessage streams a chat message (or a chunk of one) from a running
// node to the "messages" stream mode, with the task's metadata. A message
// map with an "id" is not streamed again when the node returns it in its
// update. It does nothing outside a node or without listeners.
func StreamMessage(ctx context.Context, message any) {
	s := scopeOf(ctx)
	if s == nil || !attemptLive(ctx) {
		return
	}
	if s.run.emit != nil {
		s.run.emit(Event{Kind: EventMessage, Step: s.step, Node: s.t.name, TaskID: s.t.id(), TaskNS: s.t.namespace(), Triggers: s.t.triggers, Value: Normalize(message)})
	}
}

// wroteOutput reports whether some task wrote an output channel.
func (g *Graph) wroteOutput(tasks []*task) bool {
	for _, t := range tasks {
		for _, w := range t.writes {
			if g.isOutput(w.Channel) {
				return true
			}
		}
	}
	return false
}
