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

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "superstep-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "superstep.db") // usually persist.DefaultPath()

	s, err := persist.Open(path, persist.Options{Durability: persist.DurabilitySync})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	ctx := context.Background()
	cp := &engine.Checkpoint{
		V: engine.CheckpointFormat, ID: fmt.Sprintf("%032x", 1), TS: time.Now(),
		ChannelValues:   map[string]any{"messages": []any{"hello"}},
		ChannelVersions: map[string]engine.Version{"messages": 1},
	}
	cfg, err := s.Put(ctx, engine.Config{ThreadID: "demo"}, cp, engine.Metadata{Source: engine.SourceInput, Step: -1}, nil)
	if err != nil {
		log.Fatal(err)
	}
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "demo"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tup.Config == cfg, tup.Checkpoint.ChannelValues["messages"])

	// A second process gets a clear error instead of waiting forever.
	_, err = persist.Open(path, persist.Options{Timeout: 10 * time.Millisecond})
	fmt.Println(errors.Is(err, persist.ErrLocked))
	// Output:
	// true [hello]
	// true
}

func ExampleStore_Export() {
	dir, _ := os.MkdirTemp("", "superstep-example")
	defer os.RemoveAll(dir)
	src, err := persist.Open(filepath.Join(dir, "a.db"), persist.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	ctx := context.Background()
	cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: fmt.Sprintf("%032x", 1),
		ChannelValues: map[string]any{"answer": 42}, ChannelVersions: map[string]engine.Version{"answer": 1}}
	if _, err := src.Put(ctx, engine.Config{ThreadID: "t-1"}, cp, engine.Metadata{Source: engine.SourceLoop}, nil); err != nil {
		log.Fatal(err)
	}

	var buf bytes.Buffer
	if err := src.Export(ctx, "t-1", &buf, "sha256:graph"); err != nil {
		log.Fatal(err)
	}

	dst, err := persist.Open(filepath.Join(dir, "b.db"), persist.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer dst.Close()
	thread, err := dst.Import(ctx, &buf, persist.ImportOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fp, _ := dst.Fingerprint(ctx, thread)
	tup, _ := dst.GetTuple(ctx, engine.Config{ThreadID: thread})
	fmt.Println(thread, fp, tup.Checkpoint.ChannelValues["answer"])
	// Output: t-1 sha256:graph 42
}
