package termtext

import (
	"io"
	"unicode/utf8"
)

// Writer passes text to a terminal with the escapes of Name applied to
// everything but newlines and tabs, which structure output. It is the net
// under a command's output: names are escaped where they are printed (a
// newline in a name must not start a line), and Writer catches any that
// a message carries unescaped. JSON stays valid through it: JSON escapes
// control characters itself, and the characters above U+007F Writer
// escapes come out as \uNNNN.
//
// A character split across two writes is held until the next one; Flush
// writes what is held.
type Writer struct {
	w    io.Writer
	held []byte // the start of a UTF-8 sequence the last write cut off
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it. It reports len(p) on success.
func (t *Writer) Write(p []byte) (int, error) {
	data := p
	if len(t.held) > 0 {
		data = append(t.held, p...)
		t.held = nil
	}
	// Hold a sequence the next write may complete.
	if cut := incompleteTail(data); cut > 0 {
		t.held = append([]byte(nil), data[len(data)-cut:]...)
		data = data[:len(data)-cut]
	}
	out := data
	if !safeOutput(data) {
		out = []byte(escapeOutput(string(data)))
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held partial character, escaped.
func (t *Writer) Flush() error {
	if len(t.held) == 0 {
		return nil
	}
	held := t.held
	t.held = nil
	_, err := io.WriteString(t.w, Name(string(held)))
	return err
}

// incompleteTail returns the length of a UTF-8 sequence cut off at the end
// of b, or 0.
func incompleteTail(b []byte) int {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

// safeOutput is safe for output, where newline and tab are allowed.
func safeOutput(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if c := b[i]; c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			return safe(string(b[i:])) // the slow check from here on
		}
	}
	return true
}

// escapeOutput is Name on each line, keeping newlines and tabs.
func escapeOutput(s string) string {
	var out []byte
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' || s[i] == '\t' {
			out = append(out, Name(s[start:i])...)
			out = append(out, s[i])
			start = i + 1
		}
	}
	return string(append(out, Name(s[start:])...))
}
