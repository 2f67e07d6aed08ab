package tui

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
)

// Copying a value out of the inspector (y): a terminal's own selection
// takes the panes' borders and only what is on screen, so the value goes
// whole to the clipboard (OSC 52, which the terminal, or tmux with
// set-clipboard on, may allow) and, since no terminal is sure to, to a file
// the note names.

// copiedMsg reports a copy: where the file is, how many bytes.
type copiedMsg struct {
	what, file string
	size       int
	err        error
}

// clipboardWriter is where the OSC 52 sequence goes: the terminal.
type clipboardWriter func() io.Writer

// unsafeFileChars are replaced in the file name made from the title.
var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// copyValue copies what the inspector shows, as it shows it (JSON, or the
// conversation), to the clipboard and to a new file in the temp directory.
func (m *Model) copyValue() tea.Cmd {
	text := strings.Join(m.insp.lines, "\n") + "\n"
	what := m.insp.title
	ext := ".txt"
	if m.insp.isJSON {
		ext = ".json"
	}
	name := strings.Trim(unsafeFileChars.ReplaceAllString(what, "-"), "-")
	if len(name) > 40 {
		name = name[:40]
	}
	out := m.clipboard
	m.note = "copying " + what + "…"
	return func() tea.Msg {
		f, err := os.CreateTemp("", "superstep-"+name+"-*"+ext)
		if err != nil {
			return copiedMsg{what: what, err: fmt.Errorf("copy %s: %w", what, err)}
		}
		_, err = io.WriteString(f, text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(f.Name())
			return copiedMsg{what: what, err: fmt.Errorf("copy %s to %s: %w", what, f.Name(), err)}
		}
		if out != nil {
			termenv.NewOutput(out()).Copy(text)
		}
		return copiedMsg{what: what, file: f.Name(), size: len(text)}
	}
}

func (m *Model) onCopied(msg copiedMsg) {
	if msg.err != nil {
		m.err = msg.err
		return
	}
	// The file first: a narrow status line cuts the end.
	m.note = fmt.Sprintf("copied to %s (%s of %s), and to the clipboard if the terminal allows OSC 52", msg.file, plural(msg.size, "byte"), msg.what)
}
