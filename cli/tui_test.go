package cli

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/persist"
)

// The debugger gets the database under the graph recorder the command
// wraps it in: that is where breakpoints, watches and run settings are
// kept, and whose durability the run settings set.
func TestTUIOptions_SettingsAndDurabilityThroughTheRecorder(t *testing.T) {
	st, err := persist.Open(filepath.Join(t.TempDir(), "t.db"), persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := tuiOptions(DebugOptions{GraphName: "research", Saver: &graphRecorder{Store: st}})
	if opts.Settings == nil {
		t.Fatal("no settings store: breakpoints and run settings would not be kept")
	}
	ctx := context.Background()
	if err := opts.Settings.PutSetting(ctx, "k", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if doc, err := st.Setting(ctx, "k"); err != nil || string(doc) != `{}` {
		t.Fatalf("setting reached the store as %q, %v", doc, err)
	}
	if opts.Durability == nil || opts.SetDurability == nil || opts.Durability() != "sync" {
		t.Fatal("the run settings cannot show or set the durability")
	}
	if err := opts.SetDurability("exit"); err != nil || st.Durability() != persist.DurabilityExit {
		t.Fatalf("SetDurability(exit): %v, store at %v", err, st.Durability())
	}
	if err := opts.SetDurability("never"); err == nil {
		t.Fatal("an unknown durability was accepted")
	}
}

// The debugger's usual, shared database keeps settings too, and its
// durability can be set: exit buffers (holding the file), sync commits.
func TestTUIOptions_SharedDatabase(t *testing.T) {
	sh, err := persist.OpenShared(filepath.Join(t.TempDir(), "s.db"), persist.Options{})
	if errors.Is(err, persist.ErrSharedUnsupported) {
		t.Skip("no shared opens on this platform")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	opts := tuiOptions(DebugOptions{GraphName: "research", Saver: &graphRecorder{Store: sh}})
	ctx := context.Background()
	if opts.Settings == nil {
		t.Fatal("no settings store on a shared database")
	}
	if err := opts.Settings.PutSetting(ctx, "k", []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if doc, err := sh.Setting(ctx, "k"); err != nil || string(doc) != `{"a":1}` {
		t.Fatalf("setting %q, %v", doc, err)
	}
	if opts.Durability() != "sync" || opts.SetDurability("sync") != nil {
		t.Fatal("sync is the shared database's durability")
	}
	if err := opts.SetDurability("exit"); err != nil || opts.Durability() != "exit" {
		t.Fatalf("SetDurability(exit) on a shared database: %v, now %s", err, opts.Durability())
	}
	if err := opts.SetDurability("sync"); err != nil || sh.Durability() != persist.DurabilitySync {
		t.Fatalf("back to sync: %v", err)
	}
}
