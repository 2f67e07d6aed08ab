package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestCallbackPanics: a panic in the program's code that the engine calls
// and that is not a node — a reducer, a cache key, a retry policy's
// RetryOn, a reducer key's default, an event listener under Stream — is an
// error of the run (or of Compile), not a panic out of Invoke or, on one
// of the engine's goroutines, the end of the process.
func TestCallbackPanics(t *testing.T) {
	ctx := context.Background()
	writeX := func(context.Context, any) (any, error) { return map[string]any{"x": 3.0}, nil }
	panics := func(what string, err error, says ...string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		for _, s := range says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %v\nwant it to say %q", what, err, s)
			}
		}
	}

	boom := func(any, any) (any, error) { panic("reducer boom") }
	reducing, err := engine.NewStateGraph(engine.ReducerKey("x", boom, func() any { return 0.0 })).
		AddNode("a", writeX).AddEdge(engine.Start, "a").Compile()
	if err != nil {
		t.Fatal(err)
	}
	_, err = reducing.Invoke(ctx, map[string]any{})
	var re *engine.ReducerError
	if !errors.As(err, &re) || re.Channel != "x" {
		t.Errorf("reducer: %v, want a ReducerError of x", err)
	}
	panics("reducer", err, "the reducer panicked: reducer boom")
	var streamed error
	for _, err := range reducing.Stream(ctx, map[string]any{}) {
		streamed = err
	}
	panics("reducer under Stream", streamed, "reducer boom")
	for _, err := range reducing.StreamModes(ctx, map[string]any{}, []engine.StreamMode{engine.StreamValues}) {
		streamed = err
	}
	panics("reducer under StreamModes", streamed, "reducer boom")

	// A listener the caller passes to Stream gets the events too, and
	// its panic, on the run's goroutine, is the run's error.
	listening, err := engine.NewStateGraph(engine.LastValueKey("x")).AddNode("a", writeX).AddEdge(engine.Start, "a").Compile()
	if err != nil {
		t.Fatal(err)
	}
	heard, streamedEvents := 0, 0
	for _, err := range listening.Stream(ctx, map[string]any{}, engine.WithEvents(func(engine.Event) { heard++ })) {
		if err != nil {
			t.Fatal(err)
		}
		streamedEvents++
	}
	if heard == 0 || heard != streamedEvents {
		t.Errorf("the caller's listener heard %d events, Stream yielded %d", heard, streamedEvents)
	}
	streamed = nil
	for _, err := range listening.Stream(ctx, map[string]any{}, engine.WithEvents(func(engine.Event) { panic("listener boom") })) {
		streamed = err
	}
	panics("an event listener under Stream", streamed, "listener boom")

	keyed, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("a", writeX, engine.WithCachePolicy(engine.CachePolicy{Key: func(any) (string, error) { panic("key boom") }})).
		AddEdge(engine.Start, "a").Compile(engine.WithCache(engine.NewMemoryCache()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = keyed.Invoke(ctx, map[string]any{})
	panics("cache key", err, "the cache policy's Key panicked: key boom")

	// RetryOn runs on each failed task's goroutine: four at once.
	b := engine.NewStateGraph(engine.LastValueKey("x"))
	retryOn := func(error) bool { panic("retry-on boom") }
	for _, n := range []string{"a", "b", "c", "d"} {
		b.AddNode(n, func(context.Context, any) (any, error) { return nil, errors.New(n + " failed") }, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 3, RetryOn: retryOn}))
		b.AddEdge(engine.Start, n)
	}
	retrying, err := b.Compile()
	if err != nil {
		t.Fatal(err)
	}
	_, err = retrying.Invoke(ctx, map[string]any{})
	panics("RetryOn", err, "RetryOn", "retry-on boom")

	_, err = engine.NewStateGraph(engine.ReducerKey("x", engine.AppendReducer, func() any { panic("default boom") })).
		AddNode("a", writeX).AddEdge(engine.Start, "a").Compile()
	panics("default", err, `the default of reducer key "x" panicked: default boom`)
}
