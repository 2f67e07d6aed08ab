package tui_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/tui"
)

func TestRun_NoSaver(t *testing.T) {
	g, err := graphs.Linear()
	if err != nil {
		t.Fatal(err)
	}
	if err := tui.Run(context.Background(), g, tui.Options{}); !errors.Is(err, tui.ErrNoSaver) {
		t.Fatalf("got %v, want ErrNoSaver", err)
	}
}

func TestRun_QuitsOnQ(t *testing.T) {
	saver := engine.NewMemorySaver()
	g, err := graphs.Linear(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	in, keys := io.Pipe()
	go func() {
		// Separate writes: bytes read together arrive as one key message.
		time.Sleep(200 * time.Millisecond)
		keys.Write([]byte("q"))
		// y confirms in case q came while the first engine call still ran.
		time.Sleep(100 * time.Millisecond)
		keys.Write([]byte("y"))
	}()
	err = tui.Run(ctx, g, tui.Options{Thread: "t", Input: map[string]any{"total": 1.0}, In: in, Out: io.Discard})
	in.Close() // unblocks the writer if y was not needed
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("q did not quit")
	}
	if _, err := g.GetState(context.Background(), engine.Config{ThreadID: "t"}); err != nil {
		t.Fatalf("the new thread was not started: %v", err)
	}
}
