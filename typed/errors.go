package typed

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/superstep/superstep/engine"
	"reflect"
)

// Sentinel errors.
var (
	// ErrNotStruct is returned by NewGraph when the state type is not a
	// struct.
	ErrNotStruct = errors.New("typed: the state type must be a struct")
	// ErrNotAField is returned when an Update sets a pointer that does not
	// address a state field of the struct it was built on (a local variable,
	// a nested field, or a field without a state key).
	ErrNotAField = errors.New("typed: Set was given a pointer that is not a state field")
	// ErrDecode is wrapped by every DecodeError.
	ErrDecode = errors.New("typed: value does not fit its Go type")
)

// DecodeError is returned when a stored or written value does not fit the
// Go type it is read into: a state field, a Send argument or an interrupt
// answer. Where names what was read ("state field Total (key \"total\")",
// "interrupt answer"); Path is the position inside the value ("[2].when").
type DecodeError struct {
	Where string       // what was read: a state field, a Send argument, an answer
	Path  string       // where inside it: "[2]", ".when", `["key"]`; "" for the whole
	Type  reflect.Type // the Go type that was wanted there
	Value any          // the engine value found there
	Err   error        // the cause, if any
}

// Error says what, where, which value and which type.
func (e *DecodeError) Error() string {
	at := e.Where
	if e.Path != "" {
		at += " at " + e.Path
	}
	msg := fmt.Sprintf("typed: %s: cannot read %s into %s", at, describe(e.Value), e.Type)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns ErrDecode and the cause.
func (e *DecodeError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrDecode}
	}
	return []error{ErrDecode, e.Err}
}

// EncodeError is returned when a Go value cannot be turned into a state
// value (a channel, a function, a NaN number); Where names the field.
type EncodeError struct {
	Where string // the field, Send argument, payload or answer
	Err   error  // why it has no JSON form
}

// Error names what could not be encoded and why.
func (e *EncodeError) Error() string { return fmt.Sprintf("typed: %s: %v", e.Where, e.Err) }

// Unwrap returns the cause.
func (e *EncodeError) Unwrap() error { return e.Err }

// SchemaError is returned by Compile when the state struct cannot be a
// schema: an unknown reducer name, a reducer tag on a type it cannot fold,
// two fields with one key.
type SchemaError struct {
	// Graph is the name given to NewGraph: one state type may serve
	// several graphs (a subgraph's included), and a reducer is registered
	// on each graph with WithReducer, not on the type.
	Graph  string
	Struct reflect.Type // the state type
	Field  string       // the Go field at fault; "" for the whole struct
	Msg    string       // what is wrong
}

// Error names the graph, the state type, the field and the problem.
func (e *SchemaError) Error() string {
	graph := ""
	if e.Graph != "" {
		graph = fmt.Sprintf("graph %q: ", e.Graph)
	}
	if e.Field == "" {
		return fmt.Sprintf("typed: %sstate %s: %s", graph, e.Struct, e.Msg)
	}
	return fmt.Sprintf("typed: %sstate %s, field %s: %s", graph, e.Struct, e.Field, e.Msg)
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("string %q", x)
	case float64:
		return "number " + engine.FormatNumber(x)
	case json.Number:
		return "number " + string(x)
	case bool:
		return fmt.Sprintf("bool %v", x)
	case []any:
		return fmt.Sprintf("list of %d", len(x))
	case map[string]any:
		return fmt.Sprintf("object of %d keys", len(x))
	}
	return fmt.Sprintf("%T", v)
}
