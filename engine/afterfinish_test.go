package engine

import (
	"reflect"
	"testing"
)

// Translated from LangGraph.js src/tests/channels.test.ts (LastValueAfterFinish,
// NamedBarrierValueAfterFinish): values wait for finish, consume clears.
func TestLastValueAfterFinish(t *testing.T) {
	c := &lastValueAfterFinish{name: "branch:to:qa"}
	if s, ok := c.snapshot(); !ok || s != nil {
		t.Fatalf("an empty channel is stored as null, got %v %v", s, ok)
	}
	if c.finish() {
		t.Fatal("finish of an empty channel is no change")
	}
	c.update([]any{"a", "b"})
	if _, ok := c.get(); ok {
		t.Fatal("a written value is not available before finish")
	}
	if !c.waiting() {
		t.Fatal("a written value waits for finish")
	}
	if c.consume() {
		t.Fatal("consume before finish is no change")
	}
	if !c.finish() {
		t.Fatal("finish of a written channel is a change")
	}
	if v, ok := c.get(); !ok || v != "b" {
		t.Fatalf("after finish the last write is available, got %v %v", v, ok)
	}
	if s, _ := c.snapshot(); !reflect.DeepEqual(s, []any{"b", true}) {
		t.Fatalf("checkpoint is [value, finished], got %v", s)
	}
	r := &lastValueAfterFinish{}
	r.restore([]any{"b", true})
	if v, ok := r.get(); !ok || v != "b" {
		t.Fatal("restore keeps value and finished")
	}
	if !c.consume() {
		t.Fatal("consume after finish clears")
	}
	if _, ok := c.get(); ok || c.waiting() {
		t.Fatal("consumed channel is empty")
	}
	c.update([]any{"x"})
	c.finish()
	c.update([]any{"y"})
	if _, ok := c.get(); ok {
		t.Fatal("a new write makes a finished channel wait again")
	}
}

func TestBarrierAfterFinish(t *testing.T) {
	c := newBarrierAfterFinish("join:a+b:qa", []string{"b", "a"})
	c.update([]any{"a"})
	if c.finish() {
		t.Fatal("an incomplete barrier does not finish")
	}
	c.update([]any{"b"})
	if _, ok := c.get(); ok {
		t.Fatal("a complete barrier waits for finish")
	}
	if !c.finish() {
		t.Fatal("a complete barrier finishes")
	}
	if _, ok := c.get(); !ok {
		t.Fatal("finished and complete is available")
	}
	if s, _ := c.snapshot(); !reflect.DeepEqual(s, []any{[]any{"a", "b"}, true}) {
		t.Fatalf("checkpoint is [seen, finished], got %v", s)
	}
	if !c.consume() {
		t.Fatal("consume resets")
	}
	if s, _ := c.snapshot(); !reflect.DeepEqual(s, []any{[]any{}, false}) {
		t.Fatalf("reset checkpoint, got %v", s)
	}
	if _, err := c.update([]any{"z"}); err == nil {
		t.Fatal("an unknown source is an error")
	}
}
