package engine_test

import (
	"errors"
	"testing"

	"github.com/superstep/superstep/engine"
)

func TestShortID_Forms(t *testing.T) {
	cases := map[string]string{
		"187c4a21-e2c3-cb43-0000-000000000001": "e2c3cb43", // time ids: fast clock digits
		"00000000-0000-0000-0000-000000000042": "000042",   // counter ids: the counter
		"not-an-engine-id":                     "not-an-engine-id",
	}
	for id, want := range cases {
		if got := engine.ShortID(id); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestResolveID_Prefixes(t *testing.T) {
	ids := []string{
		"187c4a21-e2c3-cb43-0000-000000000001",
		"187c4a21-e2c4-0011-0000-000000000002",
		"187c4a22-0000-0001-0000-000000000003",
	}
	for ref, want := range map[string]string{
		ids[0]:          ids[0], // whole id
		"187c4a22":      ids[2], // full-id prefix
		"187c4a21e2c3":  ids[0], // prefix without dashes
		"187c4a21-e2c4": ids[1], // prefix with dashes
		"e2c3cb43":      ids[0], // the short form screens show
		"e2c3c":         ids[0], // a prefix of it
		"E2C40011":      ids[1], // hex is case-blind
		"00000001":      ids[2],
	} {
		got, err := engine.ResolveID(ids, ref)
		if err != nil || got != want {
			t.Errorf("ResolveID(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	_, err := engine.ResolveID(ids, "e2c")
	if !errors.Is(err, engine.ErrAmbiguousID) {
		t.Errorf("ResolveID(e2c) error = %v, want ErrAmbiguousID", err)
	}
	var ie *engine.IDError
	if !errors.As(err, &ie) || len(ie.Matches) != 2 {
		t.Errorf("ambiguous error = %#v, want the two matches", err)
	}
	for _, ref := range []string{"ffff", "", "zz"} {
		if _, err := engine.ResolveID(ids, ref); !errors.Is(err, engine.ErrNoCheckpoint) {
			t.Errorf("ResolveID(%q) error = %v, want ErrNoCheckpoint", ref, err)
		}
	}
}

// TestShortIDAmong: ids whose short forms collide (a program's or an
// import's, whose clock digits are the same) are named whole, the others
// by their short form.
func TestShortIDAmong(t *testing.T) {
	ids := []string{
		"18ed5db7-0000-0000-0000-000000000001",
		"18ed5db7-0000-0000-0000-000000000002",
		"187c4a21-e2c3-cb43-0000-000000000001",
		"cp-a",
	}
	shared := engine.SharedShortIDs(ids)
	for id, want := range map[string]string{ids[0]: ids[0], ids[1]: ids[1], ids[2]: "e2c3cb43", "cp-a": "cp-a"} {
		if got := engine.ShortIDAmong(id, shared); got != want {
			t.Errorf("ShortIDAmong(%s) = %s, want %s", id, got, want)
		}
	}
	if engine.SharedShortIDs(ids[1:]) != nil {
		t.Error("ids whose short forms differ share some")
	}
}
