package scenario

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/superstep/superstep/engine"
)

// Equal short strings from expressions and node names share their bytes
// (intern); long ones are kept as given. A fan-out's Sends name their
// node and key their objects with the shared copies.
func TestIntern_SharesEqualShortStrings(t *testing.T) {
	a := intern(strings.Clone("work"))
	b := intern(strings.Clone("work"))
	if a != "work" || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("two interned copies of %q do not share their bytes", a)
	}
	long := strings.Repeat("k", internLen+1)
	if c := intern(strings.Clone(long)); unsafe.StringData(c) == unsafe.StringData(intern(strings.Clone(long))) {
		t.Errorf("a string of %d bytes was interned", len(long))
	}
	e, err := Compile(`sendEach('work', state.items, 'x')`)
	if err != nil {
		t.Fatal(err)
	}
	out, ok := e.sends.run(map[string]any{"items": []any{1.0}}, nil)
	if !ok {
		t.Fatal("sendEach took the VM")
	}
	s := out.([]any)[0].(engine.Send)
	if unsafe.StringData(s.Node) != unsafe.StringData(intern(strings.Clone("work"))) {
		t.Error("a Send's node name does not share the interned bytes")
	}
	for k := range s.Arg.(map[string]any) {
		if unsafe.StringData(k) != unsafe.StringData(intern(strings.Clone("x"))) {
			t.Error("a Send's object key does not share the interned bytes")
		}
	}
}
