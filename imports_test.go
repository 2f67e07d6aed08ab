package main

import (
	"errors"
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/superstep/superstep"

// allowedImports states DESIGN.md's layering: which of our packages each
// package may import, and which outside modules. The engine stands on the
// standard library alone.
var allowedImports = map[string]struct {
	ours    []string
	outside []string
}{
	"engine":            {},
	"termtext":          {},
	"engine/enginetest": {ours: []string{"engine"}},
	// internal/jsonw writes the stores' records as encoding/json would;
	// like termtext it stands on the standard library alone.
	"internal/jsonw": {},
	// internal/jsonpos says where JSON a person typed is malformed, for
	// the command line and the debugger's forms alike; standard library only.
	"internal/jsonpos": {},
	// internal/redact says which names hold secrets, for the lock file's
	// command line and the command line's URLs alike; standard library only.
	"internal/redact": {},
	// persist names the line of an export file's error with it.
	"persist": {ours: []string{"engine", "internal/jsonw", "internal/jsonpos", "internal/redact"}, outside: []string{"go.etcd.io/bbolt"}},
	// Only persist/postgres links pgx, so programs that do not use it do not.
	"persist/postgres": {ours: []string{"engine", "persist", "internal/jsonw"}, outside: []string{"github.com/jackc/pgx/v5"}},
	"typed":            {ours: []string{"engine"}},
	"graphs":           {ours: []string{"engine", "typed"}},
	"graphs/scenario":  {ours: []string{"engine"}, outside: []string{"github.com/expr-lang/expr"}},
	// examples/toolagent is a program a user would write: it stands on
	// the public packages a Go program builds and stores a graph with.
	"examples/toolagent": {ours: []string{"engine", "typed", "persist"}},
	// examples/pgservice is a service a user would write on PostgreSQL.
	"examples/pgservice": {ours: []string{"engine", "persist", "persist/postgres"}},
	// draw lays graphs out as text for the debugger and the command line.
	"draw": {ours: []string{"engine"}},
	// recording matches a replay with its recording for the command line's
	// replay and the debugger's alike.
	"recording": {ours: []string{"engine"}},
	// cli is main's logic: it may use every package of ours (persist and
	// tui once they are merged) and the command-line library.
	"cli": {ours: []string{"engine", "graphs", "graphs/scenario", "persist", "persist/postgres", "termtext", "tui", "draw", "internal/jsonpos", "internal/redact", "recording"}, outside: []string{"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/charmbracelet/x/term"}},
	"tui": {ours: []string{"engine", "draw", "termtext", "internal/jsonpos", "recording"}, outside: []string{"github.com/charmbracelet/", "github.com/alecthomas/chroma/", "github.com/muesli/", "github.com/lucasb-eyer/"}},
}

func TestImportRules(t *testing.T) {
	for dir, rule := range allowedImports {
		pkg, err := build.ImportDir(filepath.FromSlash(dir), 0)
		if err != nil {
			var noGo *build.NoGoError
			if _, statErr := os.Stat(dir); os.IsNotExist(statErr) || errors.As(err, &noGo) {
				continue // the package does not exist yet
			}
			t.Fatalf("%s: %v", dir, err)
		}
		for _, imp := range pkg.Imports {
			if !strings.Contains(strings.Split(imp, "/")[0], ".") {
				continue // standard library
			}
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				if !contains(rule.ours, rel) {
					t.Errorf("%s imports %s: DESIGN.md does not allow that direction", dir, rel)
				}
				continue
			}
			if !hasPrefix(rule.outside, imp) {
				t.Errorf("%s imports %s: not an allowed dependency of this package", dir, imp)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasPrefix(prefixes []string, s string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
