package tui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// rerunTask runs one task planned from checkpoint cpID alone, against its
// recorded input, with the current code; nothing is written to the
// thread. The result opens as a diff of its writes against the recording.
// recordedErr is the error the recording saved for the task, if any.
func (m *Model) rerunTask(cpID, taskID, name, recordedErr string) tea.Cmd {
	m.note = "running " + name + " alone against its recorded input (nothing is written)…"
	m.diffAB = [2]string{name, shortID(cpID)}
	m.rerunRecordedErr = recordedErr
	return m.do(opRerun, func(ctx context.Context, s session) opDoneMsg {
		r, err := s.RerunTask(ctx, cpID, taskID)
		return opDoneMsg{rerun: r, err: err}
	})
}

// newRerunPane lays out a rerun: the input, how it ended, and its writes
// against the recorded ones, channel by channel.
func newRerunPane(r *engine.TaskRerun, name, cp, recordedErr string) diffPane {
	p := diffPane{title: fmt.Sprintf("Run alone · %s at %s · current code, recorded input · nothing written", name, cp)}
	add := func(row taskRow) { p.rows = append(p.rows, row) }
	add(taskRow{text: "input  " + preview(r.Input, previewBudget), value: r.Input, hasValue: true, name: name + " input"})
	switch {
	case r.Err != nil:
		add(taskRow{text: glyphFailed + " failed: " + firstLine(r.Err.Error()), style: removedStyle, value: r.Err.Error(), hasValue: true, name: name + " error"})
	case len(r.Interrupts) > 0:
		for _, in := range r.Interrupts {
			add(taskRow{text: glyphAttention + " interrupted: " + preview(in.Value, previewBudget), style: removedStyle, value: in.Value, hasValue: true, name: name + " interrupt"})
		}
	case len(r.Recorded) == 0 && recordedErr != "":
		add(taskRow{text: glyphOK + " ran without the error the recording saved: its writes now are below", style: addedStyle})
	case len(r.Recorded) == 0:
		add(taskRow{text: "nothing was recorded for this task at this checkpoint (it never ran here): its writes now are below", style: dimStyle})
	case len(r.Diff) == 0:
		add(taskRow{text: "= wrote the same as the recording", style: addedStyle})
	default:
		add(taskRow{text: fmt.Sprintf("≠ writes differ from the recording on %d channel(s)", len(r.Diff)), style: removedStyle})
		for _, d := range r.Diff {
			add(taskRow{text: "  ~ " + d.Channel + ": " + preview(d.Recorded, previewBudget/2) + " → " + preview(d.Got, previewBudget/2),
				value: map[string]any{"recorded": d.Recorded, "now": d.Got}, hasValue: true, name: d.Channel + " (recorded → now)"})
		}
	}
	if recordedErr != "" {
		add(taskRow{text: "recorded: " + glyphFailed + " failed: " + firstLine(recordedErr), style: removedStyle, value: recordedErr, hasValue: true, name: name + " recorded error"})
	}
	add(taskRow{text: "recorded writes", style: dimStyle})
	for _, w := range r.Recorded {
		add(taskRow{text: "  " + w.Channel + " ← " + preview(w.Value, previewBudget), value: w.Value, hasValue: true, name: w.Channel + " (recorded)"})
	}
	add(taskRow{text: "writes now", style: dimStyle})
	for _, w := range r.Writes {
		add(taskRow{text: "  " + w.Channel + " ← " + preview(w.Value, previewBudget), value: w.Value, hasValue: true, name: w.Channel + " (now)"})
	}
	return p
}
