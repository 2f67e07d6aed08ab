package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// treeFind is the checkpoint tree's / search: the checkpoints whose id
// starts with what is typed (the short form every command prints, or the
// whole id), or of a step ("7", "step 7"), or of a source ("fork",
// "update"). Typing moves the cursor to the first match; ↑/↓ go to the
// previous / next; enter keeps the place, esc goes back to where it was.
type treeFind struct {
	on    bool
	input textinput.Model
	from  int // the checkpoint selected when the search opened
	found []int
	at    int // index into found of the selected match
}

func (p *treePane) openFind() tea.Cmd {
	p.find = treeFind{on: true, input: lineInput("find › ", "checkpoint id prefix, step or source", 100), from: p.nav.cur}
	return p.find.input.Focus()
}

// findKey handles a key while the search box is open.
func (p *treePane) findKey(msg tea.KeyMsg) tea.Cmd {
	k := &p.keys
	switch {
	case key.Matches(msg, k.Back):
		p.nav.cur, p.find.on = p.find.from, false
		return nil
	case key.Matches(msg, k.Open):
		p.find.on = false
		return nil
	case key.Matches(msg, k.Down):
		p.stepMatch(1)
		return nil
	case key.Matches(msg, k.Up):
		p.stepMatch(-1)
		return nil
	}
	var cmd tea.Cmd
	p.find.input, cmd = p.find.input.Update(msg)
	p.find.found = p.matches(p.find.input.Value())
	p.find.at = 0
	if len(p.find.found) > 0 {
		p.nav.cur = p.find.found[0]
	} else {
		p.nav.cur = p.find.from
	}
	return cmd
}

func (p *treePane) stepMatch(d int) {
	n := len(p.find.found)
	if n == 0 {
		return
	}
	p.find.at = ((p.find.at+d)%n + n) % n
	p.nav.cur = p.find.found[p.find.at]
}

// matches are the checkpoints (newest first) that q names.
func (p treePane) matches(q string) []int {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return nil
	}
	step, isStep := -2, false
	if n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(q, "step"))); err == nil {
		step, isStep = n, true
	}
	var out []int
	for i, h := range p.snaps {
		id := strings.ToLower(h.ID)
		if strings.HasPrefix(strings.ToLower(shortID(h.ID)), q) || strings.HasPrefix(id, q) ||
			isStep && h.Step == step || strings.ToLower(h.Source) == q {
			out = append(out, i)
		}
	}
	return out
}

// findLine is the search box with how many checkpoints match.
func (p treePane) findLine() string {
	q := strings.TrimSpace(p.find.input.Value())
	switch {
	case q == "":
		return p.find.input.View()
	case len(p.find.found) == 0:
		// What it finds by, for a word of a row's text (a node's name,
		// "failed"), which the checkpoints' heads do not hold.
		return p.find.input.View() + "  no match (id prefix, step, source)"
	}
	return p.find.input.View() + fmt.Sprintf("  %d of %d", p.find.at+1, len(p.find.found))
}
