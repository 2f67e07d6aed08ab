package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestContinuesSeries(t *testing.T) {
	ids := []string{"run-1", "run-2", "run-10", "user-7-run-3", "research", "t-42"}
	cases := []struct {
		thread string
		want   bool
	}{
		{"run-11", true},
		{"run-3", false}, // below run-10: a typo of it, or a gap refilled
		{"run-2", false}, // itself
		{"user-7-run-4", true},
		{"user-8-run-4", true}, // the last number decides
		{"t-24", false},        // a swap of t-42
		{"t-43", true},
		{"research2", false}, // no sibling with a number
		{"nightly", false},
		{"run-99999999999999999999", false}, // too long to compare
	}
	for _, c := range cases {
		if got := continuesSeries(ids, c.thread); got != c.want {
			t.Errorf("continuesSeries(%q) = %v, want %v", c.thread, got, c.want)
		}
	}
}

// run starts threads, so a new --thread is no error; one an edit away from
// a thread the database has is more likely a typo of it, and run says so.
func TestRun_NewThreadCloseToAnotherWarns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	var out, errb bytes.Buffer
	app := &App{Stdout: &out, Stderr: &errb}
	run := func(args ...string) string {
		t.Helper()
		errb.Reset()
		if code := app.Run(context.Background(), append(args, "--db", db)); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errb.String())
		}
		return errb.String()
	}
	run("run", "linear", "--thread", "t-42")
	if got := run("run", "linear", "--thread", "t-24"); !strings.Contains(got, `warning: thread "t-24" is not in the database`) || !strings.Contains(got, "close ids there: t-42") {
		t.Fatalf("no warning naming t-42: %q", got)
	}
	// The next of a numbered series is no typo: t-43 after t-42.
	if got := run("run", "linear", "--thread", "t-43"); got != "" {
		t.Fatalf("the next thread of a series warned: %q", got)
	}
	// One below the series' last is still more likely a typo.
	if got := run("run", "linear", "--thread", "t-41"); !strings.Contains(got, "close ids there: t-42, t-43") {
		t.Fatalf("no warning naming t-42, t-43: %q", got)
	}
	if got := run("run", "linear", "--thread", "nightly-7"); got != "" {
		t.Fatalf("a new thread with no close id warned: %q", got)
	}
	if got := run("run", "linear"); got != "" {
		t.Fatalf("a run without --thread warned: %q", got)
	}
}
