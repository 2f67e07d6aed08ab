package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/internal/jsonpos"
)

// parseAnswer reads what a person typed as an interrupt answer: JSON when
// it parses, otherwise the text itself as a string. Text that is plainly
// meant as JSON (it starts with { or [) but does not parse is an error,
// not a string: sending it would answer with garbage.
func parseAnswer(s string) (any, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, errors.New("type an answer: JSON, or plain text taken as a string")
	}
	var v any
	if err := json.Unmarshal([]byte(t), &v); err != nil {
		if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") || strings.HasPrefix(t, `"`) {
			return nil, errors.New(jsonpos.Describe([]byte(t), err))
		}
		return t, nil
	}
	return engine.FromJSON(v), nil
}

// parseState reads a JSON object of state keys (fork and new-thread forms).
func parseState(s string) (map[string]any, error) {
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("state: %s", jsonpos.Describe([]byte(s), err))
	}
	if v == nil {
		return nil, errors.New("expected a JSON object of state keys")
	}
	m, _ := engine.FromJSON(v).(map[string]any)
	return m, nil
}

func toJSON(v any) string {
	b, err := json.MarshalIndent(jsonable(v), "", "  ")
	if err != nil {
		return "{}"
	}
	return string(b)
}

// cursorToTop puts a filled text area's cursor on its first line: the
// value reads from the top, and arrows go down into it (SetValue leaves
// the cursor at the end).
func cursorToTop(ta *textarea.Model) {
	// CursorUp moves by rows as wrapped at the area's width, so a long
	// value takes several: go up until the first line, however many.
	for n := ta.Length() + ta.LineCount(); ta.Line() > 0 && n > 0; n-- {
		ta.CursorUp()
	}
	ta.CursorStart()
}

// sizeArea gives a form's text area the room a w-wide box of body height
// bh leaves beside the form's rows of explanation and error, which wrap
// (wrapLines).
func sizeArea(ta *textarea.Model, w, bh, rows int) {
	ta.SetWidth(max(10, w-4))
	ta.SetHeight(max(1, bh-2-rows))
}

// setLineWidth gives a one-line text box w cells. The box keeps the part
// of its text it showed at its old width until the cursor moves, so a
// terminal made wider after typing went on hiding the text's start: the
// cursor is set again where it is, which works out what shows.
func setLineWidth(ti *textinput.Model, w int) {
	if ti.Width == w {
		return
	}
	ti.Width = w
	ti.SetCursor(ti.Position())
}

// lineInput is a one-line text box as every form and filter has it: a
// prompt, a placeholder, a cursor that does not blink (a blinking one
// would redraw the screen twice a second), and at most limit characters
// (0: no limit).
func lineInput(prompt, placeholder string, limit int) textinput.Model {
	ti := textinput.New()
	ti.Prompt, ti.Placeholder = prompt, placeholder
	ti.Cursor.SetMode(cursor.CursorStatic)
	if limit > 0 {
		ti.CharLimit = limit
	}
	return ti
}
