package engine_test

import (
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestNormalize_EveryGoInteger: every Go integer kind is a number in
// engine form, so a node's int8 or uint reads back as the float64 any
// saver gives back; int8, int16, uint, uint8, uint16 and uint32 passed
// through as they were, and a later node saw a type that depended on the
// saver.
func TestNormalize_EveryGoInteger(t *testing.T) {
	for _, v := range []any{int8(-3), int16(-3), int32(-3), int64(-3), int(-3)} {
		if got := engine.Normalize(v); got != -3.0 {
			t.Errorf("Normalize(%T) = %#v, want -3.0", v, got)
		}
	}
	for _, v := range []any{uint8(7), uint16(7), uint32(7), uint64(7), uint(7)} {
		if got := engine.Normalize(v); got != 7.0 {
			t.Errorf("Normalize(%T) = %#v, want 7.0", v, got)
		}
	}
	got := engine.Normalize(map[string]any{"l": []any{uint8(1), int16(2)}})
	if want := map[string]any{"l": []any{1.0, 2.0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("nested: %#v, want %#v", got, want)
	}
}
