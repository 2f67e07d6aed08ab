package typed

import (
	"math"
	"reflect"
	"strconv"
	"unsafe"
)

// fastSet stores an engine value into a scalar field through its address,
// without reflect: decoding every field of the state for every task is the
// typed layer's main cost, and most fields are numbers, strings and bools
// holding what the engine stores for them (float64, string, bool). It
// reports false for anything else — another Go number in the map, a value
// out of range, a whole-number check that fails — and the caller takes the
// codec's path, which handles those cases and words the error.
type fastSet func(p unsafe.Pointer, v any) bool

func fastSetFor(t reflect.Type) fastSet {
	if t.PkgPath() != "" && viaJSON(t) {
		return nil // a named type with its own unmarshalling
	}
	switch t.Kind() {
	case reflect.Int:
		bound := math.Ldexp(1, strconv.IntSize-1)
		return wholeSet(-bound, bound, func(p unsafe.Pointer, f float64) { *(*int)(p) = int(f) })
	case reflect.Int64:
		return wholeSet(-(1 << 63), 1<<63, func(p unsafe.Pointer, f float64) { *(*int64)(p) = int64(f) })
	case reflect.Int32:
		return wholeSet(-(1 << 31), 1<<31, func(p unsafe.Pointer, f float64) { *(*int32)(p) = int32(f) })
	case reflect.Float64:
		return func(p unsafe.Pointer, v any) bool {
			f, ok := v.(float64)
			if ok {
				*(*float64)(p) = f
			}
			return ok
		}
	case reflect.String:
		return func(p unsafe.Pointer, v any) bool {
			s, ok := v.(string)
			if ok {
				*(*string)(p) = s
			}
			return ok
		}
	case reflect.Bool:
		return func(p unsafe.Pointer, v any) bool {
			b, ok := v.(bool)
			if ok {
				*(*bool)(p) = b
			}
			return ok
		}
	}
	return nil
}

// wholeSet accepts a float64 that is a whole number in [lo, end): the
// range of a signed integer type, both bounds powers of two and so exact.
func wholeSet(lo, end float64, set func(unsafe.Pointer, float64)) fastSet {
	return func(p unsafe.Pointer, v any) bool {
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || f < lo || f >= end {
			return false
		}
		set(p, f)
		return true
	}
}
