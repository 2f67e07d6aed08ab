package cli_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/superstep/superstep/cli"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
)

// signalHelper names the environment variable that makes the test binary
// run a helper program instead of the tests (TestMain, signalMain): "wait",
// or the database stubbornMain runs on.
const signalHelper = "SUPERSTEP_SIGNAL_HELPER"

// signalMain runs the helper program signalHelper names.
func signalMain() int {
	if os.Getenv(signalHelper) == "wait" {
		return waitMain()
	}
	return stubbornMain()
}

// waitMain takes Ctrl-C as superstep's main does (cli.WithSignals), then
// stands for a stop that waits on something that does not answer: it says
// it is stopping and sleeps 20 seconds.
func waitMain() int {
	ctx, stop := cli.WithSignals(context.Background())
	defer stop()
	fmt.Println("ready")
	<-ctx.Done()
	fmt.Println("stopping")
	time.Sleep(20 * time.Second)
	return 0
}

// stubbornMain is a user's program that hosts the command line
// (cli.Main) with a graph whose node ignores its context for 20 seconds
// (the engine abandons it on Ctrl-C). It says when the node started.
func stubbornMain() int {
	err := graphs.Register(graphs.Example{Name: "stubborn", Description: "a node that ignores its context",
		Build: func(opts ...engine.CompileOption) (*engine.Graph, error) {
			return engine.NewStateGraph(engine.LastValueKey("n")).
				AddNode("stubborn", func(context.Context, any) (any, error) {
					fmt.Println("stubborn node started")
					time.Sleep(20 * time.Second)
					return nil, nil
				}).
				AddEdge(engine.Start, "stubborn").
				Compile(opts...)
		},
		Input: map[string]any{"n": 1.0}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return cli.Main(context.Background(), []string{"run", "stubborn", "--db", os.Getenv(signalHelper), "--thread", "s1"})
}
