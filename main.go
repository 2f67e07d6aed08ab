// Command superstep runs and debugs agent graphs on an embedded Pregel
// engine. See README.md; the commands live in package cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/superstep/superstep/cli"
)

func main() {
	// Ctrl-C cancels the run so the database is closed cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	app := &cli.App{Debugger: cli.TUI}
	code := app.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
