//go:build unix

package enginetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// SideLog is a file of lines that several processes append to in turn. A
// crash test's helper process notes in it what it did ("enter fast1",
// "saved fast1"), and the parent reads it, across the kill, to know when to
// kill and how often each node ran in both processes.
type SideLog struct {
	mu   sync.Mutex
	Path string
}

// Add appends one line. It panics on an I/O error: inside a node the
// engine turns that into a failed run, which the parent reports.
func (l *SideLog) Add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		panic(err)
	}
	_, err = fmt.Fprintf(f, format+"\n", args...)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		panic(err)
	}
}

// Lines returns the file's complete lines (none if it does not exist).
func (l *SideLog) Lines() []string {
	data, err := os.ReadFile(l.Path)
	if err != nil {
		return nil
	}
	out := strings.Split(string(data), "\n")
	return out[:len(out)-1] // a line being written has no newline yet
}

// Count returns how many lines equal line.
func (l *SideLog) Count(line string) int {
	n := 0
	for _, got := range l.Lines() {
		if got == line {
			n++
		}
	}
	return n
}

// Events is an engine event listener that notes "saved NODE" once a task's
// writes were saved (the engine emits its result after PutWrites returned)
// and "checkpoint STEP" for each checkpoint.
func (l *SideLog) Events(e engine.Event) {
	switch e.Kind {
	case engine.EventTaskResult:
		if e.Err == nil {
			l.Add("saved %s", e.Node)
		}
	case engine.EventCheckpoint:
		l.Add("checkpoint %d", e.Metadata.Step)
	}
}

// FanGraph is START → {fast1, fast2, slow} → after → END over an appended
// "log" and a last-value "last" (slow writes "slow"; after writes how many
// entries it read and the last it saw, so a resumed run shows it read
// slow's write). Every node notes in side that it was entered. When
// slowBlocks, slow blocks until its context ends — first, if settled is
// not nil, it waits for settled (a store's "everything queued is
// committed") and notes "durable". A crash test kills a helper running it
// while slow blocks, after fast1 and fast2 were saved, and expects the
// resumed run to reuse them.
func FanGraph(s engine.Saver, side *SideLog, slowBlocks bool, settled func(context.Context) error) (*engine.Graph, error) {
	fast := func(name string) engine.NodeFunc {
		return func(context.Context, any) (any, error) {
			side.Add("enter %s", name)
			return map[string]any{"log": []any{name}}, nil
		}
	}
	slow := func(ctx context.Context, _ any) (any, error) {
		side.Add("enter slow")
		if slowBlocks {
			if settled != nil {
				if err := settled(ctx); err != nil {
					return nil, err
				}
				side.Add("durable")
			}
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return map[string]any{"log": []any{"slow"}, "last": "slow"}, nil
	}
	after := func(_ context.Context, in any) (any, error) {
		side.Add("enter after")
		st, _ := in.(map[string]any)
		log, _ := st["log"].([]any)
		return engine.Update{
			{Key: "log", Value: []any{"after"}},
			{Key: "last", Value: fmt.Sprintf("after %d entries, last %v", len(log), st["last"])},
		}, nil
	}
	return engine.NewStateGraph(engine.AppendKey("log"), engine.LastValueKey("last")).
		AddNode("fast1", fast("fast1")).
		AddNode("fast2", fast("fast2")).
		AddNode("slow", slow).
		AddNode("after", after).
		AddEdge(engine.Start, "fast1").
		AddEdge(engine.Start, "fast2").
		AddEdge(engine.Start, "slow").
		AddJoin([]string{"fast1", "fast2", "slow"}, "after").
		AddEdge("after", engine.End).
		Compile(engine.WithSaver(s))
}

// Helper is the running test binary started again as a helper process
// that runs one test function (which skips unless its environment says
// it is a helper).
type Helper struct {
	Cmd    *exec.Cmd
	out    bytes.Buffer // stdout and stderr; read after Exited
	exited chan struct{}
	err    error // Wait's error, set before exited is closed
}

// StartHelper runs test (a test function's name) in a new process of this
// test binary with env added to the environment. The process is killed
// when t ends, if it still runs.
func StartHelper(t testing.TB, test string, env ...string) *Helper {
	t.Helper()
	h := &Helper{exited: make(chan struct{})}
	h.Cmd = exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.timeout=5m")
	h.Cmd.Env = append(os.Environ(), env...)
	h.Cmd.Stdout, h.Cmd.Stderr = &h.out, &h.out
	if err := h.Cmd.Start(); err != nil {
		t.Fatalf("start helper: %v", err)
	}
	go func() {
		h.err = h.Cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-h.exited:
		default:
			h.Cmd.Process.Kill()
			<-h.exited
		}
	})
	return h
}

// Wait waits for the helper to exit and returns its output and Wait's
// error.
func (h *Helper) Wait() (output string, err error) {
	<-h.exited
	return h.out.String(), h.err
}

// WaitFor polls side until it has every line of want, failing t if the
// helper exits first or timeout passes.
func (h *Helper) WaitFor(t testing.TB, side *SideLog, timeout time.Duration, want ...string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		lines := side.Lines()
		if !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(lines, w) }) {
			return
		}
		select {
		case <-h.exited:
			t.Fatalf("helper exited (%v) before writing %q; side file:\n%s\nhelper output:\n%s",
				h.err, want, strings.Join(side.Lines(), "\n"), h.out.String())
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %q; side file:\n%s", timeout, want, strings.Join(lines, "\n"))
		}
	}
}

// Kill SIGKILLs the helper and checks that the signal is what ended it.
func (h *Helper) Kill(t testing.TB) {
	t.Helper()
	if err := h.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill helper: %v", err)
	}
	select {
	case <-h.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("helper still running 10s after SIGKILL")
	}
	ws, ok := h.Cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("helper ended by %v, not by our SIGKILL; output:\n%s", h.Cmd.ProcessState, h.out.String())
	}
}
