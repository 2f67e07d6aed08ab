package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// refusingFlush is a store whose buffered checkpoints are refused when
// they are flushed, as a PostgreSQL thread another process advanced
// meanwhile under --durability exit.
type refusingFlush struct{ *persist.Store }

func (refusingFlush) Flush() error {
	return errors.New(`thread "t" was advanced by another process after this process read it`)
}

// TestRun_ReportsAFailedFlushAsItsEnd: a run whose checkpoints fail to be
// stored when they are flushed ends with an error event, not "done": the
// run reported done, with a checkpoint event for a checkpoint never
// stored, and the failure came only after, on stderr.
func TestRun_ReportsAFailedFlushAsItsEnd(t *testing.T) {
	st, err := persist.Open(filepath.Join(t.TempDir(), "f.db"), persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("a", func(context.Context, any) (any, error) { return map[string]any{"x": 2.0}, nil }).
		AddEdge(engine.Start, "a").Compile(engine.WithSaver(st))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &runner{g: g, st: refusingFlush{st}, thread: "t", graphArg: "g", json: true, out: &out, warn: func(string) {}}
	err = r.run(context.Background(), map[string]any{"x": 1.0}, false)
	if err == nil || !strings.Contains(err.Error(), "advanced by another process") {
		t.Fatalf("run: %v, want the refused flush", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var last runEvent
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Event != "error" || strings.Contains(out.String(), `"event":"done"`) {
		t.Fatalf("events end with %q (done reported: %v):\n%s", last.Event, strings.Contains(out.String(), `"event":"done"`), out.String())
	}
}
