package cli_test

import (
	"context"
	"fmt"
	"os"

	"github.com/superstep/superstep/cli"
)

// An App runs one command line; Main does the same on the process's streams.
func ExampleApp_Run() {
	app := &cli.App{Stdout: os.Stdout, Stderr: os.Stdout}
	code := app.Run(context.Background(), []string{"graph", "linear", "--mermaid"})
	fmt.Println("exit", code)
	// Output:
	// graph TD;
	// 	__start__([<p>__start__</p>]):::first
	// 	n0("a")
	// 	n1("b")
	// 	__end__([<p>__end__</p>]):::last
	// 	__start__ --> n0;
	// 	n0 --> n1;
	// 	n1 --> __end__;
	// 	classDef default fill:#f2f0ff,line-height:1.2;
	// 	classDef first fill-opacity:0;
	// 	classDef last fill:#bfb6fc;
	// exit 0
}

// ResolveGraph accepts a built-in name or a scenario file.
func ExampleResolveGraph() {
	g, input, name, err := cli.ResolveGraph("linear")
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Name(), name, input)
	_, _, _, err = cli.ResolveGraph("no-such-graph")
	fmt.Println(err != nil)
	// Output:
	// linear linear map[total:10 visited:[]]
	// true
}
