package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/superstep/superstep/engine"
)

// Condition is a compiled expression over a checkpoint's state, in the
// language of scenario files (`len(state.findings) >= 3`). The debugger
// does not depend on that language: Options.Compile supplies it.
type Condition interface {
	// Eval evaluates the expression with state bound to `state`: its
	// value, and whether the value is true in the language's sense (a
	// conditional breakpoint stops where it becomes true).
	Eval(state map[string]any) (value any, holds bool, err error)
}

// SettingsStore is the optional Saver capability of keeping small
// documents by key, next to the threads: the debugger keeps each graph's
// breakpoints and watches there, so they are back the next time the graph
// is opened. A Saver without it keeps them for the session only.
type SettingsStore interface {
	// Setting returns the document stored under key, or nil and no error
	// when there is none.
	Setting(ctx context.Context, key string) ([]byte, error)
	// PutSetting stores doc under key, replacing what was there.
	PutSetting(ctx context.Context, key string, doc []byte) error
}

// breakpoints are the debugger's own: the model checks them between
// phases, so they need no engine support and change without restarting.
type breakpoints struct {
	before, after map[string]bool // nodes
	// channels are watchpoints: stop when the channel changes.
	channels map[string]bool
	conds    []*exprSlot // stop when the expression becomes true
	onError  bool        // stop after an Execute where a task failed or was retried
}

// exprSlot is one expression the person typed (a condition or a watch)
// and what it last evaluated to.
type exprSlot struct {
	src  string
	cond Condition
	// cp is the checkpoint cur was evaluated at. base is a watch's value
	// at cp's parent, when hasBase: * marks a watch whose value differs
	// from it, as the channels pane marks what the superstep that wrote
	// cp changed, whichever checkpoint was on screen before.
	cp        string
	cur, base string
	hasBase   bool
	holds     bool // a condition's truth at cp
	held      bool // at the checkpoint before
	err       string
	// errSaid: the person was told once that this condition cannot be
	// evaluated (when it was added or when a step first hit the error);
	// a condition that errors at every checkpoint is not told again.
	errSaid bool
}

func newBreakpoints() breakpoints {
	return breakpoints{before: map[string]bool{}, after: map[string]bool{}, channels: map[string]bool{}}
}

// eval brings the slot to checkpoint cp with state values. A new
// checkpoint moves a condition's truth to held (c stops where it becomes
// true); the same one only re-evaluates (after an edit).
func (x *exprSlot) eval(cp string, values map[string]any) {
	if x.cond == nil {
		return
	}
	text, holds, errText := x.evalAt(values)
	if cp != x.cp {
		x.held = x.holds
		if x.cp == "" {
			x.held = holds
		}
		x.cp = cp
	}
	x.cur, x.holds, x.err = text, holds, errText
}

// evalAt evaluates the expression on values: its value previewed, its
// truth, and its error's first line.
func (x *exprSlot) evalAt(values map[string]any) (text string, holds bool, errText string) {
	v, holds, err := x.cond.Eval(values)
	if err != nil {
		return "", false, firstLine(err.Error())
	}
	return preview(v, previewBudget), holds, ""
}

// evalBase evaluates a watch at the current checkpoint's parent (ok:
// parent holds its values); a value it has not there ("" as for an
// error) counts as a change.
func (x *exprSlot) evalBase(parent map[string]any, ok bool) {
	x.base, x.hasBase = "", ok && x.cond != nil
	if x.hasBase {
		x.base, _, _ = x.evalAt(parent)
	}
}

// changed reports whether a watch's value differs from its value at the
// checkpoint's parent.
func (x *exprSlot) changed() bool { return x.err == "" && x.hasBase && x.cur != x.base }

// savedBreakpoints is the document kept per graph in a SettingsStore.
type savedBreakpoints struct {
	Before     []string `json:"before,omitempty"`
	After      []string `json:"after,omitempty"`
	Channels   []string `json:"channels,omitempty"`
	Conditions []string `json:"conditions,omitempty"`
	OnError    bool     `json:"on_error,omitempty"`
	Watches    []string `json:"watches,omitempty"`
	// Run settings (S) and the last new thread's input.
	InterruptBefore []string       `json:"interrupt_before,omitempty"`
	InterruptAfter  []string       `json:"interrupt_after,omitempty"`
	RecursionLimit  int            `json:"recursion_limit,omitempty"`
	Durability      string         `json:"durability,omitempty"`
	LastInput       map[string]any `json:"last_input,omitempty"`
	// StepIntoSubgraphs: n and s stop in the subgraph runs a step starts (>).
	StepIntoSubgraphs bool `json:"step_into_subgraphs,omitempty"`
}

// settingsKey names a graph's document: breakpoints, watches, run
// settings and last input.
func settingsKey(graph string) string { return "tui/graph/" + graph }

func setList(m map[string]bool) []string {
	var out []string
	for k, on := range m {
		if on {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func srcs(xs []*exprSlot) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.src
	}
	return out
}

func (m *Model) savedBreakpoints() savedBreakpoints {
	return savedBreakpoints{
		Before: setList(m.bp.before), After: setList(m.bp.after), Channels: setList(m.bp.channels),
		Conditions: srcs(m.bp.conds), OnError: m.bp.onError, Watches: srcs(m.watches),
		InterruptBefore: m.run.before, InterruptAfter: m.run.after, RecursionLimit: m.run.limit, Durability: m.run.durability, LastInput: m.lastInput,
		StepIntoSubgraphs: m.into.on,
	}
}

// applySaved restores a graph's breakpoints and watches; expressions that
// no longer compile are kept (so they are not lost) and show their error.
func (m *Model) applySaved(s savedBreakpoints) {
	for _, n := range s.Before {
		m.bp.before[n] = true
	}
	for _, n := range s.After {
		m.bp.after[n] = true
	}
	for _, c := range s.Channels {
		m.bp.channels[c] = true
	}
	m.bp.onError = m.bp.onError || s.OnError
	for _, src := range s.Conditions {
		m.bp.conds = append(m.bp.conds, m.compileSlot(src))
	}
	for _, src := range s.Watches {
		m.watches = append(m.watches, m.compileSlot(src))
	}
	if s.LastInput != nil {
		m.lastInput, _ = engine.FromJSON(s.LastInput).(map[string]any)
	}
	m.into.on = m.into.on || s.StepIntoSubgraphs && m.into.gate != nil
	m.evalExprs()
}

// savedRun is the run settings of a saved document, applied to the
// session by a Cmd (it may be busy).
func (s savedBreakpoints) savedRun() runSettings {
	return runSettings{before: s.InterruptBefore, after: s.InterruptAfter, limit: s.RecursionLimit, durability: s.Durability}
}

func (m *Model) compileSlot(src string) *exprSlot {
	x := &exprSlot{src: src}
	if m.opts.Compile == nil {
		x.err = "no expression language: the program that opened the debugger passes none (Options.Compile)"
		return x
	}
	c, err := m.opts.Compile(src)
	if err != nil {
		x.err = firstLine(err.Error())
		return x
	}
	x.cond = c
	return x
}

// evalExprs brings conditions and watches to the checkpoint on screen.
func (m *Model) evalExprs() {
	v := m.view
	if v == nil {
		return
	}
	for _, x := range m.bp.conds {
		x.eval(v.CheckpointID, v.Values)
	}
	parent, ok := m.parentValues, m.parentAt == v.CheckpointID && v.ParentID != ""
	for _, x := range m.watches {
		x.eval(v.CheckpointID, v.Values)
		x.evalBase(parent, ok)
	}
}

// loadBreakpoints reads the graph's saved breakpoints (a Cmd: no I/O in
// Update).
func (m *Model) loadBreakpoints() func() any {
	store, ok := m.settingsStore()
	if !ok {
		return nil
	}
	key, ctx := settingsKey(m.opts.SettingsKey), m.ctx
	return func() any {
		doc, err := store.Setting(ctx, key)
		if err != nil || doc == nil {
			return settingsMsg{err: err}
		}
		var s savedBreakpoints
		if err := json.Unmarshal(doc, &s); err != nil {
			return settingsMsg{err: fmt.Errorf("the saved breakpoints of %s do not decode: %w", m.opts.GraphName, err)}
		}
		return settingsMsg{saved: &s}
	}
}

// saveBreakpoints writes them back after a change.
func (m *Model) saveBreakpoints() func() any {
	store, ok := m.settingsStore()
	if !ok {
		return nil
	}
	doc, _ := json.Marshal(m.savedBreakpoints())
	key, ctx := settingsKey(m.opts.SettingsKey), m.ctx
	return func() any {
		if err := store.PutSetting(ctx, key, doc); err != nil {
			return settingsMsg{err: fmt.Errorf("saving breakpoints: %w", err)}
		}
		return nil
	}
}

// settingsMsg is a loaded breakpoints document, or why it failed.
type settingsMsg struct {
	saved *savedBreakpoints
	err   error
	// durabilityRefused: the store refused the durability asked for; the
	// settings go back to the store's own so it is not asked again.
	durabilityRefused bool
}

// condError says, once per conditional breakpoint, that one cannot be
// evaluated at the checkpoint just reached (nil > 3, a string against a
// number): such a condition never holds, so c would run past it in
// silence. "" when there is nothing new to say; said marks it said, for
// the caller to call once the message is on screen.
func (m *Model) condError(v *engine.StepView) (msg string, said func()) {
	if v.Phase != engine.PhaseCheckpoint {
		return "", nil
	}
	for _, x := range m.bp.conds {
		if x.cond != nil && x.err != "" && !x.errSaid {
			return fmt.Sprintf("breakpoint %s cannot be evaluated at checkpoint %s (step %d) and stops nothing while it errs (L lists it): %s", x.src, shortID(v.CheckpointID), v.CheckpointStep, x.err), func() { x.errSaid = true }
		}
	}
	return "", nil
}

// exprStops checks the breakpoints that are not about nodes at the phase
// just reached: after an Update, conditions that became true and watched
// channels that changed; after an Execute, a failed task.
func (m *Model) exprStops(v *engine.StepView) (bool, string) {
	switch v.Phase {
	case engine.PhaseCheckpoint:
		for _, x := range m.bp.conds {
			if x.holds && !x.held {
				return true, fmt.Sprintf("breakpoint: %s became true at checkpoint %s (step %d)", x.src, shortID(v.CheckpointID), v.CheckpointStep)
			}
		}
		var changed []string
		for _, c := range v.Channels {
			if c.Updated && m.bp.channels[c.Name] {
				changed = append(changed, fmt.Sprintf("%s (now v%d)", c.Name, c.Version))
			}
		}
		if len(changed) > 0 {
			return true, "watchpoint: " + strings.Join(changed, ", ") + " changed"
		}
	case engine.PhaseExecuted:
		if !m.bp.onError {
			return false, ""
		}
		// A failure ends the run anyway; a task that failed and was then
		// retried to success would pass unnoticed without this.
		for _, t := range v.Tasks {
			switch {
			case t.State == engine.TaskFailed:
				return true, "break on error: " + t.Name + " failed: " + firstLine(fmt.Sprint(t.Err))
			case t.Attempts > 1:
				why := ""
				if n := len(t.Retried); n > 0 {
					why = ": " + firstLine(t.Retried[n-1].Error())
				}
				return true, fmt.Sprintf("break on error: %s failed and was retried (%d attempts)%s", t.Name, t.Attempts, why)
			}
		}
	}
	return false, ""
}

// settingsStore is where the graph's breakpoints, watches and run
// settings are kept: Options.Settings, else the Saver when it keeps
// settings itself.
func (m *Model) settingsStore() (SettingsStore, bool) {
	if m.opts.Settings != nil {
		return m.opts.Settings, true
	}
	s, ok := m.opts.Saver.(SettingsStore)
	return s, ok
}

// toggleWatch sets or clears the watchpoint on channel c and says which.
func (b *breakpoints) toggleWatch(c string) (note string) {
	if b.channels[c] = !b.channels[c]; b.channels[c] {
		return "watchpoint set: c stops when " + c + " changes"
	}
	delete(b.channels, c)
	return "watchpoint cleared on " + c
}

// toggleNode sets or clears the breakpoint before node n (after it, with
// after) and says which.
func (b *breakpoints) toggleNode(n string, after bool) (note string) {
	set, where := b.before, "before"
	if after {
		set, where = b.after, "after"
	}
	if set[n] = !set[n]; set[n] {
		return "breakpoint set " + where + " " + n
	}
	delete(set, n)
	return "breakpoint cleared " + where + " " + n
}
