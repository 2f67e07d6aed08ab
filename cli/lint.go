package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/superstep/superstep/graphs/scenario"
)

// lintMode is what a command does with a scenario file's likely mistakes,
// the findings of scenario.File.Lint: what LangGraph runs but no author
// means (an update key that is no state key, a Send or a route to no
// node). The commands that run a file's nodes (run, tui, replay, exec)
// and graph, which shows a file without running it, take it as --lint.
// The zero value is lintError.
type lintMode string

const (
	// lintError refuses the file, every finding a line, before anything
	// is written: the default, since a mistake the run would drop without
	// a word (a misspelt key's value) is found before it costs a run.
	lintError lintMode = "error"
	// lintWarn warns of each finding and goes on: the file runs as
	// LangGraph runs it (as trace runs it), for a file that means it.
	lintWarn lintMode = "warn"
	// lintOff does not lint: for the commands that run none of the
	// file's nodes (state, history, show, diff, update, and a recorded
	// graph's recursion limit), where a finding changes nothing they
	// do. Not a value of --lint.
	lintOff lintMode = "off"
)

// Set takes --lint's value.
func (m *lintMode) Set(s string) error {
	switch lintMode(s) {
	case lintError, lintWarn:
		*m = lintMode(s)
		return nil
	}
	return fmt.Errorf("want error or warn, got %q", s)
}

// String is the mode as --lint takes it.
func (m *lintMode) String() string {
	if *m == "" {
		return string(lintError)
	}
	return string(*m)
}

// Type names --lint's values in the help.
func (m *lintMode) Type() string { return "error|warn" }

// lintFlagUsage is --lint's line in the help of every command that has it.
const lintFlagUsage = `a scenario file's likely mistakes (an update key that is no state key, a Send or route to no node): error refuses the file before anything is written; warn warns of each and goes on, as LangGraph runs the file`

// addLintFlag gives cmd --lint, into m.
func addLintFlag(cmd *cobra.Command, m *lintMode) {
	cmd.Flags().Var(m, "lint", lintFlagUsage)
}

// linting is how resolveGraph lints a scenario file: the command's mode,
// and where the warnings go (set only for the commands that have
// --lint).
type linting struct {
	mode lintMode
	warn func(string)
}

// lintWith is the linting of a command with --lint m, warning through a.
func (a *App) lintWith(m lintMode) linting { return linting{mode: m, warn: a.warn} }

// noLint is the linting of the commands that run none of a file's nodes.
var noLint = linting{mode: lintOff}

// check lints f as l says: nil when f has no finding, when l warns of
// them (each on its own line) or does not lint; else a *lintRefusal,
// a usage error, which names --lint when the command has it (l.warn is
// set).
func (l linting) check(f *scenario.File) error {
	if l.mode == lintOff {
		return nil
	}
	err := f.Lint()
	if err == nil {
		return nil
	}
	var findings scenario.Errors
	if !errors.As(err, &findings) {
		return asUsage(err)
	}
	if l.mode == lintWarn {
		for _, e := range findings {
			l.warn(e.Error())
		}
		return nil
	}
	return asUsage(&lintRefusal{findings: findings, path: f.Path, flag: l.warn != nil})
}

// lintRefusal is a scenario file refused for its lint findings: each
// finding a line at its place in the file, then, when the command takes
// --lint, a line that says how to run the file as it is.
type lintRefusal struct {
	findings scenario.Errors
	path     string
	flag     bool
}

// lines are the refusal's lines, as the command line prints them.
func (e *lintRefusal) lines() []string {
	lines := make([]string, 0, len(e.findings)+1)
	for _, f := range e.findings {
		lines = append(lines, oneLine(f.Error()))
	}
	if e.flag {
		what, meant := "this mistake", "it is"
		if len(e.findings) > 1 {
			what, meant = "these mistakes", "they are"
		}
		lines = append(lines, fmt.Sprintf("%s: LangGraph runs a file with %s (superstep trace shows what it does); if %s meant, pass --lint=warn to go on as LangGraph does, warning of each", e.path, what, meant))
	}
	return lines
}

func (e *lintRefusal) Error() string {
	out := ""
	for i, l := range e.lines() {
		if i > 0 {
			out += "\n"
		}
		out += l
	}
	return out
}

// Unwrap exposes the findings (scenario.Errors, each a *scenario.Error).
func (e *lintRefusal) Unwrap() error { return e.findings }
