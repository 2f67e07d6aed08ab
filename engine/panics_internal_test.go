package engine

import "testing"

func TestEnclosing(t *testing.T) {
	for name, want := range map[string]string{
		"github.com/superstep/superstep/engine.(*loop).attempt.func1": "github.com/superstep/superstep/engine.(*loop).attempt",
		"github.com/superstep/superstep/engine.reduce.func1.2":        "github.com/superstep/superstep/engine.reduce",
		"gopkg.in/yaml.v3.unmarshal":                                  "gopkg.in/yaml.v3.unmarshal",
		"main.main":                                                   "main.main",
	} {
		if got := enclosing(name); got != want {
			t.Errorf("enclosing(%q) = %q, want %q", name, got, want)
		}
	}
}
