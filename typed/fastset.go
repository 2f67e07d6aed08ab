package typed

import (
	"math"
	"reflect"
	"strconv"
	"unsafe"
)

// fastKind is a scalar field's kind for the direct paths, which move values
// through the field's address without reflect: decoding every field of the
// state for every task is the typed layer's main cost, and most fields are
// numbers, strings and bools holding what the engine stores for them
// (float64, string, bool). A switch on the kind, not a function value per
// field, so a field costs no indirect call. Anything the direct paths do not
// take — another Go number in the map, a value out of range, a fraction for
// an integer — makes them report false, and the caller takes the codec's
// path, which handles those cases and words the error.
type fastKind uint8

const (
	fastNone fastKind = iota // always the codec
	fastInt
	fastInt64
	fastInt32
	fastFloat64
	fastString
	fastBool
)

// intBound is 2^(bits of int - 1): ints are [-intBound, intBound).
const intBound float64 = 1 << (strconv.IntSize - 1)

func fastKindFor(t reflect.Type) fastKind {
	if t.PkgPath() != "" && viaJSON(t) {
		return fastNone // a named type with its own unmarshalling
	}
	switch t.Kind() {
	case reflect.Int:
		return fastInt
	case reflect.Int64:
		return fastInt64
	case reflect.Int32:
		return fastInt32
	case reflect.Float64:
		return fastFloat64
	case reflect.String:
		return fastString
	case reflect.Bool:
		return fastBool
	}
	return fastNone
}

// set stores the engine value v into the field at p. Integers take a
// float64 holding a whole number in the type's range (both bounds are
// powers of two, so exact). int, the usual field, is tested first, in a
// body small enough to be inlined into the decoding loops.
func (k fastKind) set(p unsafe.Pointer, v any) bool {
	if k == fastInt {
		i, ok := wholeInt(v)
		if ok {
			*(*int)(p) = i
		}
		return ok
	}
	return k.setOther(p, v)
}

// wholeInt is fastInt's rule: v is a float64 holding a whole number in
// int's range. Small enough to inline where every field is decoded.
func wholeInt(v any) (int, bool) {
	f, ok := v.(float64)
	return int(f), ok && f >= -intBound && f < intBound && float64(int64(f)) == f
}

func (k fastKind) setOther(p unsafe.Pointer, v any) bool {
	switch k {
	case fastInt64:
		f, ok := v.(float64)
		if !ok || f < -(1<<63) || f >= 1<<63 || float64(int64(f)) != f {
			return false
		}
		*(*int64)(p) = int64(f)
		return true
	case fastInt32:
		f, ok := v.(float64)
		if !ok || f < -(1<<31) || f >= 1<<31 || float64(int32(f)) != f {
			return false
		}
		*(*int32)(p) = int32(f)
		return true
	case fastFloat64:
		f, ok := v.(float64)
		if ok {
			*(*float64)(p) = f
		}
		return ok
	case fastString:
		s, ok := v.(string)
		if ok {
			*(*string)(p) = s
		}
		return ok
	case fastBool:
		b, ok := v.(bool)
		if ok {
			*(*bool)(p) = b
		}
		return ok
	}
	return false
}

// get reads the field at p as an engine value, as the codec would encode
// it; false for what only the codec words (a NaN or an infinity).
func (k fastKind) get(p unsafe.Pointer) (any, bool) {
	switch k {
	case fastInt:
		return encodeInt(int64(*(*int)(p))), true
	case fastInt64:
		return encodeInt(*(*int64)(p)), true
	case fastInt32:
		return float64(*(*int32)(p)), true
	case fastFloat64:
		f := *(*float64)(p)
		return f, !math.IsNaN(f) && !math.IsInf(f, 0)
	case fastString:
		return *(*string)(p), true
	case fastBool:
		return *(*bool)(p), true
	}
	return nil, false
}

// isZero is omitempty's test for the field at p.
func (k fastKind) isZero(p unsafe.Pointer) bool {
	switch k {
	case fastInt:
		return *(*int)(p) == 0
	case fastInt64:
		return *(*int64)(p) == 0
	case fastInt32:
		return *(*int32)(p) == 0
	case fastFloat64:
		return *(*float64)(p) == 0
	case fastString:
		return *(*string)(p) == ""
	case fastBool:
		return !*(*bool)(p)
	}
	return false
}

// decodeInts is fastInt's set over a list, in one loop (lists of numbers
// are common and long): it stores l's elements into dst up to the first
// one it cannot take, whose index it returns (len(l) when none).
func decodeInts(dst []int, l []any) int {
	for i, e := range l {
		n, ok := wholeInt(e)
		if !ok {
			return i
		}
		dst[i] = n
	}
	return len(l)
}
