package typed

import "reflect"

// AppendList is a list state field whose writes are appended to it
// (LangGraph's Annotated[list, operator.add]), declared by its type:
//
//	type State struct {
//		Results typed.AppendList[int] `json:"results"`
//	}
//
// It is the same channel as a []T tagged `reducer:"append"`, and reads as
// one: an AppendList[int] is assignable to and from []int, so len, range,
// indexing and passing s.Results to a func([]int) need no conversion. What
// the type adds is Append, which only compiles on an AppendList field.
// Tagging it `reducer:"append"` changes nothing; any other reducer tag is a
// *SchemaError when the graph is built.
type AppendList[T any] []T

// appendList marks AppendList types for the schema (an unexported method:
// a type defined from an AppendList has no methods, and is a plain slice).
func (AppendList[T]) appendList() {}

// appendLister is implemented by AppendList types alone.
type appendLister interface{ appendList() }

var appendListerType = reflect.TypeFor[appendLister]()

// isAppendList reports whether t is an AppendList type.
func isAppendList(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Implements(appendListerType)
}

// Append says "append these items to this field": the write of an
// AppendList field is the items themselves, as a Set of a list would be,
//
//	return typed.Write(out, typed.Append(&out.Results, arg.N*2)), nil
//
// but Append takes the items, not a list to hold them: it copies them (or
// encodes them at once, for ints and strings), so the implicit list of a
// call stays on the caller's stack, where a []int{x} given to Set is an
// allocation of its own (Set keeps a value it does not encode).
//
// Append is for AppendList fields only, so that appending to a LastValue
// field does not compile: a plain field has no "append" to mean, and
// Append's other possible meanings there (replace the field with the items,
// or with its value plus the items read from the node's copy) would each
// be wrong for some node. Append with no items appends nothing, and still
// writes the field (a write of an empty list: its channel's version moves,
// as it would for Set(&s.F, nil)).
func Append[T any](field *AppendList[T], items ...T) Change {
	// The encodings of Set, on the items' list, which does not escape:
	// each case reads it, none keeps it.
	switch l := any(items).(type) {
	case []int, []string:
		if out := encodeList(l); out != nil {
			return Change{ptr: field, value: out}
		}
	}
	own := make(AppendList[T], len(items))
	copy(own, items)
	return Change{ptr: field, value: own}
}
