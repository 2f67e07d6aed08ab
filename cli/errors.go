package cli

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
	"github.com/superstep/superstep/internal/jsonpos"
)

// Exit codes, as documented in the root command's help.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// exitError carries the exit code a command's error maps to. Commands return
// it through usagef/failf so the decision sits next to the cause.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usagef is an input or usage error: exit 2.
func usagef(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// failf is a failure the input did not cause (a run failed, a replay
// diverged): exit 1.
func failf(format string, args ...any) error {
	return &exitError{code: ExitFailure, err: fmt.Errorf(format, args...)}
}

// asUsage marks err as an input error unless it already has a code.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code: ExitUsage, err: err}
}

func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitFailure
}

// decodeJSON parses a JSON document given on the command line or in a file
// into engine form, naming what and where when it is malformed.
func decodeJSON(what string, data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, usagef("%s: %s", what, jsonErrorAt(data, err))
	}
	return engine.FromJSON(v), nil
}

// jsonErrorAt rewrites encoding/json's byte offsets as line and column.
func jsonErrorAt(data []byte, err error) string { return jsonpos.Describe(data, err) }

// errorLines are the lines err prints as (none for nil): one, or for the
// several problems of a scenario file and nothing else (scenario.Errors:
// a graph that does not compile) one a problem, each at its place in the
// file, in the order they are best fixed, as a compiler prints them (a
// file refused for its lint findings: those, then how to go on).
func errorLines(err error) []string {
	if err == nil {
		return nil
	}
	if lr := (*lintRefusal)(nil); errors.As(err, &lr) && lr.Error() == err.Error() {
		return lr.lines()
	}
	var es scenario.Errors
	if errors.As(err, &es) && len(es) > 1 && es.Error() == err.Error() {
		lines := make([]string, len(es))
		for i, e := range es {
			lines[i] = oneLine(e.Error())
		}
		return lines
	}
	return []string{oneLine(err.Error())}
}
