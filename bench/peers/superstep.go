package main

import (
	"context"
	"fmt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
)

// superstepSystem runs the workloads as built by enginetest.PerfGraph (Go
// node functions over the map state; the engine keeps numbers as float64,
// as JSON does), the same graphs the engine's own benchmarks run. withSaver
// adds a MemorySaver, so every superstep writes a checkpoint as LangGraph
// does with a checkpointer.
type superstepSystem struct {
	withSaver bool
	runs      int
}

func (s *superstepSystem) name() string {
	if s.withSaver {
		return "superstep-memory"
	}
	return "superstep"
}

func (s *superstepSystem) faithful(string) bool { return true }

func (s *superstepSystem) describe(string) string { return "" }

func (s *superstepSystem) prepare(wl string) (func() error, error) {
	var opts []engine.CompileOption
	var saver *engine.MemorySaver
	if s.withSaver {
		saver = engine.NewMemorySaver()
		opts = append(opts, engine.WithSaver(saver))
	}
	w, err := enginetest.PerfGraph(wl, opts...)
	if err != nil {
		return nil, err
	}
	checked := false
	return func() error {
		s.runs++
		thread := fmt.Sprint("t", s.runs)
		ctx := context.Background()
		res, err := w.Graph.Invoke(ctx, w.Input(), engine.OnThread(thread), engine.WithRecursionLimit(w.RecursionLimit))
		if err != nil {
			return err
		}
		if res.Status != engine.StatusDone {
			return fmt.Errorf("status %v", res.Status)
		}
		// The same check as every other system's in every run; the kit's
		// own check once, on the first run: running it every time would
		// time a second check no other system pays for.
		if err := checkFinal(wl, res.Values); err != nil {
			return err
		}
		if !checked {
			if err := w.Check(res.Values); err != nil {
				return err
			}
			checked = true
		}
		if saver != nil {
			// Keep the saver's size constant across runs.
			return saver.DeleteThread(ctx, thread)
		}
		return nil
	}, nil
}
