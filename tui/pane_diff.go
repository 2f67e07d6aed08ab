package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
)

// diffPane draws engine.DiffCheckpoints: each channel that differs with
// its versions and the structural changes inside its value, then the
// versions_seen entries that moved. The lines are built once per diff;
// rows with a value open it in the inspector.
type diffPane struct {
	title string
	rows  []taskRow
	nav   listNav
}

func newDiffPane(d *engine.CheckpointDiff, labelA, labelB string, convo map[string]bool) diffPane {
	p := diffPane{title: fmt.Sprintf("Diff · a %s → b %s", labelA, labelB)}
	add := func(r taskRow) { p.rows = append(p.rows, r) }
	if len(d.Channels) == 0 && len(d.Seen) == 0 {
		add(taskRow{text: "the two checkpoints hold the same channels, versions and versions_seen", style: dimStyle})
	}
	for _, c := range d.Channels {
		head := fmt.Sprintf("%s  %s → %s", c.Channel, verText(c.VersionA, c.HasVersionA), verText(c.VersionB, c.HasVersionB))
		if len(c.Changes) == 0 {
			head += "  (version only)"
		}
		add(taskRow{text: head, style: updatedStyle, value: c.ValueB, hasValue: c.HasValueB, name: c.Channel + " at b"})
		for _, ch := range c.Changes {
			path := ch.Path
			if path == "" {
				path = "value"
			}
			if convo[c.Channel] {
				path = conversationPath(path, ch)
			}
			switch ch.Kind {
			case engine.Added:
				add(taskRow{text: "  + " + path + ": " + preview(ch.B, previewBudget), style: addedStyle, value: ch.B, hasValue: true, name: c.Channel + " " + path + " (added)"})
			case engine.Removed:
				add(taskRow{text: "  - " + path + ": " + preview(ch.A, previewBudget), style: removedStyle, value: ch.A, hasValue: true, name: c.Channel + " " + path + " (removed)"})
			default:
				add(taskRow{text: "  ~ " + path + ": " + preview(ch.A, previewBudget/2) + " → " + preview(ch.B, previewBudget/2),
					value: map[string]any{"a": ch.A, "b": ch.B}, hasValue: true, name: c.Channel + " " + path + " (a → b)"})
			}
		}
	}
	if len(d.Seen) > 0 {
		add(taskRow{text: "versions_seen", style: dimStyle})
		for _, s := range d.Seen {
			add(taskRow{text: fmt.Sprintf("  %s · %s  %s → %s", s.Node, s.Channel, verText(s.A, s.HasA), verText(s.B, s.HasB))})
		}
	}
	add(taskRow{text: fmt.Sprintf("%d channels differ, %d unchanged", len(d.Channels), d.Unchanged), style: dimStyle})
	return p
}

// conversationPath names a message change by role, so a diff of a
// messages channel reads as a conversation: [id=m2] → ai m2.
func conversationPath(path string, ch engine.ValueChange) string {
	m, _ := ch.B.(map[string]any)
	if m == nil {
		m, _ = ch.A.(map[string]any)
	}
	if role, ok := m["role"].(string); ok && strings.HasPrefix(path, "[id=") {
		return role + " " + path
	}
	return path
}

func verText(v engine.Version, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("v%d", v)
}

func addedStyle(st Styles) func(...string) string   { return st.Added.Render }
func removedStyle(st Styles) func(...string) string { return st.Removed.Render }

func (p diffPane) selected() (taskRow, bool) {
	if p.nav.cur < len(p.rows) && len(p.rows) > 0 {
		return p.rows[p.nav.cur], true
	}
	return taskRow{}, false
}

func (p diffPane) View(st Styles, w, h int) string {
	body := h - 1
	from, to := p.nav.window(body, len(p.rows))
	out := make([]string, 0, h)
	for i := from; i < to; i++ {
		r := p.rows[i]
		line := cut(r.text, w)
		if i == p.nav.cur {
			line = st.Cursor.Render(pad(ansi.Strip(line), w))
		} else if r.style != nil {
			line = r.style(st)(line)
		}
		out = append(out, line)
	}
	for len(out) < body {
		out = append(out, "")
	}
	out = append(out, st.Dim.Render(cut("↑↓ move · enter inspect · esc close", w)))
	return strings.Join(out, "\n")
}
