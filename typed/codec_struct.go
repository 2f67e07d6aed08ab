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
		decAt: structDecAt(fields),
		encAt: structEncAt(fields),
		enc: func(v reflect.Value) (any, error) {
			out := make(map[string]any, len(fields))
			for _, f := range fields {
				fv := v.Field(f.index)
				if f.omitEmpty && isEmpty(fv) {
					continue
				}
				e, err := f.codec.enc(fv)
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

// structDecAt is a plain struct's codec.decAt when every field has a fast
// setter (a Send's argument of numbers and strings): it takes an engine
// object holding every field's key exactly, and leaves anything else —
// a missing or differently-cased key, a value of another type — to dec.
func structDecAt(fields []structField) func(p unsafe.Pointer, v any) bool {
	for _, f := range fields {
		if f.fast == fastNone {
			return nil
		}
	}
	return func(p unsafe.Pointer, v any) bool {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, f := range fields {
			e, found := m[f.key]
			if !found || !f.fast.set(unsafe.Add(p, f.offset), e) {
				return false
			}
		}
		return true
	}
}

// structEncAt is a plain struct's codec.encAt when every field is a fast
// kind (a Send's argument of numbers and strings): the object enc would
// make, without a reflect.Value per field.
func structEncAt(fields []structField) func(p unsafe.Pointer) (any, bool) {
	for _, f := range fields {
		if f.fast == fastNone {
			return nil
		}
	}
	return func(p unsafe.Pointer) (any, bool) {
		out := make(map[string]any, len(fields))
		for _, f := range fields {
			fp := unsafe.Add(p, f.offset)
			if f.omitEmpty && f.fast.isZero(fp) {
				continue
			}
			v, ok := f.fast.get(fp)
			if !ok {
				return nil, false
			}
			out[f.key] = v
		}
		return out, true
	}
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
