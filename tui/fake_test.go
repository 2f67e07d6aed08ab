package tui

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// fakeSession plays back views and records what the model asked for.
type fakeSession struct {
	info    engine.GraphInfo
	view    *engine.StepView
	resumed []any
	// resumeUpdates are the state updates sent with each answer.
	resumeUpdates []map[string]any
	updates       []map[string]any
	err           error
	inUse         bool
}

func (f *fakeSession) use() func() {
	if f.inUse {
		panic("session used by two Cmds at once")
	}
	f.inUse = true
	return func() { f.inUse = false }
}

func (f *fakeSession) Info() engine.GraphInfo { return f.info }
func (f *fakeSession) View() *engine.StepView { return f.view }
func (f *fakeSession) Open(context.Context, string) (*engine.StepView, error) {
	defer f.use()()
	return f.view, f.err
}
func (f *fakeSession) Start(_ context.Context, thread string, _ map[string]any) (*engine.StepView, error) {
	defer f.use()()
	v := *f.view
	v.Thread = thread
	return &v, f.err
}
func (f *fakeSession) Preview(_ context.Context, thread string, _ map[string]any) (*engine.StepView, error) {
	defer f.use()()
	v := *f.view
	v.Thread, v.CheckpointID = thread, ""
	return &v, f.err
}
func (f *fakeSession) Next(context.Context) (*engine.StepView, error) {
	defer f.use()()
	return f.view, f.err
}
func (f *fakeSession) Superstep(context.Context) (*engine.StepView, error) {
	defer f.use()()
	return f.view, f.err
}
func (f *fakeSession) Resume(_ context.Context, answer any, update map[string]any) (*engine.StepView, error) {
	defer f.use()()
	f.resumed = append(f.resumed, answer)
	f.resumeUpdates = append(f.resumeUpdates, update)
	return f.view, f.err
}
func (f *fakeSession) Checkout(context.Context, string) (*engine.StepView, error) {
	defer f.use()()
	return f.view, f.err
}
func (f *fakeSession) History(context.Context) ([]engine.CheckpointHead, error) {
	defer f.use()()
	return nil, f.err
}
func (f *fakeSession) UpdateState(_ context.Context, _ string, v map[string]any, _ string) (*engine.StepView, error) {
	defer f.use()()
	f.updates = append(f.updates, v)
	return f.view, f.err
}
func (f *fakeSession) Threads(context.Context) ([]ThreadSummary, error) {
	defer f.use()()
	return []ThreadSummary{{ID: "a"}, {ID: "b", Step: 3, Source: "loop", Updated: fixedNow}}, f.err
}

func (f *fakeSession) Pending() map[string]engine.ChannelView { return nil }

func (f *fakeSession) Live() *liveFeed { return nil }

func (f *fakeSession) SetRunSettings(runSettings) {}

func (f *fakeSession) CheckWrites([]engine.Write) error { return nil }

func (f *fakeSession) CheckStateKeys(map[string]any) error { return nil }

func (f *fakeSession) EditWrites(context.Context, string, []engine.Write, string) (*engine.StepView, error) {
	defer f.use()()
	return f.view, f.err
}

func (f *fakeSession) RerunTask(context.Context, string, string) (*engine.TaskRerun, error) {
	defer f.use()()
	return &engine.TaskRerun{}, f.err
}

func (f *fakeSession) AnsweredFailures(context.Context, *engine.StepView) []string     { return nil }
func (f *fakeSession) SavedAnswers(context.Context, *engine.StepView) map[string][]any { return nil }

func (f *fakeSession) InterruptPaths(context.Context, *engine.StepView) map[string]string {
	return nil
}

func (f *fakeSession) Diff(context.Context, string, string) (*engine.CheckpointDiff, [2]int, error) {
	defer f.use()()
	return &engine.CheckpointDiff{}, [2]int{}, f.err
}

func (f *fakeSession) Subgraph(context.Context, []subgraphRef) (*subgraphLevel, error) {
	defer f.use()()
	return &subgraphLevel{subgraphs: map[string]bool{}}, f.err
}

func (f *fakeSession) InferAsNode(context.Context, string) (string, error) {
	defer f.use()()
	return "a", f.err
}

func fakeInfo() engine.GraphInfo {
	return engine.GraphInfo{
		Name: "fake",
		Nodes: []engine.NodeInfo{
			{Name: "a", Triggers: []string{"branch:to:a"}},
			{Name: "b", Triggers: []string{"join:a+c:b"}},
			{Name: "c", Triggers: []string{"branch:to:c"}},
		},
		Edges: []engine.EdgeInfo{
			{From: []string{engine.Start}, To: "a"},
			{From: []string{"a", "c"}, To: "b", Join: true},
			{From: []string{"b"}, To: "c", Conditional: true},
		},
		Channels: []engine.ChannelInfo{{Name: "x", Kind: "LastValue"}, {Name: "branch:to:a", Kind: "EphemeralValue", Internal: true}},
	}
}

func twoInterrupts() *engine.StepView {
	return &engine.StepView{
		Thread: "f", Step: 2, CheckpointStep: 1, Phase: engine.PhasePlanned, Status: engine.StatusInterrupted, CheckpointID: "cp",
		Tasks: []engine.TaskView{{Name: "a", State: engine.TaskInterrupted}, {Name: "c", State: engine.TaskInterrupted}},
		Interrupts: []engine.PendingInterrupt{
			{Interruption: engine.Interruption{ID: "11111111-1111-1111-1111-111111111111", Value: "first?"}, Node: "a"},
			{Interruption: engine.Interruption{ID: "22222222-2222-2222-2222-222222222222", Value: map[string]any{"q": "second?"}}, Node: "c"},
		},
		Channels: []engine.ChannelView{{Name: "x", Kind: "LastValue", Value: 1.0, HasValue: true, Available: true}},
	}
}

// Several interrupts get one answer line each, and one key resumes with
// every answer typed, by interrupt id.
func TestModel_Interrupts_AnswersByID(t *testing.T) {
	f := &fakeSession{info: fakeInfo(), view: twoInterrupts()}
	m := newTestModel(t, f, Options{Thread: "f"}, 100, 30)
	if m.mode != modeAnswer || len(m.answer.inputs) != 2 {
		t.Fatalf("mode %v, %d answer lines", m.mode, len(m.answer.inputs))
	}
	m = press(t, m, "first answer", "down", `{"ok": true}`, "enter")
	if len(f.resumed) != 1 {
		t.Fatalf("resumed %d times", len(f.resumed))
	}
	rm, ok := f.resumed[0].(engine.ResumeMap)
	want := engine.ResumeMap{"11111111-1111-1111-1111-111111111111": "first answer", "22222222-2222-2222-2222-222222222222": map[string]any{"ok": true}}
	if !ok || !reflect.DeepEqual(rm, want) {
		t.Fatalf("resume value %#v, want %#v", f.resumed[0], want)
	}
}

// An interrupt left blank stays pending: only the typed answers are sent.
func TestModel_Interrupts_PartialAnswers(t *testing.T) {
	f := &fakeSession{info: fakeInfo(), view: twoInterrupts()}
	m := newTestModel(t, f, Options{Thread: "f"}, 100, 30)
	m = press(t, m, "down", "yes", "ctrl+s")
	rm, ok := f.resumed[0].(engine.ResumeMap)
	if !ok || rm["22222222-2222-2222-2222-222222222222"] != "yes" || len(rm) != 1 {
		t.Fatalf("resume value %#v, want a ResumeMap for the second interrupt", f.resumed[0])
	}
}

func TestModel_Interrupts_Golden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := newTestModel(t, &fakeSession{info: fakeInfo(), view: twoInterrupts()}, Options{Thread: "f"}, sz.w, sz.h)
			m = press(t, m, "approve", "down")
			checkFrame(t, m)
			golden(t, fmt.Sprintf("interrupts-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}

func TestModel_Session_HandedToOneCmdAtATime(t *testing.T) {
	f := &fakeSession{info: fakeInfo(), view: &engine.StepView{Thread: "f", Status: engine.StatusRunning, Phase: engine.PhaseCheckpoint, CheckpointID: "cp"}}
	m := newTestModel(t, f, Options{Thread: "f"}, 100, 30)
	// Build the Cmd for n without running it: the model gives the session
	// away, so a second n does nothing until the result comes back.
	nm, cmd := m.Update(keys("n")[0])
	m = nm.(Model)
	if cmd == nil || m.sess != nil || !m.isBusy {
		t.Fatalf("n: cmd %v sess %v busy %v", cmd != nil, m.sess != nil, m.isBusy)
	}
	if !m.runInProgress() || !stringsContains(m.View(), "RUNNING") {
		t.Fatalf("busy screen:\n%s", m.View())
	}
	nm, cmd2 := m.Update(keys("n")[0])
	m = nm.(Model)
	if cmd2 != nil {
		t.Fatal("a second engine call was issued while the first owns the session")
	}
	// q while busy asks first.
	m = press(t, m, "q")
	if m.mode != modeQuit {
		t.Fatalf("q while busy: mode %v", m.mode)
	}
	if v := m.View(); !stringsContains(v, "any other key stay • y quit") {
		t.Fatalf("the quit prompt's footer should say what y and any other key do:\n%s", v)
	}
	m = press(t, m, "n")
	m = runCmd(t, m, cmd)
	if m.sess == nil || m.isBusy {
		t.Fatal("the result did not hand the session back")
	}
}

func TestModel_Errors_ShownNotFatal(t *testing.T) {
	f := &fakeSession{info: fakeInfo(), view: &engine.StepView{Thread: "f", Status: engine.StatusRunning, Phase: engine.PhaseCheckpoint}}
	m := newTestModel(t, f, Options{Thread: "f"}, 100, 30)
	f.err = errors.New("disk on fire")
	f.view = nil
	m = press(t, m, "n")
	if m.err == nil || !stringsContains(m.View(), "disk on fire") {
		t.Fatalf("error not shown:\n%s", m.View())
	}
	m = press(t, m, "T")
	if m.mode != modeThreads || m.threads.err == "" {
		t.Fatalf("threads error: mode %v %q", m.mode, m.threads.err)
	}
}

func TestModel_Help_KeysHereFirst(t *testing.T) {
	f := &fakeSession{info: fakeInfo(), view: &engine.StepView{Thread: "f", Status: engine.StatusDone, Phase: engine.PhaseCheckpoint, CheckpointID: "cp"}}
	m := newTestModel(t, f, Options{Thread: "f"}, 120, 40)
	m = press(t, m, "?")
	v := m.View()
	here, elsewhere, ok := strings.Cut(v, "Keys elsewhere")
	if !ok || stringsContains(here, "next phase") || !stringsContains(here, "checkpoint tree") || !stringsContains(elsewhere, "next phase") {
		t.Fatalf("help after the run is done should list n elsewhere, not here:\n%s", v)
	}
	m = press(t, m, "x")
	if m.mode != modeMain {
		t.Fatal("any key should close the help")
	}
}

var seed = flag.Int64("seed", 0, "seed for TestModel_RandomKeys_NoPanic (0: time)")

// TestModel_RandomKeys_NoPanic hammers every mode with random keys and
// window sizes, on the real engine and on a fake with several interrupts,
// and checks each frame fits the window.
func TestModel_RandomKeys_NoPanic(t *testing.T) {
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed=%d)", s, s)
	pool := []string{"n", "s", "c", "r", "t", "f", "p", "b", "B", "T", "i", "/", "?", "q", "y", "j", "k", "x", "{", "}", "1",
		"d", "m", "R", "C", "W", "E", "L", "w", "left", "right", "len(state.x)",
		"enter", "esc", "tab", "shift+tab", "up", "down", "pgup", "pgdown", "ctrl+s", "ctrl+n", "backspace", "home", "end", "space"}
	for gi, name := range []string{"research", "essay", "mapreduce", "fake"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewSource(s + int64(gi)))
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic with seed %d: %v\n%s", s, r, debug.Stack())
				}
			}()
			var m Model
			if name == "fake" {
				m = newTestModel(t, &fakeSession{info: fakeInfo(), view: twoInterrupts()}, Options{Thread: "f"}, 80, 24)
			} else {
				m = engineModel(t, name, 80, 24)
			}
			for i := 0; i < 300; i++ {
				var msg tea.Msg
				if rng.Intn(40) == 0 {
					msg = tea.WindowSizeMsg{Width: rng.Intn(220), Height: rng.Intn(70)}
				} else {
					msg = keys(pool[rng.Intn(len(pool))])[0]
				}
				if km, ok := msg.(tea.KeyMsg); ok && (km.String() == "q" || km.String() == "y") {
					// Quitting ends the program; keep going instead.
					if !m.typing() {
						continue
					}
				}
				m = send(t, m, msg)
				checkFrame(t, m)
			}
		})
	}
}

func stringsContains(s, sub string) bool { return len(sub) == 0 || indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
