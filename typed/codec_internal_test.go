package typed

import (
	"reflect"
	"testing"
	"unsafe"
)

// The fast Send-argument decoder is built by structCodec; codecFor must
// hand it on (it once copied only enc and dec, and every Send argument
// took the reflect path).
func TestCodecFor_KeepsTheFastArgumentDecoder(t *testing.T) {
	type Arg struct {
		N int    `json:"n"`
		S string `json:"s"`
	}
	c := codecFor(reflect.TypeFor[Arg]())
	if c.decAt == nil {
		t.Fatal("codecFor dropped decAt")
	}
	var got Arg
	if !c.decAt(unsafe.Pointer(&got), map[string]any{"n": 3.0, "s": "x"}) || got != (Arg{3, "x"}) {
		t.Fatalf("decAt: %+v", got)
	}
}
