package engine

// OverwriteKey is the key of Overwrite's wire form {"__overwrite__": value}
// (LangGraph's OVERWRITE constant).
const OverwriteKey = "__overwrite__"

// Overwrite, written to a reducer key, replaces the key's value instead of
// being folded in by the reducer. Only one Overwrite per key may arrive in
// a superstep (a second one is an InvalidUpdateError), and plain writes that
// come after it in task order are ignored (LangGraph's Overwrite,
// langgraph types.py:978; LangGraph.js constants.ts Overwrite).
//
// Once written, an Overwrite is stored in its wire form, the map
// {"__overwrite__": value}, which LangGraph also accepts from a node, so it
// survives a checkpointer unchanged.
type Overwrite struct {
	Value any // the key's new value
}

// overwriteValue reports whether v is an Overwrite, in any of the forms
// LangGraph.js recognises (constants.ts _getOverwriteValue; Python
// channels/binop.py:31 _get_overwrite): the Overwrite type, a map holding
// "__overwrite__", or {"type": "__overwrite__", "value": v} (an Overwrite
// serialized by another runtime).
func overwriteValue(v any) (any, bool) {
	switch x := v.(type) {
	case Overwrite:
		return x.Value, true
	case *Overwrite:
		if x != nil {
			return x.Value, true
		}
	case map[string]any:
		if val, ok := x[OverwriteKey]; ok {
			return val, true
		}
		if t, _ := x["type"].(string); t == OverwriteKey {
			if val, ok := x["value"]; ok {
				return val, true
			}
		}
	}
	return nil, false
}

// anyOverwrite reports whether some write of vals is an Overwrite.
func anyOverwrite(vals []any) bool {
	for _, v := range vals {
		if _, ok := overwriteValue(v); ok {
			return true
		}
	}
	return false
}
