package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// bigSteps is the number of supersteps loopingBigRun's graph makes, each
// writing about bigValue bytes.
const (
	bigSteps = 40
	bigValue = 4 << 10
)

// loopingBigRun compiles on s a graph whose node runs bigSteps times,
// each writing a value of bigValue bytes and n+1, and freezes the proxy p
// on its first run. It starts a run of thread "t" and returns its cancel,
// its outcome, and the number of times the node ran so far.
func loopingBigRun(t *testing.T, s *postgres.Store, p *breakingProxy) (context.CancelFunc, chan error, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	g, err := engine.NewStateGraph(engine.LastValueKey("n"), engine.LastValueKey("blob")).
		AddNode("step", func(_ context.Context, in any) (any, error) {
			if calls.Add(1) == 1 {
				p.freeze()
			}
			n := in.(map[string]any)["n"].(float64) + 1
			return engine.Update{{Key: "n", Value: n}, {Key: "blob", Value: strings.Repeat("x", bigValue)}}, nil
		}).
		AddEdge(engine.Start, "step").
		AddConditionalEdges("step", func(_ context.Context, in map[string]any) (any, error) {
			if in["n"].(float64) >= bigSteps {
				return engine.End, nil
			}
			return "step", nil
		}).
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		_, err := g.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("t"), engine.WithRecursionLimit(2*bigSteps))
		done <- err
	}()
	return cancel, done, &calls
}

// Under async and exit durability, writes buffered for a server that does
// not commit them (here one that stopped answering) are bounded by
// Options.MaxBuffered: past it a write waits for its commit, as under
// sync, rather than the run going on and the memory growing without
// limit. Cancelled then, the run returns within about the connect
// timeout, saying what may or may not be saved; once the server answers,
// the thread reads whole, each checkpoint stored once.
func TestStore_BufferedWritesAreBounded(t *testing.T) {
	for _, d := range []persist.Durability{persist.DurabilityAsync, persist.DurabilityExit} {
		t.Run(d.String(), func(t *testing.T) {
			s, p := storeThroughProxy(t, postgres.Options{Reconnect: -1, ConnectTimeout: giveUpBound, Durability: d, MaxBuffered: 4 * bigValue})
			t.Cleanup(p.thaw)
			cancel, done, calls := loopingBigRun(t, s, p)
			select {
			case err := <-done:
				t.Fatalf("the run ended (%v) after %d supersteps on a server that commits nothing: its writes were buffered without bound", err, calls.Load())
			case <-time.After(4 * giveUpBound):
			}
			if n := calls.Load(); n >= bigSteps/2 {
				t.Fatalf("%d supersteps ran with nothing committed; want the run to wait once about %d bytes are buffered", n, 4*bigValue)
			}
			cancel()
			err := within(t, "the cancelled run", done)
			cancelledRunUnknown(t, err)

			p.thaw()
			if err := within(t, "Flush once the server answers", flushedOnceHeard(s)); err != nil && !errors.Is(err, persist.ErrAsyncWrite) {
				t.Fatalf("Flush once the server answers: %v", err)
			}
			ctx := context.Background()
			r := open(t, withParam(serverURL, "schema", s.Schema()), postgres.Options{ReadOnly: true})
			all, err := r.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, x := range all {
				if seen[x.Checkpoint.ID] {
					t.Fatalf("checkpoint %s is stored twice", x.Checkpoint.ID)
				}
				seen[x.Checkpoint.ID] = true
			}
			if err := r.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
		})
	}
}
