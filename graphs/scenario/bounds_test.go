package scenario

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestLoad_Bounds: a scenario path must be a regular file of at most
// MaxFileBytes; anything else is refused before it is read, naming the
// file (issue 17 item 13: `run /dev/zero` read until memory ran out, and a
// 200 MB file was parsed).
func TestLoad_Bounds(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk is spent on it.
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for path, want := range map[string]error{
		"/dev/zero": ErrNotRegularFile,
		dir:         ErrNotRegularFile,
		big:         ErrFileTooLarge,
	} {
		_, err := Load(path)
		var fe *FileError
		if !errors.Is(err, want) || !errors.As(err, &fe) || !strings.Contains(err.Error(), path) {
			t.Errorf("Load(%s) = %v, want %v naming the file", path, err, want)
		}
	}
	ok := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(ok, []byte(`{"name":"ok","state":{"n":null},"nodes":[{"name":"a"}],"edges":[["__start__","a"]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ok); err != nil {
		t.Errorf("a small regular file: %v", err)
	}
}

// TestBuild_RunawayExpressionStops: an expression that doubles a string
// each superstep stops at the state bound with an error naming its node,
// instead of growing until memory runs out (issue 17 item 13: 1.2 GB in 16
// supersteps).
func TestBuild_RunawayExpressionStops(t *testing.T) {
	f, err := Parse("double.json", []byte(`{"name":"double","state":{"s":null},
		"nodes":[{"name":"double","update":{"s":"state.s + state.s"}}],
		"edges":[["__start__","double"]],
		"branches":[{"from":"double","route":"'double'","ends":["double"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := Build(f, engine.WithLimits(engine.Limits{MaxStateBytes: 1 << 20}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(context.Background(), map[string]any{"s": "xy"}, engine.WithRecursionLimit(100))
	var se *engine.StateLimitError
	if !errors.As(err, &se) || se.Key != "s" || len(se.Nodes) != 1 || se.Nodes[0] != "double" {
		t.Fatalf("err = %v, want a StateLimitError on s naming double", err)
	}
	g, _, err = Build(f, engine.WithLimits(engine.Limits{MaxWriteBytes: 1 << 20}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(context.Background(), map[string]any{"s": "xy"}, engine.WithRecursionLimit(100))
	var le *engine.ValueLimitError
	if !errors.As(err, &le) || le.Node != "double" || le.Key != "s" {
		t.Fatalf("err = %v, want a ValueLimitError naming double and s", err)
	}
}
