package engine_test

import (
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestReadSavedError_ForeignValues: an error value no run saves (an
// imported thread's) reads as its JSON, cut short, not as Go's %v of it
// ("<nil>", "map[x:1]").
func TestReadSavedError_ForeignValues(t *testing.T) {
	for msg, v := range map[string]any{ // the message, the value saved
		`null`:                           nil,
		`[1,2]`:                          []any{1.0, 2.0},
		`{"x":1}`:                        map[string]any{"x": 1.0},
		`{"$send":{"arg":1,"node":"a"}}`: engine.Send{Node: "a", Arg: 1.0},
		`42`:                             42.0,
		`plain text`:                     "plain text",
	} {
		if got := engine.ReadSavedError(v).Message; got != msg {
			t.Errorf("ReadSavedError(%#v).Message = %q, want %q", v, got, msg)
		}
	}
	long := engine.ReadSavedError([]any{strings.Repeat("é", 500)}).Message
	if len(long) > 210 || !strings.HasSuffix(long, "…") || !strings.HasPrefix(long, `["éé`) {
		t.Errorf("a long value's message is %d bytes: %.60q…", len(long), long)
	}
}
