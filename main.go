// Command superstep runs and debugs agent graphs on an embedded Pregel
// engine. See README.md; the commands live in package cli.
package main

import (
	"context"
	"os"

	"github.com/superstep/superstep/cli"
)

func main() {
	// Ctrl-C cancels the run so the database is closed cleanly; a second
	// one ends the process at once.
	ctx, stop := cli.WithSignals(context.Background())
	app := &cli.App{Debugger: cli.TUI}
	code := app.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
