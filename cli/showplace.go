package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
)

// graph is r's graph, nil when r is (no graph is known).
func (r *resolvedGraph) graph() *engine.Graph {
	if r == nil {
		return nil
	}
	return r.g
}

// scenarioFile is the scenario file r was built from, nil for a
// built-in graph or none.
func (r *resolvedGraph) scenarioFile() *scenario.File {
	if r == nil {
		return nil
	}
	return r.file
}

// savedErrorPlace is where in file the expression that raised a task's
// saved error (engine.SavedError) was written, as the run that failed
// printed it first ("flow.json:4:42: nodes[1] \"b\": update.n"): found
// by the field the error saved (scenario.File.Where), in the file as it
// is now; "" when file is nil or has no such expression (a scripted
// fail, a built-in graph's node, an error saved before places were, a
// file edited since). The path is the recorded one, relative to the
// working directory when it lies inside it.
func savedErrorPlace(file *scenario.File, saved error) string {
	at, ok := file.Where(saved, "")
	if !ok {
		return ""
	}
	shown := *at
	shown.Path = shortPath(at.Path)
	return shown.Place()
}

// shortPath is path relative to the working directory when it lies
// inside it, else path.
func shortPath(path string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(path) {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}
