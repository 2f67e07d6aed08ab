package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// Stepping into subgraphs. With the engine's WithSubgraphSteps the run's
// hook sees every subgraph run, nested ones too, at its start and at each
// of its phase boundaries, from the goroutine of the parent task running
// it, while the root's Next or Superstep (the Cmd that owns the session)
// waits in its Execute phase. The hook here (subStepGate.hook) holds a
// subgraph run there: it hands the model a subPause and blocks until the
// person steps (n, s, c) or the task is abandoned.
//
// The pause reaches the model the bubbletea way: the Cmd that runs the
// root's step (ops.go do) races the step against the gate's pauses
// (subStepGate.race), and returns whichever comes first; a pause carries
// the Cmd that waits for the next one, which the key that releases the
// pause returns. No Cmd is left waiting while a subgraph is paused, so a
// test that runs each Cmd to its end drives it as bubbletea does.
//
// One subgraph run is stepped at a time: concurrent ones (a Send fan-out
// to a subgraph node) wait for the turn in the hook, and the screen says
// how many wait; nested runs of the one being stepped take the turn from
// it and give it back when they end.

// subStepChoice is how a paused subgraph run goes on.
type subStepChoice int

const (
	subNextPhase subStepChoice = iota // n: to its next phase boundary
	subSuperstep                      // s: to its next checkpoint
	subToEnd                          // c: to its last view, nested runs whole (stepping into turned off: through it)
)

// errDebuggerQuit fails a subgraph run held by a debugger that quit.
var errDebuggerQuit = errors.New("the debugger quit while this subgraph run was paused")

// subPause is one subgraph run held at a phase boundary.
type subPause struct {
	view *engine.StepView
	// info is the subgraph's structure (its graph pane and versions_seen);
	// infoErr says why it could not be read (the panes then show the
	// channels the view has).
	info    engine.GraphInfo
	infoErr error
	// crumbs name the way from the root: one label per subgraph run
	// ("mid", "investigate[2]", "inner run 2").
	crumbs []string
	// release takes the person's choice (buffered: the key never blocks).
	release chan subStepChoice
	// next waits for what follows the release: the next pause or the
	// root's step ending.
	next tea.Cmd
}

// final reports the run's last view: it ended (done, interrupted or
// failed) and goes back to its parent once released.
func (p *subPause) final() bool { return p.view.Status != engine.StatusRunning }

// subPauseMsg brings a paused subgraph run to the model.
type subPauseMsg struct{ pause *subPause }

// subStepGate is shared by the session, whose runs call its hook, and the
// model, which asks it to hold subgraph runs (stepping) and releases them.
// Its methods are safe for concurrent use.
type subStepGate struct {
	// describe returns the structure of the graph that runs in namespace
	// ns of thread.
	describe func(ctx context.Context, thread, ns string) (*engine.Graph, error)

	pauses chan *subPause // unbuffered: a hook waits until the model takes it
	quit   chan struct{}  // closed when the debugger quits
	once   sync.Once

	mu sync.Mutex
	// stepping: the root's step in progress holds subgraph runs (stepping
	// into is on and the person did not press c).
	stepping bool
	// active are the subgraph runs holding the turn, outermost first: the
	// one being stepped and the runs it is nested in.
	active []string
	// toEnd are runs released with c: held again only at their own last
	// view, runs nested in them not at all. toCheckpoint are runs
	// released with s: held again at their next checkpoint (or end).
	toEnd, toCheckpoint map[string]bool
	// waiting are the runs that wait for the turn, by namespace.
	waiting map[string]bool
	// changed is closed (and replaced) when the turn may have passed.
	changed chan struct{}
	// planned are the tasks each run (by namespace, "" the root) planned
	// last: they name a subgraph run by its task (node[i] among copies).
	planned map[string][]engine.TaskView
	infos   map[*engine.Graph]engine.GraphInfo
}

func newSubStepGate(describe func(ctx context.Context, thread, ns string) (*engine.Graph, error)) *subStepGate {
	return &subStepGate{
		describe: describe,
		pauses:   make(chan *subPause),
		quit:     make(chan struct{}),
		changed:  make(chan struct{}),
		toEnd:    map[string]bool{}, toCheckpoint: map[string]bool{}, waiting: map[string]bool{},
		planned: map[string][]engine.TaskView{}, infos: map[*engine.Graph]engine.GraphInfo{},
	}
}

// close releases every held run for good: the debugger quits.
func (g *subStepGate) close() { g.once.Do(func() { close(g.quit) }) }

// begin readies the gate for a root step: no subgraph run is alive
// between the root's steps, so nothing of the last one carries over.
func (g *subStepGate) begin(stepping bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stepping = stepping
	g.active, g.toEnd, g.toCheckpoint = nil, map[string]bool{}, map[string]bool{}
	// The root's tasks were planned by the step before (n at its Plan).
	g.planned = map[string][]engine.TaskView{"": g.planned[""]}
	g.passTurn()
}

// stopStepping lets every subgraph run of the step in progress run
// through: stepping into was turned off while inside one.
func (g *subStepGate) stopStepping() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stepping = false
	g.passTurn()
}

// passTurn wakes the runs waiting for the turn; the caller holds mu.
func (g *subStepGate) passTurn() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// hook is the engine's StepHook for the session's runs. The root's views
// pass through (the model steps the root); a subgraph run's view is held
// until the person releases it, when stepping.
func (g *subStepGate) hook(ctx context.Context, v *engine.StepView) error {
	ns := v.Namespace
	g.mu.Lock()
	if v.Phase == engine.PhasePlanned {
		g.planned[ns] = v.Tasks
	}
	if ns == "" {
		g.mu.Unlock()
		return nil
	}
	final := v.Status != engine.StatusRunning
	// A run released with c is held again at its last view, as n and s
	// hold it there (the runs nested in it run through, last views and
	// all); one released with s at its next checkpoint or last view.
	through := g.underToEnd(ns) && !(final && g.toEnd[ns])
	if !g.stepping || through || g.toCheckpoint[ns] && !final && v.Phase != engine.PhaseCheckpoint {
		if final {
			g.ended(ns)
		}
		g.mu.Unlock()
		return nil
	}
	delete(g.toCheckpoint, ns)
	for !g.takeTurn(ns) {
		changed := g.changed
		g.waiting[ns] = true
		g.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			g.mu.Lock()
			delete(g.waiting, ns)
			g.mu.Unlock()
			return context.Cause(ctx)
		case <-g.quit:
			return errDebuggerQuit
		}
		g.mu.Lock()
		delete(g.waiting, ns)
		if !g.stepping {
			// Stepping into was turned off while this run waited.
			g.mu.Unlock()
			return nil
		}
	}
	p := &subPause{view: v, crumbs: g.crumbs(ns), release: make(chan subStepChoice, 1)}
	g.mu.Unlock()
	p.info, p.infoErr = g.infoOf(ctx, v)

	select {
	case g.pauses <- p:
	case <-ctx.Done():
		return g.abandoned(ctx, ns)
	case <-g.quit:
		return errDebuggerQuit
	}
	var choice subStepChoice
	select {
	case choice = <-p.release:
	case <-ctx.Done():
		return g.abandoned(ctx, ns)
	case <-g.quit:
		return errDebuggerQuit
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case final:
		g.ended(ns)
	case choice == subToEnd:
		g.toEnd[ns] = true
	case choice == subSuperstep:
		g.toCheckpoint[ns] = true
	}
	return nil
}

// abandoned gives up the turn of a run whose task ended while it was
// held (a sibling failed, the step was cancelled).
func (g *subStepGate) abandoned(ctx context.Context, ns string) error {
	g.mu.Lock()
	g.ended(ns)
	g.mu.Unlock()
	return context.Cause(ctx)
}

// takeTurn gives run ns the turn when it may be stepped now: no run holds
// it, ns holds it (runs nested deeper ended on an error, which the hook
// never saw), or ns is nested in the run that holds it. The caller holds
// mu.
func (g *subStepGate) takeTurn(ns string) bool {
	for i, a := range g.active {
		if a == ns {
			g.active = g.active[:i+1]
			return true
		}
	}
	if n := len(g.active); n == 0 || strings.HasPrefix(ns, g.active[n-1]+"|") {
		g.active = append(g.active, ns)
		return true
	}
	return false
}

// ended gives up the turn of run ns, which ended, and of the runs nested
// in it. The caller holds mu.
func (g *subStepGate) ended(ns string) {
	for i, a := range g.active {
		if a == ns {
			g.active = g.active[:i]
			break
		}
	}
	for k := range g.toEnd {
		if k == ns || strings.HasPrefix(k, ns+"|") {
			delete(g.toEnd, k)
		}
	}
	delete(g.toCheckpoint, ns)
	g.passTurn()
}

// underToEnd reports whether ns, or a run it is nested in, runs to its
// end unheld. The caller holds mu.
func (g *subStepGate) underToEnd(ns string) bool {
	for k := range g.toEnd {
		if k == ns || strings.HasPrefix(ns, k+"|") {
			return true
		}
	}
	return false
}

// infoOf is the structure of the graph v runs, read once per graph.
func (g *subStepGate) infoOf(ctx context.Context, v *engine.StepView) (engine.GraphInfo, error) {
	sub, err := g.describe(ctx, v.Thread, v.Namespace)
	if err != nil {
		return engine.GraphInfo{}, fmt.Errorf("the graph of subgraph namespace %s: %w", v.Namespace, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	info, ok := g.infos[sub]
	if !ok {
		info = sub.Describe()
		g.infos[sub] = info
	}
	return info, nil
}

// nsPart is one subgraph run in a checkpoint namespace: the parent run's
// namespace, the node and task that ran it, and which of the task's runs
// it is (0 the first; a retry or a second call runs it again).
type nsPart struct {
	parent, node, taskID string
	run                  int
}

// lastPart splits the innermost run off namespace ns: "a:<id>|b:<id>|1"
// is the second run of b's task <id> inside a's run. A stateful
// subgraph's namespace has no task ids ("a|b").
func lastPart(ns string) nsPart {
	parts := strings.Split(ns, "|")
	var p nsPart
	if n := len(parts); n > 1 {
		if k, err := strconv.Atoi(parts[n-1]); err == nil {
			p.run, parts = k, parts[:n-1]
		}
	}
	p.node, p.taskID, _ = strings.Cut(parts[len(parts)-1], ":")
	p.parent = strings.Join(parts[:len(parts)-1], "|")
	return p
}

// label names run ns as the breadcrumb shows it (runLabel), by the tasks
// its parent planned last. The caller holds mu.
func (g *subStepGate) label(ns string) string {
	return runLabel(ns, g.planned[lastPart(ns).parent])
}

// runLabel names the innermost run of namespace ns: its node, node[i]
// when its parent's step ran several copies (parentTasks are that step's
// tasks, in the order the engine planned them), and which run of its task
// it is when not the first. It is the one naming of a subgraph run: the
// breadcrumb of a run stepped and the answer box's path to an interrupt
// (engineSession.interruptPath) both use it, so a question is named by
// the run that asked it as stepping named that run.
func runLabel(ns string, parentTasks []engine.TaskView) string {
	p := lastPart(ns)
	l := p.node
	if c, ok := copyLabels(parentTasks)[p.taskID]; ok {
		l = c
	}
	if p.run > 0 {
		l += fmt.Sprintf(" run %d", p.run+1)
	}
	return l
}

// crumbs are the labels of ns and of the runs it is nested in, outermost
// first. The caller holds mu.
func (g *subStepGate) crumbs(ns string) []string {
	var out []string
	for ns != "" {
		out = append([]string{g.label(ns)}, out...)
		ns = lastPart(ns).parent
	}
	return out
}

// waiters names the subgraph runs waiting for the turn, sorted. The model
// reads it on each frame, as it reads the live feed: they arrive while
// the screen shows the run being stepped.
func (g *subStepGate) waiters() []string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]string, 0, len(g.waiting))
	for ns := range g.waiting {
		out = append(out, strings.Join(g.crumbs(ns), " › "))
	}
	sort.Strings(out)
	return out
}

// race runs a root step (run, the Cmd's work) while subgraph runs may be
// held: the Cmd returns the step's result, or the first pause, which
// carries the Cmd that waits for what comes after it.
func (g *subStepGate) race(run func() tea.Msg, stepping bool) func() tea.Msg {
	return func() tea.Msg {
		g.begin(stepping)
		done := make(chan tea.Msg, 1) // the step ends even if nobody waits
		go func() { done <- run() }()
		return g.await(done)()
	}
}

// await waits for the next pause or the step's result.
func (g *subStepGate) await(done chan tea.Msg) func() tea.Msg {
	return func() tea.Msg {
		select {
		case p := <-g.pauses:
			p.next = g.await(done)
			return subPauseMsg{pause: p}
		case msg := <-done:
			return msg
		}
	}
}

// subgraphStepper is the session capability of holding subgraph runs for
// the person to step (the engine session has it when the graph runs
// subgraphs; fakes do not).
type subgraphStepper interface {
	// SubgraphSteps is the gate its runs' hook holds subgraph runs at.
	SubgraphSteps() *subStepGate
}

// subgraphSteps is the gate of the session's runs, nil when s has none.
func subgraphSteps(s session) *subStepGate {
	if ss, ok := s.(subgraphStepper); ok {
		return ss.SubgraphSteps()
	}
	return nil
}

// describeSubgraph is the graph g runs in namespace ns of thread.
func describeSubgraph(g *engine.Graph) func(context.Context, string, string) (*engine.Graph, error) {
	return func(ctx context.Context, thread, ns string) (*engine.Graph, error) {
		sub, _, err := g.SubgraphAt(ctx, engine.Config{ThreadID: thread, CheckpointNS: ns})
		return sub, err
	}
}
