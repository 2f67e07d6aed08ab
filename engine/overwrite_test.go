package engine

import (
	"errors"
	"reflect"
	"testing"
)

// Translated from LangGraph.js src/tests/channels.test.ts "with Overwrite"
// (lines 314-432) and Python tests/test_channels.py Overwrite cases.
func TestReducerChannel_Overwrite(t *testing.T) {
	sum := func(a, b any) (any, error) { return a.(float64) + b.(float64), nil }
	newSum := func() *reducerChannel { return &reducerChannel{name: "n", fn: sum, val: 0.0, has: true} }
	newList := func() *reducerChannel {
		return &reducerChannel{name: "l", fn: AppendReducer, appendOnly: true, val: []any{"a"}, has: true}
	}

	t.Run("bypasses the reducer", func(t *testing.T) {
		c := newList()
		c.update([]any{[]any{"b"}})
		if changed, err := c.update([]any{Overwrite{Value: []any{"replaced"}}}); err != nil || !changed {
			t.Fatalf("changed=%v err=%v", changed, err)
		}
		if v, _ := c.get(); !reflect.DeepEqual(v, []any{"replaced"}) {
			t.Fatalf("got %v", v)
		}
	})
	t.Run("two in one step are an error", func(t *testing.T) {
		c := newSum()
		_, err := c.update([]any{Overwrite{Value: 10.0}, Overwrite{Value: 20.0}})
		var iu *InvalidUpdateError
		if !errors.As(err, &iu) {
			t.Fatalf("want InvalidUpdateError, got %v", err)
		}
	})
	t.Run("plain writes after it are ignored", func(t *testing.T) {
		c := newSum()
		c.update([]any{Overwrite{Value: 100.0}, 50.0})
		if v, _ := c.get(); v != 100.0 {
			t.Fatalf("got %v", v)
		}
	})
	t.Run("plain writes before it are applied, then it wins", func(t *testing.T) {
		c := newSum()
		c.update([]any{10.0, Overwrite{Value: 42.0}})
		if v, _ := c.get(); v != 42.0 {
			t.Fatalf("got %v", v)
		}
	})
	t.Run("may set an empty list", func(t *testing.T) {
		c := newList()
		c.update([]any{Overwrite{Value: []any{}}})
		if v, _ := c.get(); !reflect.DeepEqual(v, []any{}) {
			t.Fatalf("got %v", v)
		}
	})
	t.Run("as the first value of an empty channel", func(t *testing.T) {
		c := &reducerChannel{name: "n", fn: sum}
		c.update([]any{Overwrite{Value: 42.0}, 1.0})
		if v, _ := c.get(); v != 43.0 {
			t.Fatalf("got %v", v)
		}
	})
	t.Run("wire forms after storage", func(t *testing.T) {
		for _, w := range []any{
			Normalize(Overwrite{Value: 7}),
			map[string]any{"type": OverwriteKey, "value": 7.0},
		} {
			c := newSum()
			c.update([]any{1.0, w})
			if v, _ := c.get(); v != 7.0 {
				t.Fatalf("%v: got %v", w, v)
			}
		}
	})
	t.Run("snapshot holds the plain value", func(t *testing.T) {
		c := newList()
		c.update([]any{Overwrite{Value: []any{"x"}}})
		if s, _ := c.snapshot(); !reflect.DeepEqual(s, []any{"x"}) {
			t.Fatalf("got %v", s)
		}
	})
}
