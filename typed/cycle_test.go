package typed_test

import (
	"errors"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

type tree struct {
	Name     string  `json:"name"`
	Children []*tree `json:"children"`
}

type link struct {
	N    int   `json:"n"`
	Next *link `json:"next"`
}

// TestEncode_Cycles: a value that contains itself is refused as nested
// too deeply, as the engine refuses it, where its walk overflowed the
// stack (a fatal error no recover catches). A long chain of pointers is
// no cycle: it encodes as deep as the engine allows.
func TestEncode_Cycles(t *testing.T) {
	root := &tree{Name: "root"}
	root.Children = []*tree{{Name: "kid", Children: []*tree{root}}}
	if _, err := typed.Encode(root); !errors.Is(err, engine.ErrValueTooDeep) {
		t.Errorf("a tree that holds its root: %v, want ErrValueTooDeep", err)
	}
	m := map[string]any{}
	m["self"] = m
	if _, err := typed.Encode(struct {
		V any `json:"v"`
	}{m}); !errors.Is(err, engine.ErrValueTooDeep) {
		t.Errorf("a map that holds itself: %v, want ErrValueTooDeep", err)
	}
	var head *link
	for i := range 400 {
		head = &link{N: i, Next: head}
	}
	v, err := typed.Encode(head)
	if err != nil {
		t.Fatalf("a chain of 400 links: %v", err)
	}
	if _, err := engine.EncodeValue(v); err != nil {
		t.Fatalf("the engine refuses the chain's encoding: %v", err)
	}
}
