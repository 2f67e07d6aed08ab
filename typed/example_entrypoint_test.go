package typed_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/typed"
)

// An entrypoint (engine.NewEntrypoint) gets the run's input as it was
// given, a Go struct here, until it is read back from a saver that encodes
// (persist, persist/postgres): a resumed run gets it as JSON's values, a
// map[string]any, where a type assertion to the struct fails. Decode reads
// either into the struct.
func ExampleDecode() {
	type Request struct {
		Topic string `json:"topic"`
		Words int    `json:"words"`
	}
	dir, err := os.MkdirTemp("", "superstep-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := persist.Open(filepath.Join(dir, "superstep.db"), persist.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	g, err := engine.NewEntrypoint("write", func(ctx context.Context, input any) (any, error) {
		fmt.Printf("input is a %T\n", input)
		req, err := typed.Decode[Request](input) // not input.(Request)
		if err != nil {
			return nil, err
		}
		verdict, err := typed.Interrupt[string](ctx, fmt.Sprintf("%d words on %s?", req.Words, req.Topic))
		if err != nil {
			return nil, err
		}
		return req.Topic + ": " + verdict, nil
	}, engine.WithSaver(store))
	if err != nil {
		log.Fatal(err)
	}
	ctx, thread := context.Background(), engine.OnThread("t1")
	res, err := g.Invoke(ctx, Request{Topic: "Go", Words: 500}, thread)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status, res.Interrupts[0].Value)
	res, err = g.Invoke(ctx, engine.Command{Resume: "approved"}, thread)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status, res.Output)
	// Output:
	// input is a typed_test.Request
	// interrupted 500 words on Go?
	// input is a map[string]interface {}
	// done Go: approved
}
