package tui

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// slowReader stands for a database across the network. It counts every
// read; the next read after holdNext waits until the test lets it go (or
// its context is cancelled), as a read from a slow server does, and says
// so on entered. Only that one waits: a read made where none should be,
// while a key is handled or the screen drawn, is counted, not hung on.
type slowReader struct {
	inner   savedThread
	calls   atomic.Int32
	mu      sync.Mutex
	hold    bool
	release chan struct{}
	entered chan struct{}
}

func (r *slowReader) holdNext() {
	r.mu.Lock()
	r.hold = true
	r.mu.Unlock()
}

func newSlowReader(inner savedThread) *slowReader {
	return &slowReader{inner: inner, release: make(chan struct{}), entered: make(chan struct{}, 4)}
}

func (r *slowReader) held() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.hold
	r.hold = false
	return h
}

func (r *slowReader) wait(ctx context.Context) error {
	r.calls.Add(1)
	if !r.held() {
		return nil
	}
	r.entered <- struct{}{}
	select {
	case <-r.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *slowReader) Snapshot(ctx context.Context, id string) (*engine.StateSnapshot, error) {
	if err := r.wait(ctx); err != nil {
		return nil, err
	}
	return r.inner.Snapshot(ctx, id)
}

// Changed comes right after Snapshot in the same read: counted, not held.
func (r *slowReader) Changed(ctx context.Context, snap *engine.StateSnapshot) map[string]bool {
	r.calls.Add(1)
	return r.inner.Changed(ctx, snap)
}

func (r *slowReader) Outline(ctx context.Context, before string, limit int) ([]*engine.StateSnapshot, error) {
	if err := r.wait(ctx); err != nil {
		return nil, err
	}
	return r.inner.Outline(ctx, before, limit)
}

// slowTree opens the tree of a research run three supersteps long, its
// reads then made through a slowReader.
func slowTree(t *testing.T) (Model, *slowReader) {
	t.Helper()
	m := engineModel(t, "research", 120, 36)
	m = press(t, m, "s", "s", "s", "t")
	if m.mode != modeTree || len(m.tree.snaps) < 3 || m.tree.selectedWhole() == nil {
		t.Fatalf("tree: mode %v, %d checkpoints, selected read %v", m.mode, len(m.tree.snaps), m.tree.selectedWhole() != nil)
	}
	r := newSlowReader(m.tree.reader.(savedThread))
	m.tree.reader, m.tree.changes, m.tree.planner = r, r, r
	return m, r
}

// inBackground runs cmd, and the Cmds it batches, on another goroutine,
// as bubbletea does, and sends their messages on the channel returned.
func inBackground(t testing.TB, cmd tea.Cmd) <-chan tea.Msg {
	out := make(chan tea.Msg, 8)
	go func() {
		defer close(out)
		eachMsg(t, cmd, func(msg tea.Msg) (tea.Cmd, bool) {
			out <- msg
			return nil, true
		})
	}()
	return out
}

func update(m Model, msg tea.Msg) (Model, tea.Cmd) {
	nm, cmd := m.Update(msg)
	return nm.(Model), cmd
}

// TestTree_ReadsOffTheUIPath: with a store across the network, every
// cursor move in the tree read the checkpoint under it (and planned rows)
// while the key was handled and the screen drawn, so a slow server froze
// the debugger. Now a move reads nothing: the Cmd it returns does, the
// preview says "reading…" meanwhile, the debugger goes on while the read
// waits, an answer about a checkpoint the cursor has left is dropped, and
// the preview fills when the answer about the checkpoint under it comes.
func TestTree_ReadsOffTheUIPath(t *testing.T) {
	m, r := slowTree(t)
	m, cmd := update(m, keys("j")[0])
	view := m.View()
	if n := r.calls.Load(); n != 0 {
		t.Fatalf("a cursor move read %d times while the key was handled and drawn", n)
	}
	if cmd == nil || !strings.Contains(view, "reading…") || m.tree.selectedWhole() != nil {
		t.Fatalf("a cursor move asks nothing (cmd %v) or the preview does not say it reads:\n%s", cmd != nil, view)
	}
	left := m.tree.snaps[m.tree.nav.cur].ID

	r.holdNext()
	answers := inBackground(t, cmd)
	<-r.entered // the read waits on the server
	m, cmd = update(m, keys("j")[0])
	view = m.View()
	if n := r.calls.Load(); n != 1 {
		t.Fatalf("%d reads while one waits, want that one only", n)
	}
	if cmd != nil {
		t.Fatal("a second move asked for another read while one is in flight")
	}
	at := m.tree.snaps[m.tree.nav.cur].ID
	if !strings.Contains(view, "at "+shortID(at)) || !strings.Contains(view, "reading…") {
		t.Fatalf("the screen does not follow the cursor while a read waits:\n%s", view)
	}

	r.release <- struct{}{}
	stale := (<-answers).(treeSnapMsg)
	if stale.id != left || stale.snap == nil {
		t.Fatalf("the first read answered %s (%v), want %s", stale.id, stale.err, left)
	}
	m, cmd = update(m, stale)
	if m.tree.selectedWhole() != nil || m.tree.whole.id == left || !strings.Contains(m.View(), "reading…") {
		t.Fatal("the answer about a checkpoint the cursor has left was taken")
	}
	if cmd == nil {
		t.Fatal("after a stale answer the checkpoint under the cursor is not asked for")
	}

	r.holdNext()
	answers = inBackground(t, cmd)
	<-r.entered
	r.release <- struct{}{}
	m, _ = update(m, <-answers)
	want, err := r.inner.Snapshot(context.Background(), at)
	if err != nil {
		t.Fatal(err)
	}
	got := m.tree.selectedWhole()
	if got == nil || got.Config.CheckpointID != at || !reflect.DeepEqual(got.Values, want.Values) {
		t.Fatalf("the answer about the checkpoint under the cursor was not taken: %+v", got)
	}
	view = m.View()
	if strings.Contains(view, "reading…") || !strings.Contains(view, "sub_queries") {
		t.Fatalf("the preview did not fill:\n%s", view)
	}
}

// TestTree_AnswerToAnotherTreeIgnored: an answer numbered for a read the
// pane did not ask (a tree since replaced, or another thread's) is
// neither taken nor does it end the read in flight.
func TestTree_AnswerToAnotherTreeIgnored(t *testing.T) {
	m, r := slowTree(t)
	m, _ = update(m, keys("j")[0])
	asked := m.tree.asked.selected
	id := m.tree.snaps[m.tree.nav.cur].ID
	snap, err := r.inner.Snapshot(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []treeSnapMsg{
		{thread: m.tree.thread, id: id, seq: asked - 1, snap: snap},
		{thread: "another", id: id, seq: asked, snap: snap},
	} {
		m, _ = update(m, msg)
		if m.tree.selectedWhole() != nil || m.tree.asked.selected != asked {
			t.Fatalf("answer %+v was taken", msg)
		}
	}
}

// TestTree_ForkReadsItsCheckpoint: f on a checkpoint whose values have
// not come yet reads them in a Cmd of its own and opens the fork form
// with them.
func TestTree_ForkReadsItsCheckpoint(t *testing.T) {
	m, r := slowTree(t)
	m, _ = update(m, keys("j")[0]) // its read never answers
	id := m.tree.snaps[m.tree.nav.cur].ID
	m = press(t, m, "f")
	want, err := r.inner.Snapshot(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if m.mode != modeFork || m.fork.cpID != id || !reflect.DeepEqual(m.fork.orig, want.Values) {
		t.Fatalf("fork: mode %v at %s with %v, want %s with %v", m.mode, m.fork.cpID, m.fork.orig, id, want.Values)
	}
}

// TestTree_QuitCancelsReads: quitting cancels a read that waits on the
// server, rather than leaving it to a server that may never answer.
func TestTree_QuitCancelsReads(t *testing.T) {
	m, r := slowTree(t)
	m, cmd := update(m, keys("j")[0])
	r.holdNext()
	answers := inBackground(t, cmd)
	<-r.entered
	_, cmd = update(m, keys("ctrl+c")[0])
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("ctrl+c did not quit")
	}
	if msg := (<-answers).(treeSnapMsg); !errors.Is(msg.err, context.Canceled) {
		t.Fatalf("the read in flight ended with %v, want it cancelled", msg.err)
	}
}
