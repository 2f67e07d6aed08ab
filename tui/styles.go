package tui

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/superstep/superstep/engine"
)

// Styles is every style the debugger uses, by meaning rather than by look,
// so a theme is one constructor.
type Styles struct {
	App, Header, HeaderDim, Footer lipgloss.Style // the frame: whole screen, header line, footer (help)

	// Where the run is held.
	PhasePlan, PhaseExecute, PhaseUpdate, Running, Interrupted, Done, Failed lipgloss.Style

	Border, BorderFocused, Title, TitleFocused lipgloss.Style // pane borders and titles, unfocused and focused

	// Task states in the graph and tasks panes.
	TaskPlanned, TaskRunning, TaskDone, TaskInterrupted, TaskFailed, TaskReused lipgloss.Style
	// TaskCached: writes taken from the node cache; TaskWaiting: a
	// deferred node triggered and waiting for the run to run out of work.
	TaskCached, TaskWaiting lipgloss.Style

	Cursor          lipgloss.Style // the selected row
	Current         lipgloss.Style // the current checkpoint in the tree
	Updated         lipgloss.Style // a channel the last Update changed
	Stale           lipgloss.Style // versions_seen cell behind the channel: the node is due
	Unavailable     lipgloss.Style // a channel that holds no value now
	Breakpoint      lipgloss.Style // breakpoints and watched channels
	Edge, CondEdge  lipgloss.Style // fixed and conditional edges in the graph pane
	Dim, Key, Label lipgloss.Style // secondary text, key names, field labels
	Error, Notice   lipgloss.Style // error and notice messages
	Branch          lipgloss.Style // tree lanes
	Added, Removed  lipgloss.Style // diff lines
}

// The glyphs that mark a state in a row of text, in one place. Each is one
// cell wide in every terminal: none is an emoji character (Unicode's
// Extended_Pictographic: ⚠ ⏸ ◀ ⚙ ↪ ✎ were), which lipgloss counts as one
// cell but terminals that give such characters emoji width (tmux with
// some fonts and settings, kitty, WezTerm, Windows Terminal) draw as two,
// pushing the pane's right border out by a cell on that row.
// TestGlyphs_OneCellEverywhere checks every character the package draws,
// these and the ones drawn in place (● ○ ◆ ◉ for breakpoints, marks and
// the tree, box drawing).
const (
	glyphAttention = "△" // an interrupt, or something that could not be read
	glyphFailed    = "✗"
	glyphOK        = "✓"
	glyphWaiting   = "‖" // a deferred node waiting for the run to run out of work
	glyphStale     = "◂" // a versions_seen cell behind its channel
	glyphToolCall  = "ƒ" // a tool call in a conversation, as "ƒ call" is a task's
	glyphGoto      = "↳" // a Command goto edge
	glyphRoute     = "→" // a write that sends the run to a node, as an edge does
	glyphEdited    = "✱" // writes edited by hand
)

// DefaultStyles is the dark-terminal theme.
func DefaultStyles() Styles {
	c := func(s string) lipgloss.Color { return lipgloss.Color(s) }
	b := lipgloss.NewStyle
	return Styles{
		App:       b(),
		Header:    b().Bold(true),
		HeaderDim: b().Foreground(c("245")),
		Footer:    b().Foreground(c("245")),

		PhasePlan:    b().Bold(true).Foreground(c("0")).Background(c("39")),
		PhaseExecute: b().Bold(true).Foreground(c("0")).Background(c("214")),
		PhaseUpdate:  b().Bold(true).Foreground(c("0")).Background(c("78")),
		Running:      b().Bold(true).Foreground(c("0")).Background(c("141")),
		Interrupted:  b().Bold(true).Foreground(c("0")).Background(c("203")),
		Done:         b().Bold(true).Foreground(c("0")).Background(c("250")),
		Failed:       b().Bold(true).Foreground(c("15")).Background(c("160")),

		Border:        b().Foreground(c("240")),
		BorderFocused: b().Foreground(c("39")),
		Title:         b().Foreground(c("250")),
		TitleFocused:  b().Bold(true).Foreground(c("39")),

		TaskPlanned:     b().Foreground(c("39")),
		TaskRunning:     b().Bold(true).Foreground(c("214")),
		TaskDone:        b().Foreground(c("78")),
		TaskInterrupted: b().Bold(true).Foreground(c("203")),
		TaskFailed:      b().Bold(true).Foreground(c("160")),
		TaskReused:      b().Foreground(c("109")),
		TaskCached:      b().Foreground(c("109")).Italic(true),
		TaskWaiting:     b().Foreground(c("245")),

		Cursor:      b().Reverse(true),
		Current:     b().Bold(true).Foreground(c("214")),
		Updated:     b().Bold(true).Foreground(c("214")),
		Stale:       b().Bold(true).Foreground(c("203")),
		Unavailable: b().Foreground(c("240")),
		Breakpoint:  b().Bold(true).Foreground(c("160")),
		Edge:        b().Foreground(c("250")),
		CondEdge:    b().Foreground(c("141")),
		Dim:         b().Foreground(c("245")),
		Key:         b().Bold(true).Foreground(c("39")),
		Label:       b().Foreground(c("109")),
		Error:       b().Bold(true).Foreground(c("203")),
		Notice:      b().Foreground(c("78")),
		Branch:      b().Foreground(c("141")),
		Added:       b().Foreground(c("78")),
		Removed:     b().Foreground(c("203")),
	}
}

// jsonStyle is how the inspector colors JSON, in the palette of
// DefaultStyles: keys like Key, strings like Notice, numbers like
// CondEdge, true/false/null like Updated, punctuation like Dim.
func jsonStyle() *chroma.Style {
	return chroma.MustNewStyle("superstep", chroma.StyleEntries{
		chroma.NameTag:             "#00afff",
		chroma.LiteralStringDouble: "#5fd787",
		chroma.LiteralNumber:       "#af87ff",
		chroma.KeywordConstant:     "#ffaf00",
		chroma.Punctuation:         "#8a8a8a",
	})
}

// task returns the style of a task state.
func (s Styles) task(st engine.TaskState, running bool) lipgloss.Style {
	if running && st == engine.TaskPlanned {
		return s.TaskRunning
	}
	switch st {
	case engine.TaskDone:
		return s.TaskDone
	case engine.TaskInterrupted:
		return s.TaskInterrupted
	case engine.TaskFailed:
		return s.TaskFailed
	case engine.TaskReused:
		return s.TaskReused
	case engine.TaskCached:
		return s.TaskCached
	}
	return s.TaskPlanned
}

// box draws content in a rounded border of exactly w×h cells with title in
// the top edge. Lines are cut and padded by display width, so wide (CJK)
// text and ANSI styles never push the layout.
func (s Styles) box(title, content string, w, h int, focused bool) string {
	if w < 4 || h < 2 {
		return fit(content, max(w, 0), max(h, 0))
	}
	bs, ts := s.Border, s.Title
	if focused {
		bs, ts = s.BorderFocused, s.TitleFocused
	}
	iw, ih := w-2, h-2
	t := ansi.Truncate(" "+title+" ", iw-1, "…")
	top := bs.Render("╭─") + ts.Render(t) + bs.Render(strings.Repeat("─", max(0, iw-1-lipgloss.Width(t)))+"╮")
	var b strings.Builder
	b.WriteString(top)
	side := bs.Render("│")
	for _, line := range fitLines(content, iw, ih) {
		b.WriteString("\n" + side + line + side)
	}
	b.WriteString("\n" + bs.Render("╰"+strings.Repeat("─", iw)+"╯"))
	return b.String()
}

// fitLines cuts or pads content to exactly h lines of exactly w cells.
func fitLines(content string, w, h int) []string {
	lines := strings.Split(content, "\n")
	out := make([]string, max(h, 0))
	for i := range out {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		out[i] = pad(l, w)
	}
	return out
}

// fit is fitLines joined.
func fit(content string, w, h int) string { return strings.Join(fitLines(content, w, h), "\n") }

// pad cuts s to w cells (with an ellipsis) or pads it with spaces to w.
func pad(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := lipgloss.Width(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = lipgloss.Width(s)
	}
	return s + strings.Repeat(" ", max(0, w-sw))
}

// cutTrigger fits trigger channel name into w cells. A branch:to:…
// channel that does not fit whole is named for the node it triggers,
// →node; what still does not fit is cut in the middle, as ids are, so
// that neither its kind nor its node is cut to a stray "…nch:to:".
func cutTrigger(name string, w int) string {
	if lipgloss.Width(name) <= w {
		return name
	}
	if node, ok := strings.CutPrefix(name, engine.BranchPrefix); ok {
		name = "→" + node
	}
	return cutMiddle(name, w)
}

// cutMiddle keeps both ends of plain text s in w cells, … between them,
// taking a cell from the end first: ids of a series share their start
// and differ at the end.
func cutMiddle(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	if w <= 1 {
		return cut(s, w)
	}
	r := []rune(s)
	i, j := 0, len(r) // kept: r[:i] and r[j:]
	used := 1         // the …
	for i < j {
		k := i // the next rune kept: from the end while it is not longer
		if len(r)-j <= i {
			k = j - 1
		}
		cw := lipgloss.Width(string(r[k]))
		if used+cw > w {
			break
		}
		used += cw
		if k == i {
			i++
		} else {
			j--
		}
	}
	return string(r[:i]) + "…" + string(r[j:])
}

// wrapLines lays styled text s out in lines of at most w cells, broken
// at spaces (a word longer than a line is broken where it ends), each
// line keeping the styles it spans. A form's explanation and its error
// are read whole so in a narrow window, where cutting them took what to
// do next.
func wrapLines(s string, w int) []string {
	return strings.Split(lipgloss.NewStyle().Width(max(w, 1)).Render(s), "\n")
}

// cut truncates s to w cells with an ellipsis, without padding.
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}
