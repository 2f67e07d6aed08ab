package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
)

// scenarioSystem runs the workloads from their scenario files in
// testdata/perf, through the scenario loader (nodes and routes are
// expressions), without a saver: compared with superstep's Go-native
// nodes, it is the price of the expression path. It is not one of the
// peers; -scenario adds it.
type scenarioSystem struct {
	dir  string
	runs int
}

func (s *scenarioSystem) name() string           { return "superstep-scenario" }
func (s *scenarioSystem) faithful(string) bool   { return true }
func (s *scenarioSystem) describe(string) string { return "" }

func (s *scenarioSystem) prepare(wl string) (func() error, error) {
	f, err := scenario.Load(filepath.Join(s.dir, wl+".json"))
	if err != nil {
		return nil, err
	}
	g, _, err := scenario.Build(f)
	if err != nil {
		return nil, err
	}
	op := f.Ops[0]
	return func() error {
		s.runs++
		opts := []engine.RunOption{engine.OnThread(fmt.Sprint("t", s.runs))}
		if op.HasRecursionLimit { // none in the file: the engine's default
			opts = append(opts, engine.WithRecursionLimit(op.RecursionLimit))
		}
		res, err := g.Invoke(context.Background(), op.Input, opts...)
		if err != nil {
			return err
		}
		if res.Status != engine.StatusDone {
			return fmt.Errorf("status %v", res.Status)
		}
		return checkFinal(wl, res.Values)
	}, nil
}
