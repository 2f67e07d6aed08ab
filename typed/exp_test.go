package typed_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/superstep/superstep/engine"
)

func BenchmarkExpOne(b *testing.B) {
	var w perfWorkload
	for _, x := range perfWorkloads() {
		if x.name == os.Getenv("EXP_W") {
			w = x
		}
	}
	build := w.mapG
	if os.Getenv("EXP_API") == "typed" {
		build = w.typG
	}
	r, _ := build()
	for i := 0; i < b.N; i++ {
		if err := r(context.Background(), engine.OnThread(fmt.Sprint("t", i)), engine.WithRecursionLimit(w.limit)); err != nil {
			b.Fatal(err)
		}
	}
}
