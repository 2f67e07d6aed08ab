package typed

import (
	"reflect"
	"strings"
	"unsafe"
)

// structCodec is the direct path for plain structs: exported fields named
// by their json tags, with omitempty. A struct using anything else
// encoding/json gives meaning to (embedded fields, the ",string" option)
// goes through encoding/json instead, so the two never disagree.
type structField struct {
	index     int
	key       string
	omitEmpty bool
	codec     *codec
	offset    uintptr
	fast      fastKind
}

func plainStructFields(t reflect.Type) ([]structField, bool) {
	var fields []structField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil, false
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		omit := false
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "":
			case "omitempty":
				omit = true
			default:
				return nil, false // ",string", ",omitzero", ",inline", …
			}
		}
		if name == "" {
			name = sf.Name
		}
		fields = append(fields, structField{index: i, key: name, omitEmpty: omit, codec: codecBuilding(sf.Type), offset: sf.Offset, fast: fastKindFor(sf.Type)})
	}
	return fields, true
}

func structCodec(t reflect.Type) codec {
	fields, ok := plainStructFields(t)
	if !ok {
		return jsonCodec(t)
	}
	return codec{
		scalars: newScalarStruct(fields),
		enc: func(v reflect.Value, depth int) (any, error) {
			if err := enterLevel(depth); err != nil {
				return nil, err
			}
			out := make(map[string]any, len(fields))
			for _, f := range fields {
				fv := v.Field(f.index)
				if f.omitEmpty && isEmpty(fv) {
					continue
				}
				e, err := f.codec.enc(fv, depth+1)
				if err != nil {
					return nil, err
				}
				out[f.key] = e
			}
			return out, nil
		},
		dec: func(dst reflect.Value, v any) error {
			if x := reflect.ValueOf(v); x.IsValid() && x.Type() == t {
				dst.Set(x)
				return nil
			}
			m, ok := v.(map[string]any)
			if !ok {
				if v == nil {
					return nil // null leaves a struct as it is, as in encoding/json
				}
				return mismatch(dst, v, nil)
			}
			dst.SetZero()
			var base unsafe.Pointer // set when dst is addressable: scalars skip reflect
			if dst.CanAddr() {
				base = dst.Addr().UnsafePointer()
			}
			for _, f := range fields {
				e, found := m[f.key]
				if !found {
					if e, found = foldedKey(m, f.key); !found {
						continue
					}
				}
				if base != nil && f.fast.set(unsafe.Add(base, f.offset), e) {
					continue
				}
				if err := f.codec.dec(dst.Field(f.index), e); err != nil {
					return atPath(err, "."+f.key)
				}
			}
			return nil
		},
	}
}

// scalarStruct is the direct path of a plain struct whose fields are all
// fast kinds (a Send's argument of numbers, strings and bools): it reads
// and writes such a struct through its address, without a reflect.Value
// per field. Its methods are static calls, so a caller's struct that
// they read or fill can stay on the caller's stack.
type scalarStruct struct {
	fields []structField
}

func newScalarStruct(fields []structField) *scalarStruct {
	for _, f := range fields {
		if f.fast == fastNone {
			return nil
		}
	}
	return &scalarStruct{fields: fields}
}

// decAt decodes v into the zero struct at p. It takes an engine object
// holding every field's key exactly, and leaves anything else — a missing
// or differently-cased key, a value of another type — to the codec's dec
// (reporting false).
func (s *scalarStruct) decAt(p unsafe.Pointer, v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for i := range s.fields {
		f := &s.fields[i] // not a copy: a field is seven words
		e, found := m[f.key]
		if !found {
			return false
		}
		fp := unsafe.Add(p, f.offset)
		if f.fast == fastInt { // the usual field, without a call
			n, ok := wholeInt(e)
			if !ok {
				return false
			}
			*(*int)(fp) = n
		} else if !f.fast.setOther(fp, e) {
			return false
		}
	}
	return true
}

// encAt is the object the codec's enc makes of the struct at p; false
// for what only enc words (a NaN), and on a nil s.
func (s *scalarStruct) encAt(p unsafe.Pointer) (any, bool) {
	if s == nil {
		return nil, false // not a struct of scalars: the codec encodes it
	}
	var out map[string]any
	if len(s.fields) <= 8 {
		out = make(map[string]any) // the runtime's small map: one group, no sizing (a Send's argument)
	} else {
		out = make(map[string]any, len(s.fields))
	}
	for i := range s.fields {
		f := &s.fields[i]
		fp := unsafe.Add(p, f.offset)
		if f.omitEmpty && f.fast.isZero(fp) {
			continue
		}
		if f.fast == fastInt { // the usual field, without a call
			if n := *(*int)(fp); n >= -(1<<53) && n <= 1<<53 {
				out[f.key] = float64(n)
				continue
			}
		}
		v, ok := f.fast.get(fp)
		if !ok {
			return nil, false
		}
		out[f.key] = v
	}
	return out, true
}

// foldedKey finds key case-insensitively, as encoding/json matches object
// keys to fields when there is no exact match.
func foldedKey(m map[string]any, key string) (any, bool) {
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
