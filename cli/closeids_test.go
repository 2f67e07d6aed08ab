package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSuspectedTypos(t *testing.T) {
	ids := []string{"th-6", "th-10", "research-1", "user-7-run-3", "nightly", "Run-5", "a1", "r2", "ac1"}
	cases := []struct {
		thread string
		want   []string
	}{
		// Numbered series started in parallel, in any order: no typo.
		{"th-3", nil},
		{"th-7", nil},
		{"th-11", nil},
		{"th-06", nil},
		{"research-2", nil},
		{"user-8-run-3", nil}, // every number may differ
		{"user-7-run-4", nil},
		// A difference outside the numbers is one.
		{"reserch-1", []string{"research-1"}},  // a letter dropped
		{"researhc-1", []string{"research-1"}}, // two swapped
		{"research_1", []string{"research-1"}}, // one changed
		{"th6", []string{"th-6"}},              // the separator dropped
		{"th-6x", []string{"th-6"}},            // one added
		{"run-5", []string{"Run-5"}},           // the case of a letter
		{"nightli", []string{"nightly"}},       // no number at all
		{"nightly-1", []string{"nightly"}},     // a number added to a plain id
		// Short ids whose letters differ whole name other series.
		{"m1", nil},
		{"t2", nil},
		{"ab1", []string{"a1", "ac1"}}, // but a letter added or changed in two is a typo
		// A literal '#' is a letter, not a number.
		{"th-#", []string{"th-6"}},
		{"weekly", nil},
	}
	for _, c := range cases {
		if got := suspectedTypos(ids, c.thread); !slices.Equal(got, c.want) {
			t.Errorf("suspectedTypos(%q) = %q, want %q", c.thread, got, c.want)
		}
	}
}

// run starts threads, so a new --thread is no error; one an edit away from
// a thread the database has is more likely a typo of it, and run says so,
// unless only its number differs: scripts start numbered threads in
// parallel, th-3 while th-6 already exists.
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
	run("run", "linear", "--thread", "th-6")
	run("run", "linear", "--thread", "research-1")
	for _, sibling := range []string{"th-3", "th-7", "th-60", "research-2"} {
		if got := run("run", "linear", "--thread", sibling); got != "" {
			t.Fatalf("%s, a thread of a numbered series, warned: %q", sibling, got)
		}
	}
	if got := run("run", "linear", "--thread", "reserch-1"); !strings.Contains(got, `warning: thread "reserch-1" is not in the database`) || !strings.Contains(got, "close ids there: research-1\n") {
		t.Fatalf("no warning naming research-1 alone: %q", got)
	}
	// A character dropped outside the number: th-7 is one edit away.
	if got := run("run", "linear", "--thread", "th7"); !strings.Contains(got, "close ids there: th-7\n") {
		t.Fatalf("no warning naming th-7: %q", got)
	}
	if got := run("run", "linear", "--thread", "nightly-7"); got != "" {
		t.Fatalf("a new thread with no close id warned: %q", got)
	}
	if got := run("run", "linear"); got != "" {
		t.Fatalf("a run without --thread warned: %q", got)
	}
}
