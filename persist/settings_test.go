package persist_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/persist"
)

func TestStore_Setting_RoundTripAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	s := openAt(t, path, persist.Options{})
	if doc, err := s.Setting(ctx, "tui/breakpoints/research"); err != nil || doc != nil {
		t.Fatalf("absent setting: %q %v", doc, err)
	}
	if err := s.PutSetting(ctx, "tui/breakpoints/research", []byte(`{"before":["a"]}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutSetting(ctx, "tui/breakpoints/research", []byte(`{"before":["b"]}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path, persist.Options{})
	doc, err := s.Setting(ctx, "tui/breakpoints/research")
	if err != nil || string(doc) != `{"before":["b"]}` {
		t.Fatalf("after reopen: %q %v", doc, err)
	}
	if err := s.Check(); err != nil {
		t.Fatalf("a settings bucket must not upset Check: %v", err)
	}
	if err := s.PutSetting(ctx, "", nil); err == nil {
		t.Fatal("an empty key is accepted")
	}
}
