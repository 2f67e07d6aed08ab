package tui

import (
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A stop because a breakpoint held Task calls names each call and the
// breakpoint that held it, instead of a bare "engine breakpoint".
func TestBreakpointNote_NamesHeldCalls(t *testing.T) {
	if got := breakpointNote(nil); !strings.Contains(got, "engine breakpoint") {
		t.Fatalf("plain breakpoint: %q", got)
	}
	got := breakpointNote([]engine.HeldCall{{Caller: "b", Task: "m", After: true}, {Caller: "c", Task: "search"}})
	for _, want := range []string{"b's call to m (interrupt_after b)", "c's call to search (interrupt_before search)", "returned nothing", "applies the step's writes"} {
		if !strings.Contains(got, want) {
			t.Fatalf("note %q lacks %q", got, want)
		}
	}
}
