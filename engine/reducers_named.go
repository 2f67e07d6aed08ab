package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Reducers users commonly write for LangGraph state keys, named so that
// graphs loaded from files can use them. Each must not modify its
// arguments.

// ConcatReducer joins strings: current + write (a string key that grows).
func ConcatReducer(current, write any) (any, error) {
	a, ok1 := current.(string)
	b, ok2 := write.(string)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("concat expects strings, got %s and %s", typeOf(current), typeOf(write))
	}
	return a + b, nil
}

// SumReducer adds numbers: current + write (a counter).
func SumReducer(current, write any) (any, error) {
	a, ok1 := Normalize(current).(float64)
	b, ok2 := Normalize(write).(float64)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("sum expects numbers, got %s and %s", typeOf(current), typeOf(write))
	}
	return a + b, nil
}

// MergeReducer merges maps one level deep: the write's keys replace the
// current ones ({...current, ...write}).
func MergeReducer(current, write any) (any, error) {
	a, ok1 := current.(map[string]any)
	b, ok2 := write.(map[string]any)
	if current == nil {
		a, ok1 = map[string]any{}, true
	}
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("merge expects maps, got %s and %s", typeOf(current), typeOf(write))
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]any{}
	}
	maps.Copy(out, b)
	return out, nil
}

// SortedReducer appends like AppendReducer, then sorts the list by the
// items' string forms (JavaScript's default sort order, which the sorted_add
// reducer of LangGraph's fan-out tests uses).
func SortedReducer(current, write any) (any, error) {
	l, err := AppendReducer(current, write)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(l.([]any))
	slices.SortStableFunc(out, func(x, y any) int { return strings.Compare(sortForm(x), sortForm(y)) })
	return out, nil
}

// sortForm is an item's string form for SortedReducer: strings as they are,
// numbers as JavaScript prints them, anything else as JSON.
func sortForm(v any) string {
	switch x := Normalize(v).(type) {
	case string:
		return x
	case float64:
		return FormatNumber(x)
	case nil:
		return "null"
	default:
		return string(MustEncode(x))
	}
}

func typeOf(v any) string {
	switch Normalize(v).(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("%T", v)
}

// NamedReducer returns the built-in reducer called name and its default
// value: add (lists), add_messages, concat (strings), sum (numbers), merge
// (maps), sorted (sorted lists). ok is false for an unknown name.
func NamedReducer(name string) (fn Reducer, dflt any, ok bool) {
	switch name {
	case "add":
		return AppendReducer, []any{}, true
	case "add_messages":
		return AddMessagesReducer, []any{}, true
	case "concat":
		return ConcatReducer, "", true
	case "sum":
		return SumReducer, 0.0, true
	case "merge":
		return MergeReducer, map[string]any{}, true
	case "sorted":
		return SortedReducer, []any{}, true
	}
	return nil, nil, false
}
