package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// hostileThreads is a fake session whose database holds threads named
// with terminal escape sequences.
type hostileThreads struct{ *fakeSession }

const (
	oscThread  = "srv\x1b]52;c;aGk=\a\nFORGED"
	bidiThread = "bidi\u202eevil"
)

func (h hostileThreads) Threads(context.Context) ([]ThreadSummary, error) {
	return []ThreadSummary{
		{ID: oscThread, Graph: "g\x1b[2J", Source: "loop\x9b1m", Updated: fixedNow},
		{ID: bidiThread, Step: 3, Source: "loop", Updated: fixedNow},
	}, nil
}

// TestModel_EscapesNames: the header and the thread picker show thread,
// graph and source names with their escape sequences made visible. (Test
// views have no color, so any raw escape byte in them came from a name.)
func TestModel_EscapesNames(t *testing.T) {
	f := &fakeSession{info: fakeInfo(), view: &engine.StepView{Thread: oscThread, Status: engine.StatusRunning, Phase: engine.PhaseCheckpoint, CheckpointID: "cp", Source: "in\x1bput"}}
	opts := Options{Thread: oscThread, GraphName: "evil\x1b]0;title\a"}
	m := newTestModel(t, hostileThreads{f}, opts, 120, 30)
	screens := map[string]string{"header": m.View()}
	m = press(t, m, "T")
	screens["thread picker"] = m.View()
	for name, screen := range screens {
		for _, bad := range []string{"\x1b", "\a", "\u009b", "\u202e"} {
			if strings.Contains(screen, bad) {
				t.Errorf("%s shows %q raw:\n%s", name, bad, screen)
			}
		}
		for _, line := range strings.Split(screen, "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " │|"), "FORGED") {
				t.Errorf("%s has a line a thread id forged:\n%s", name, screen)
			}
		}
	}
	if !strings.Contains(screens["thread picker"], `bidi\u202eevil`) {
		t.Errorf("thread picker does not list the bidi thread escaped:\n%s", screens["thread picker"])
	}
}
