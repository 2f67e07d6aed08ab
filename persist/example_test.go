package persist_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// counter is a one-node graph that adds one to "n" on each run.
func counter(saver engine.Saver) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("inc", func(_ context.Context, s any) (any, error) {
			n, _ := s.(map[string]any)["n"].(float64)
			return engine.Pairs("n", n+1), nil
		}).
		AddEdge(engine.Start, "inc").
		Compile(engine.WithSaver(saver))
}

// Open a database file and compile a graph with it as the saver: every
// superstep of every run is checkpointed in the file, and a thread goes on
// where it was left after the program restarts.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "superstep-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "superstep.db") // persist.DefaultPath() is the command line's

	ctx := context.Background()
	for run := 0; run < 2; run++ { // two runs of the program
		store, err := persist.Open(path, persist.Options{})
		if err != nil {
			log.Fatal(err)
		}
		g, err := counter(store)
		if err != nil {
			log.Fatal(err)
		}
		input := map[string]any{} // new input: run "inc" again on the saved state
		res, err := g.Invoke(ctx, input, engine.OnThread("t1"))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("n =", res.Values["n"])

		// While the file is open, another writer is refused with a clear
		// error instead of waiting for ever.
		_, err = persist.Open(path, persist.Options{Timeout: 10 * time.Millisecond})
		fmt.Println("second writer locked out:", errors.Is(err, persist.ErrLocked))
		if err := store.Close(); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// n = 1
	// second writer locked out: true
	// n = 2
	// second writer locked out: true
}

// Export writes a thread as one JSON document and Import stores it in
// another file (superstep's export and import commands): the thread keeps
// its checkpoints and the fingerprint of the graph that made them.
func ExampleStore_Export() {
	dir, err := os.MkdirTemp("", "superstep-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	src, err := persist.Open(filepath.Join(dir, "a.db"), persist.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	g, err := counter(src)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := g.Invoke(ctx, map[string]any{"n": 41}, engine.OnThread("t-1")); err != nil {
		log.Fatal(err)
	}
	var doc bytes.Buffer
	if err := src.Export(ctx, "t-1", &doc, g.Fingerprint()); err != nil {
		log.Fatal(err)
	}

	dst, err := persist.Open(filepath.Join(dir, "b.db"), persist.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer dst.Close()
	thread, err := dst.Import(ctx, &doc, persist.ImportOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fp, err := dst.Fingerprint(ctx, thread)
	if err != nil {
		log.Fatal(err)
	}
	moved, err := counter(dst)
	if err != nil {
		log.Fatal(err)
	}
	state, err := moved.GetState(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(thread, state.Values["n"], fp == g.Fingerprint())
	// Output: t-1 42 true
}
