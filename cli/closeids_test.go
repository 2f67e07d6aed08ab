package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCloseThreadIDs(t *testing.T) {
	ids := []string{"t-42", "t-17", "prod-thread-42", "prod-thread-43", "Prod-Thread-24", "research", "7d3f0a52-1c9e-4b8a-9f21-0e5c6d7a8b90"}
	cases := []struct {
		typed string
		want  []string
	}{
		{"t-24", []string{"t-42"}}, // two letters swapped
		{"t-4", []string{"t-42"}},  // cut short
		{"t-99", nil},              // another id, not a typo
		{"prod-thread-24", []string{"Prod-Thread-24", "prod-thread-42"}}, // case, then a swap
		{"prod-thread-4", []string{"Prod-Thread-24", "prod-thread-42", "prod-thread-43"}},
		{"prod-thread-99", nil},
		{"reserch", []string{"research"}},
		{"research", nil}, // itself
		{"7d3f0a52-1c9e-4b8a-9f21-0e5c6d7a8b9", []string{"7d3f0a52-1c9e-4b8a-9f21-0e5c6d7a8b90"}},
		{"7d3f0a52-1c9e-4b8a-9f21-0e5c6d7a8c91", []string{"7d3f0a52-1c9e-4b8a-9f21-0e5c6d7a8b90"}},
	}
	for _, c := range cases {
		if got := closeThreadIDs(ids, c.typed); !slices.Equal(got, c.want) && (len(got) > 0 || len(c.want) > 0) {
			t.Errorf("closeThreadIDs(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}

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
