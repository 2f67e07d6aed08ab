//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A program that hosts the command line (cli.Main) stops a run on Ctrl-C
// as superstep does: the run cancels what still runs, saves what finished
// and says how to go on. Such a program was killed by the first Ctrl-C.
func TestMain_CtrlCStopsARunOfAHostingProgram(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	cmd, lines, _ := startUntil(t, os.Args[0], []string{signalHelper + "=" + db}, "stubborn node started")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
	}
	cmd.Wait()
	stderr := cmd.Stderr.(interface{ String() string }).String()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr, "thread s1: cancelled: the run was stopped") {
		t.Fatalf("after Ctrl-C: %v, stderr %q; want exit 1 saying the run was stopped", cmd.ProcessState, stderr)
	}
}

// After the first Ctrl-C, the signals take their default action again: a
// stop that waits on something that does not answer (a database server
// that stopped answering) ends at the second Ctrl-C. Every Ctrl-C after
// the first was swallowed.
func TestWithSignals_SecondCtrlCEndsTheProcess(t *testing.T) {
	t.Parallel()
	cmd, lines, _ := startUntil(t, os.Args[0], []string{signalHelper + "=wait"}, "ready")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() && lines.Text() != "stopping" {
	}
	// The default action comes back just after "stopping" is printed:
	// again until the process ends.
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for ended := false; !ended; {
		select {
		case <-done:
			ended = true
		case <-tick.C:
			cmd.Process.Signal(os.Interrupt)
		}
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("the process ended with %v, want it ended by the second Ctrl-C", cmd.ProcessState)
	}
}
