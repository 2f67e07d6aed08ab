package jsonpos

import (
	"encoding/json"
	"testing"
)

func TestDescribe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty input, expected JSON"},
		{"{\n  \"a\": 1,\n}", "invalid JSON at line 3, column 1: invalid character '}' looking for beginning of object key string"},
		{`{"长": x}`, "invalid JSON at line 1, column 7: invalid character 'x' looking for beginning of value"},
		{`{"a": 1`, "invalid JSON at line 1, column 7: unexpected end of JSON input"},
	} {
		var v map[string]any
		err := json.Unmarshal([]byte(c.in), &v)
		if got := Describe([]byte(c.in), err); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
	var v map[string]any
	err := json.Unmarshal([]byte("[1]"), &v)
	if got := Describe([]byte("[1]"), err); got != "invalid JSON at line 1, column 1: json: cannot unmarshal array into Go value of type map[string]interface {}" {
		t.Errorf("type error: %q", got)
	}
}
