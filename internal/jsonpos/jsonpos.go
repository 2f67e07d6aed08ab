// Package jsonpos says where in a JSON document encoding/json gave up, as
// a person editing it counts: line and column (in characters), not the
// byte offset encoding/json reports. The command line (a --values flag, an
// export file) and the debugger's forms (a fork's state, an answer) name
// the place the same way.
package jsonpos

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Describe is err, from decoding data, with where it happened: "invalid
// JSON at line 3, column 1: …", or "empty input, expected JSON".
func Describe(data []byte, err error) string {
	if len(data) == 0 {
		return "empty input, expected JSON"
	}
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// The offset is just past the byte that could not be read.
		off = se.Offset - 1
	case errors.As(err, &te):
		off = te.Offset - 1
	}
	if off < 0 {
		return "invalid JSON: " + err.Error()
	}
	line, col := LineCol(data, off)
	return fmt.Sprintf("invalid JSON at line %d, column %d: %v", line, col, err)
}

// LineCol converts a byte offset to a 1-based line and column (in runes).
func LineCol(data []byte, off int64) (line, col int) {
	line, col = 1, 1
	for i, r := range string(data) {
		if int64(i) >= off {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
