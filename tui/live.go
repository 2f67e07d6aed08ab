package tui

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// liveFeed collects what running tasks report while a step executes: when
// each started and ended and what it emitted (engine.Emit, streamed text).
// The engine calls on from its task goroutines; the model reads a copy on
// each frame while the step runs, so a long step never freezes the screen.
type liveFeed struct {
	mu    sync.Mutex
	now   func() time.Time
	start time.Time // when the step being executed started
	tasks map[string]*liveTask
	// warnings are the engine's words on events that warn (a route to a
	// node the graph does not have, a misspelt update key: Event.Warning),
	// until takeWarnings.
	warnings []string
}

// liveTask is one task of the step being executed.
type liveTask struct {
	node    string
	end     time.Time
	state   string   // running, reused, done, cached, interrupted, failed
	emitted []string // the latest emitted values, previewed, oldest first
	count   int      // how many values it emitted in all
	// failed are the errors of its attempts that failed and were retried
	// (engine.EventRetry), first lines, oldest first: the attempt running
	// is the next one.
	failed []string
}

// takeWarnings returns, and forgets, what the engine warned of since it
// was last asked (engine.Event.Warning: routes to nodes the graph does not
// have, misspelt update keys): they come at an Update, after the tasks
// report, and the step's note shows them.
func (f *liveFeed) takeWarnings() []string {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.warnings
	f.warnings = nil
	return out
}

// liveKeep is how many emitted values a task shows.
const liveKeep = 3

func newLiveFeed(now func() time.Time) *liveFeed {
	return &liveFeed{now: now, tasks: map[string]*liveTask{}}
}

// on is the engine's event callback (engine.WithEvents).
func (f *liveFeed) on(e engine.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if w := e.Warning(); w != "" {
		f.warnings = append(f.warnings, w)
		return
	}
	if e.Namespace != "" {
		f.inner(e)
		return
	}
	switch e.Kind {
	case engine.EventTask, engine.EventCustom, engine.EventMessage, engine.EventCached, engine.EventTaskResult, engine.EventRetry:
	default:
		return
	}
	t := f.tasks[e.TaskID]
	if t == nil {
		t = &liveTask{node: e.Node, state: "running"}
		f.tasks[e.TaskID] = t
	}
	switch e.Kind {
	case engine.EventTask:
		// The engine reports a task when it is planned (s plans and
		// executes in one call, so this is how a silent task still
		// running gets listed); a task whose saved writes are reused
		// does not run at all.
		if e.Reused {
			t.end, t.state = f.now(), "reused"
		}
	case engine.EventCustom:
		t.emit(preview(e.Value, previewBudget))
	case engine.EventMessage:
		t.emit(messagePreview(e.Value))
	case engine.EventCached:
		// Its writes came from the node cache: it does not run.
		t.end, t.state = f.now(), "cached"
	case engine.EventRetry:
		// Its policy runs it again: a flaky tool shows before the
		// attempt that works hides it.
		t.failed = append(t.failed, firstLine(errText(e.Err)))
	case engine.EventTaskResult:
		t.end = f.now()
		switch {
		case e.Err != nil:
			t.state = "failed"
		case len(e.Interrupts) > 0:
			t.state = "interrupted"
		default:
			t.state = "done"
		}
	}
}

// inner shows what a subgraph's own tasks emit under the task of this run
// that runs the subgraph (the namespace's first part, "node:taskID"),
// named by their path inside it ("deep › b1: …"). Their starts and ends
// are the subgraph's business: the parent task's state stands for them.
func (f *liveFeed) inner(e engine.Event) {
	if e.Kind != engine.EventCustom && e.Kind != engine.EventMessage {
		return
	}
	parts := strings.Split(e.Namespace, "|")
	node, taskID, ok := strings.Cut(parts[0], ":")
	if !ok {
		return
	}
	t := f.tasks[taskID]
	if t == nil {
		t = &liveTask{node: node, state: "running"}
		f.tasks[taskID] = t
	}
	var path []string
	for _, p := range parts[1:] {
		if name, _, ok := strings.Cut(p, ":"); ok {
			path = append(path, name)
		}
	}
	path = append(path, e.Node)
	v := preview(e.Value, previewBudget)
	if e.Kind == engine.EventMessage {
		v = messagePreview(e.Value)
	}
	t.emit(termtext.Name(strings.Join(path, " › ")) + ": " + v)
}

// emit keeps one more emitted value, the latest liveKeep shown.
func (t *liveTask) emit(v string) {
	t.count++
	t.emitted = append(t.emitted, v)
	if len(t.emitted) > liveKeep {
		t.emitted = t.emitted[len(t.emitted)-liveKeep:]
	}
}

// messagePreview is a streamed chat message as "msg role: content" (the
// add_messages shape); anything else is previewed as a value.
func messagePreview(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "msg " + preview(v, previewBudget)
	}
	role := str(m["role"])
	if role == "" {
		role = str(m["type"])
	}
	text := preview(m["content"], previewBudget)
	if s, ok := m["content"].(string); ok {
		text = s
	}
	if calls, ok := m["tool_calls"].([]any); ok && len(calls) > 0 {
		text += " [" + plural(len(calls), "tool call") + "]"
	}
	return "msg " + role + ": " + cut(text, previewBudget)
}

// reset forgets the last step's tasks: a new step is about to execute.
func (f *liveFeed) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tasks, f.start = map[string]*liveTask{}, f.now()
}

// rows renders the planned tasks of the step executing now: each one's
// state, time since the step started (or until it ended) and what it
// emitted last.
func (f *liveFeed) rows(planned []engine.TaskView) []taskRow {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if len(planned) == 0 {
		// s from a checkpoint plans inside the same call: list the tasks
		// as they report.
		for id, t := range f.tasks {
			planned = append(planned, engine.TaskView{ID: id, Name: t.node})
		}
		sort.Slice(planned, func(i, j int) bool { return planned[i].ID < planned[j].ID })
	}
	var out []taskRow
	for _, pt := range planned {
		t := f.tasks[pt.ID]
		if t == nil {
			t = &liveTask{state: "running"}
		}
		if pt.Name != "" {
			t.node = pt.Name
		}
		end := t.end
		if end.IsZero() {
			end = now
		}
		el := end.Sub(f.start).Round(100 * time.Millisecond)
		if pt.State == engine.TaskReused {
			// Planned with its saved writes (a retried step): it never
			// runs, so it has no clock.
			t.state = "reused"
		}
		st := map[string]engine.TaskState{"running": engine.TaskPlanned, "done": engine.TaskDone, "cached": engine.TaskCached, "interrupted": engine.TaskInterrupted, "failed": engine.TaskFailed, "reused": engine.TaskReused}[t.state]
		text := fmt.Sprintf("%s  %s  %s", t.node, t.state, el)
		if n := len(t.failed); n > 0 && t.state == "running" {
			text += fmt.Sprintf("  · attempt %d", n+1)
		}
		if t.state == "reused" {
			text = t.node + "  reused (its saved writes; it does not run again)"
		}
		out = append(out, taskRow{text: text, style: taskStyle(st, t.state == "running"), node: t.node})
		for i, e := range t.failed {
			out = append(out, taskRow{text: fmt.Sprintf("  %s attempt %d failed: %s", glyphFailed, i+1, e), style: dimStyle, node: t.node})
		}
		if t.count > len(t.emitted) {
			out = append(out, taskRow{text: fmt.Sprintf("  … %d earlier", t.count-len(t.emitted)), style: dimStyle, node: t.node})
		}
		for _, e := range t.emitted {
			out = append(out, taskRow{text: "  › " + strings.ReplaceAll(e, "\n", " "), node: t.node})
		}
	}
	return out
}
