package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/tui"
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
	opts := tuiOptions(context.Background(), DebugOptions{GraphName: "research", Saver: &graphRecorder{Store: st}})
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
	opts := tuiOptions(context.Background(), DebugOptions{GraphName: "research", Saver: &graphRecorder{Store: sh}})
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

// The debugger shows a scenario file by its own name, or else by the
// file's base name without extension, never by the whole path typed; its
// settings are kept under the file's clean absolute path (the name the
// thread's graph record finds it by), the same from any directory and
// however the path was written. A built-in keeps its name for both.
func TestTUI_ScenarioTitleAndSettingsKey(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "approve.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "name")
	nameless, _ := json.Marshal(doc)
	if err := os.MkdirAll(filepath.Join(dir, "flows"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "flows", "my-flow.json"), nameless, 0o644); err != nil {
		t.Fatal(err)
	}
	named, err := filepath.Abs(filepath.Join("testdata", "approve.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ arg, title, key string }{
		{filepath.Join(dir, "flows", ".", "..", "flows", "my-flow.json"), "my-flow", filepath.Join(dir, "flows", "my-flow.json")},
		{filepath.Join("testdata", "approve.json"), "approve", named},
		{"research", "research", "research"},
	} {
		app, got, out := capturingDebugger()
		if code := app.Run(context.Background(), []string{"tui", c.arg, "--db", filepath.Join(dir, "t.db")}); code != 0 {
			t.Fatalf("tui %s: exit %d: %s", c.arg, code, out.String())
		}
		opts := tuiOptions(context.Background(), *got)
		if opts.GraphName != c.title || opts.SettingsKey != c.key {
			t.Errorf("tui %s: title %q settings key %q, want %q and %q", c.arg, opts.GraphName, opts.SettingsKey, c.title, c.key)
		}
		if got.GraphName != c.arg {
			t.Errorf("tui %s: hints should repeat the graph as typed, got %q", c.arg, got.GraphName)
		}
	}
}

// The thread picker's note on a thread it cannot open names the program
// and the --db the debugger was opened with, and the --ns way to read it,
// as the command line's own hints do: a bare "superstep export T" would
// read the default database, where the thread is not.
func TestTUIOptions_PickerHintRepeatsProgramAndDB(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "my data.db")
	st, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: "00000001", ChannelValues: map[string]any{"q": "one"}, ChannelVersions: map[string]engine.Version{"q": 1}}
	if _, err := st.Put(ctx, engine.Config{ThreadID: "subonly", CheckpointNS: "inner:abc"}, cp, engine.Metadata{Source: engine.SourceLoop}, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var sum []tui.ThreadSummary
	app := &App{Name: "myagent", Stdout: &out, Stderr: &out, Debugger: func(ctx context.Context, _ *engine.Graph, o DebugOptions) error {
		var err error
		sum, err = tuiOptions(ctx, o).Threads(ctx)
		return err
	}}
	if code := app.Run(ctx, []string{"tui", "linear", "--db", db}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	for _, s := range sum {
		if s.ID != "subonly" {
			continue
		}
		want := `show and history read one with --ns NS; myagent export subonly --db '` + db + `' writes them all`
		if !strings.Contains(s.Refused, want) || s.Status != statusSubgraphsOnly {
			t.Fatalf("picker says status %q, %q; want %q and %q", s.Status, s.Refused, statusSubgraphsOnly, want)
		}
		return
	}
	t.Fatalf("subonly not listed: %+v", sum)
}

// A thread named with --thread that is not in the database starts as a new
// run: the warning on stderr is hidden while the debugger holds the
// screen, so the debugger's status line says it, its screen lists the
// threads with close ids (a typo otherwise opens an empty thread unseen),
// and it writes nothing until the first step (DeferNewThread).
func TestTUI_NewNamedThreadNoticeReachesTheDebugger(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	app, got, out := capturingDebugger()
	if code := app.Run(context.Background(), []string{"run", "linear", "--thread", "research", "--db", db}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	out.Reset()
	if code := app.Run(context.Background(), []string{"tui", "research", "--thread", "reserch", "--db", db}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	want := `thread "reserch" is not in the database: a new thread, written when you step`
	opts := tuiOptions(context.Background(), *got)
	if !strings.Contains(opts.Notice, want) {
		t.Fatalf("the debugger's notice is %q, want %q", opts.Notice, want)
	}
	if !opts.DeferNewThread || !slices.Equal(opts.CloseThreads, []string{"research"}) {
		t.Fatalf("DeferNewThread %v, CloseThreads %q: want the new thread unwritten until a step, and research named", opts.DeferNewThread, opts.CloseThreads)
	}
	if !strings.Contains(got.Warning, "close ids there: research;") {
		t.Fatalf("the headless warning does not name the close id: %q", got.Warning)
	}
	// Not on stderr as well, where it would be hidden behind the full
	// screen and read, stale, after quitting; a headless debugger has it.
	if strings.Contains(out.String(), "is not in the database") {
		t.Fatalf("the warning went to stderr before the debugger opened: %s", out.String())
	}
	if !strings.Contains(got.Warning, `thread "reserch" is not in the database`) {
		t.Fatalf("no warning for a headless debugger: %q", got.Warning)
	}
	// The graph's own thread, not named, gets no notice.
	if code := app.Run(context.Background(), []string{"tui", "linear", "--db", db}); code != 0 || got.Notice != "" {
		t.Fatalf("exit %d, notice %q for an unnamed thread", code, got.Notice)
	}
}

// The thread picker refuses a thread of another graph; what it shows (the
// refusal's first line) is the command that opens it, on the same
// database, rather than the start of a topology diff cut at the screen's
// edge: the recorded graph, or --force for the same graph changed since.
func TestTUI_PickerRefusalSaysWhatOpensTheThread(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	flow := filepath.Join(dir, "flow.json")
	src, err := os.ReadFile(filepath.Join("testdata", "approve.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(flow, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var check string // the thread the debugger's picker is asked about
	var refusal error
	app := &App{Name: "myagent", Stdout: &out, Stderr: &out, Debugger: func(ctx context.Context, _ *engine.Graph, o DebugOptions) error {
		if check != "" {
			refusal = o.CheckThread(ctx, check)
		}
		return nil
	}}
	for _, args := range [][]string{{"run", "research", "--thread", "r1"}, {"run", flow, "--thread", "f1"}} {
		if code := app.Run(context.Background(), append(args, "--db", db)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, out.String())
		}
	}
	// Another graph's thread.
	check = "r1"
	if code := app.Run(context.Background(), []string{"tui", "linear", "--db", db}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if err, want := refusal, "recorded with research: myagent tui research --db "+db+" --thread r1 opens it\n"; err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, engine.ErrGraphChanged) {
		t.Fatalf("refusal %v, want it to start %q", err, want)
	}
	// The same scenario file, changed incompatibly since the thread ran.
	if err := os.WriteFile(flow, bytes.ReplaceAll(src, []byte(`"done"`), []byte(`"finish"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	check = "f1"
	if code := app.Run(context.Background(), []string{"tui", flow, "--thread", "other", "--db", db}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if err, want := refusal, "the graph changed incompatibly since the thread was recorded: myagent tui "+flow+" --db "+db+" --thread f1 --force opens it\n"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("refusal %v, want it to start %q", err, want)
	}
}

// A thread the debugger starts itself (T, then a new thread) records the
// open graph as a thread named on the command line does: the threads
// command and the picker name its graph, not "(none)".
func TestTUI_ThreadStartedInTheDebuggerRecordsItsGraph(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	var out bytes.Buffer
	app := &App{Stdout: &out, Stderr: &out, Debugger: func(ctx context.Context, g *engine.Graph, o DebugOptions) error {
		st, err := g.Start(ctx, o.Input, engine.OnThread("n1"))
		if err != nil {
			return err
		}
		return st.Next(ctx)
	}}
	if code := app.Run(context.Background(), []string{"tui", "research", "--db", db}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	out.Reset()
	if code := app.Run(context.Background(), []string{"threads", "--db", db}); code != 0 {
		t.Fatalf("threads: exit %d: %s", code, out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "n1 ") {
			if !strings.Contains(line, "research") {
				t.Fatalf("n1 records no graph: %q\n%s", line, out.String())
			}
			return
		}
	}
	t.Fatalf("n1 is not listed:\n%s", out.String())
}

// The thread picker lists another graph's thread with its status, read
// with the graph it was recorded with, as the threads command does: it
// read "other graph" instead, so an interrupted thread of another graph
// looked like every other one.
func TestTUI_PickerListsAnotherGraphsThreadWithItsStatus(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	var out bytes.Buffer
	var listed []tui.ThreadSummary
	var listErr error
	app := &App{Name: "superstep", Stdout: &out, Stderr: &out, Debugger: func(ctx context.Context, _ *engine.Graph, o DebugOptions) error {
		listed, listErr = tuiOptions(ctx, o).Threads(ctx)
		return nil
	}}
	for _, args := range [][]string{{"run", "research", "--thread", "r1"}, {"run", "linear", "--thread", "l1"}, {"tui", "linear", "--thread", "l1"}} {
		if code := app.Run(context.Background(), append(args, "--db", db)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, out.String())
		}
	}
	if listErr != nil {
		t.Fatal(listErr)
	}
	status := map[string]string{}
	for _, s := range listed {
		status[s.ID] = s.Status
	}
	if status["r1"] != "interrupted" || status["l1"] != "done" {
		t.Fatalf("statuses %v, want r1 interrupted and l1 done", status)
	}
}

// On a thread whose head a replay wrote, the debugger's status line says
// so and names the recorded run's end within one 100-column line: the
// sentence stderr gets was cut at 120 columns before it named the end.
func TestTUI_ReplayHeadNoticeFitsTheStatusLine(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	app, got, out := capturingDebugger()
	for _, args := range [][]string{{"run", "linear", "--thread", "t-42"}, {"replay", "t-42"}, {"tui", "linear", "--thread", "t-42"}} {
		if code := app.Run(context.Background(), append(args, "--db", db)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, out.String())
		}
	}
	notice := tuiOptions(context.Background(), *got).Notice
	if !strings.Contains(notice, "replay's branch") || !strings.Contains(notice, "the recorded run ended at ") {
		t.Fatalf("notice %q does not say the head is a replay's and where the recorded run ended", notice)
	}
	if n := len([]rune(notice)); n > 100 {
		t.Fatalf("notice is %d columns, cut on a 100-column status line: %q", n, notice)
	}
}

// capturingDebugger is an App whose debugger records the options the
// command line opened it with, instead of taking the terminal; out holds
// what the command printed.
func capturingDebugger() (app *App, got *DebugOptions, out *bytes.Buffer) {
	got, out = &DebugOptions{}, &bytes.Buffer{}
	app = &App{Stdout: out, Stderr: out, Debugger: func(_ context.Context, _ *engine.Graph, o DebugOptions) error {
		*got = o
		return nil
	}}
	return app, got, out
}
