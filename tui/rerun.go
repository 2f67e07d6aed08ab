package tui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/recording"
)

// rerunTask runs one task planned from checkpoint cpID alone, against its
// recorded input, with the current code; nothing is written to the
// thread. The result opens as a diff of its writes against the recording.
func (m *Model) rerunTask(cpID, taskID, name string) tea.Cmd {
	m.note = "running " + name + " alone against its recorded input (nothing is written)…"
	m.diffAB = [2]string{name, shortID(cpID)}
	return m.do(opRerun, func(ctx context.Context, s session) opDoneMsg {
		r, err := s.RerunTask(ctx, cpID, taskID)
		return opDoneMsg{rerun: r, err: err}
	})
}

// newRerunPane lays out a rerun: the input, how it ended against what the
// recording saved (recording.JudgeRerun, the command line's exec verdict),
// and its writes against the recorded ones, channel by channel.
func newRerunPane(r *engine.TaskRerun, name, cp string) diffPane {
	p := diffPane{title: fmt.Sprintf("Run alone · %s at %s · current code, recorded input · nothing written", name, cp), rerun: true}
	add := func(row taskRow) { p.rows = append(p.rows, row) }
	add(taskRow{text: "input  " + preview(r.Input, previewBudget), value: r.Input, hasValue: true, name: name + " input"})
	if r.Err != nil {
		add(taskRow{text: glyphFailed + " failed: " + firstLine(r.Err.Error()), style: removedStyle, value: errorDetail(r.Err), hasValue: true, name: name + " error"})
	}
	for _, in := range r.Interrupts {
		add(taskRow{text: glyphAttention + " interrupted: " + preview(in.Value, previewBudget), style: dimStyle, value: in.Value, hasValue: true, name: name + " interrupt"})
	}
	questions := func(verb string) {
		for _, in := range recording.RecordedQuestions(r) {
			add(taskRow{text: "  " + verb + " " + preview(in.Value, previewBudget), style: dimStyle, value: in.Value, hasValue: true, name: name + " recorded question"})
		}
	}
	v := recording.JudgeRerun(r)
	switch v.Kind {
	case recording.NoOutcome:
		add(taskRow{text: "nothing was recorded for this task at this checkpoint (it never ran here, or was cut off before it finished): its writes now are below", style: dimStyle})
	case recording.FailsAgain:
		add(taskRow{text: "= fails as the recording did", style: dimStyle})
	case recording.FailsNow:
		add(taskRow{text: "≠ fails where the recording did not fail so", style: removedStyle})
	case recording.WaitsAsRecorded:
		add(taskRow{text: "= asks what the recording asked: it waits for an answer", style: addedStyle})
	case recording.AsksOtherwise:
		add(taskRow{text: "≠ asks another question than the one the recording waits on:", style: removedStyle})
		questions("recorded")
	case recording.AsksNow:
		add(taskRow{text: "≠ asks a question the recording has no answer for", style: removedStyle})
	case recording.NoLongerAsks:
		add(taskRow{text: "≠ finishes without asking; the recording waits on:", style: removedStyle})
		questions("recorded")
	case recording.RecordingFailed:
		add(taskRow{text: glyphOK + " ran without the error the recording saved: its writes now are below", style: addedStyle})
	case recording.WritesDiffer:
		add(taskRow{text: "≠ writes differ from the recording on " + plural(len(v.Diff), "channel"), style: removedStyle})
		for _, d := range v.Diff {
			add(taskRow{text: "  ~ " + d.Channel + ": " + preview(d.Recorded, previewBudget/2) + " → " + preview(d.Got, previewBudget/2),
				value: map[string]any{"recorded": d.Recorded, "now": d.Got}, hasValue: true, name: d.Channel + " (recorded → now)"})
		}
	default:
		add(taskRow{text: "= wrote the same as the recording", style: addedStyle})
	}
	if rec := r.Recording; rec.Err != nil {
		add(taskRow{text: "recorded: " + glyphFailed + " failed: " + firstLine(rec.Error), style: removedStyle, value: errorDetail(rec.Err), hasValue: true, name: name + " recorded error"})
	}
	writes := func(title, which string, ws []engine.Write) {
		if len(ws) == 0 {
			add(taskRow{text: title + ": none", style: dimStyle}) // not a heading over the next section
			return
		}
		add(taskRow{text: title, style: dimStyle})
		for _, w := range ws {
			add(taskRow{text: "  " + writeText(w), value: w.Value, hasValue: true, name: w.Channel + " (" + which + ")"})
		}
	}
	writes("recorded writes", "recorded", r.Recorded)
	writes("writes now", "now", r.Writes)
	return p
}
