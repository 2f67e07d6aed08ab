// Command superstep runs and debugs agent graphs on an embedded Pregel
// engine. See README.md.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/superstep/superstep/graphs/scenario"
)

func main() {
	if len(os.Args) >= 3 && os.Args[1] == "trace" {
		t, err := scenario.TraceFile(context.Background(), os.Args[2], scenario.RunOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "superstep:", err)
			os.Exit(1)
		}
		os.Stdout.Write(scenario.Canonical(t, 1))
		os.Stdout.WriteString("\n")
		return
	}
	fmt.Fprintln(os.Stderr, "usage: superstep trace FILE")
	os.Exit(2)
}
