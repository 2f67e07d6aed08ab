package scenario

import (
	"context"
	"errors"
	"hash/fnv"
	"slices"
	"strconv"
	"sync"

	"github.com/superstep/superstep/engine"
)

// site is where an expression was written in its file: what an error it
// raises while the graph runs points at. Parse gives each expression
// one; an Expr made by Compile alone has none.
type site struct {
	path  string
	pos   Pos
	field string // e.g. nodes[1].update.total, branches[0].route
	src   string // the expression as written
	// node and nodeField: the node the field is inside of, as Error
	// names it ("" outside a node).
	node, nodeField string
}

// at is an *Error at s with message msg, wrapping cause.
func (s *site) at(msg string, cause error) *Error {
	return &Error{Path: s.path, Pos: s.pos, Field: s.field, Msg: msg, node: s.node, nodeField: s.nodeField, cause: cause}
}

// ExprError is an error an expression of a scenario file raised while its
// graph ran (a type error, an index out of range, a call of an unknown
// task): Err, which it wraps and whose text it keeps, since the text is
// the run's (a saved task error, a trace's message), with the place in
// the file the expression was written, which File.Where reports.
type ExprError struct {
	// Err is the error as the run reports it, e.g. "update.total: cannot
	// read 3 of null (column 9)".
	Err  error
	site *site
}

// Error is Err's text, unchanged.
func (e *ExprError) Error() string { return e.Err.Error() }

// Unwrap returns Err, for errors.Is and errors.As.
func (e *ExprError) Unwrap() error { return e.Err }

// exprErrorKind names what an ExprError keeps in a saved task error.
const exprErrorKind = "scenario.ExprError"

// SavedDetail is what a checkpoint keeps of e beside its text, when its
// task's error is saved (engine.SavedDetailer): the field of the
// expression, its node and a hash of its source, by which Where finds
// the place again in the file a later command parses. A field, not a
// line and column: the file may have been edited since; the field names
// the expression while it is there, and the hash tells when another
// expression took its field.
func (e *ExprError) SavedDetail() (kind string, detail map[string]any) {
	if e.site == nil {
		return "", nil
	}
	return exprErrorKind, map[string]any{"field": e.site.field, "node": e.site.node, "src": srcHash(e.site.src)}
}

// srcHash is a short hash of an expression's source, which a saved
// error keeps instead of the source (that may be long).
func srcHash(src string) string {
	h := fnv.New64a()
	h.Write([]byte(src))
	return strconv.FormatUint(h.Sum64(), 16)
}

// placed wraps err, an error of evaluating e, with where e was written;
// err as it is when e has no place (a Compile'd expression).
//
//go:noinline
func (e *Expr) placed(err error) error {
	if err == nil || e == nil || e.site == nil {
		return err
	}
	return &ExprError{Err: err, site: e.site}
}

// siteLog remembers, for the tasks that returned a destination the
// engine refuses or drops (a route to no node, a Send to no node, a
// label outside a path map), which expression returned it: the engine
// raises that error after the node's function returned, so it cannot
// carry the place itself. Only such tasks are noted, and at most
// maxNoted at a time.
type siteLog struct {
	mu     sync.Mutex
	byTask map[string]*site
}

// maxNoted bounds a siteLog: a long debugging session that routes to no
// node every step keeps the latest only.
const maxNoted = 1024

// note records that the task running in ctx returned a doubtful
// destination from the expression at s.
func (l *siteLog) note(ctx context.Context, s *site) {
	t, ok := engine.CurrentTask(ctx)
	if l == nil || s == nil || !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byTask == nil || len(l.byTask) >= maxNoted {
		l.byTask = map[string]*site{}
	}
	l.byTask[t.ID] = s
}

// of is the expression task id noted, nil if none.
func (l *siteLog) of(id string) *site {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byTask[id]
}

// Where is the place in f of the expression that made err, the error of
// a run of the graph Build made of f: an expression that failed (an
// *ExprError inside err, or what it saved in a task error read back from
// a store: engine.DetailedError), or one that returned a destination the engine
// refused (a route's label outside its path_map or name outside its ends,
// a Send to no node, from a route or a goto). It returns an *Error at
// that place, its field the expression's (nodes[1].update.total,
// branches[0].route, tasks.fetch.result), with message msg and wrapping
// err, so errors.Is and errors.As still find the engine's errors; false
// when err names no place of f (a scripted fail, a recursion limit, an
// error of a file not parsed from text, a saved error whose field f no
// longer has in that node, a refused destination read back from a store:
// the task that returned it is noted only while the run lasts). The
// place comes from positions recorded when f was parsed, never from
// err's text.
func (f *File) Where(err error, msg string) (*Error, bool) {
	if f == nil || err == nil {
		return nil, false
	}
	first := engine.FirstFailure(err)
	if first == nil {
		first = err
	}
	if ee := (*ExprError)(nil); errors.As(first, &ee) && ee.site != nil {
		return ee.site.at(msg, err), true
	}
	// The same error read back from a store (show, history): the field
	// it saved, while f still has the same expression there, in the same
	// node.
	if de := (*engine.DetailedError)(nil); errors.As(first, &de) && de.Kind == exprErrorKind {
		field, _ := de.Detail["field"].(string)
		node, _ := de.Detail["node"].(string)
		src, _ := de.Detail["src"].(string)
		if s := f.exprs[field]; s != nil && s.node == node && srcHash(s.src) == src {
			return s.at(msg, err), true
		}
		return nil, false
	}
	// The engine's own refusal: the innermost failed task that noted a
	// destination (a subgraph's node inside the node that ran it).
	var found *site
	for e := first; ; {
		var ne *engine.NodeError
		if !errors.As(e, &ne) {
			break
		}
		if s := f.sites.of(ne.TaskID); s != nil {
			found = s
		}
		e = ne.Err
	}
	if found == nil {
		return nil, false
	}
	return found.at(msg, err), true
}

// WhereTask is the place in f of the expression that made task id (an
// engine.Event's TaskID) return a destination the engine dropped (a
// route or goto to no node, EventUnknownNode), as an *Error with message
// msg; false when it noted none.
func (f *File) WhereTask(id, msg string) (*Error, bool) {
	if f == nil {
		return nil, false
	}
	s := f.sites.of(id)
	if s == nil {
		return nil, false
	}
	return s.at(msg, nil), true
}

// destinations checks what a route or goto returned for the engine, for
// Where: whether it holds a destination the engine refuses or drops.
type destinations struct {
	nodes   map[string]bool
	ends    []string // a branch's or node's ends; nil: any node
	pathMap map[string]bool
}

// doubtful reports whether v, a route's or goto's result, has a
// destination the engine refuses or drops: nothing, a name that is no
// node (nor __end__), a label outside the path map or a name outside the
// ends, a Send to no node, a value of another type.
func (d *destinations) doubtful(v any) bool {
	switch x := v.(type) {
	case string:
		if d.pathMap != nil {
			return !d.pathMap[x]
		}
		if d.ends != nil && !slices.Contains(d.ends, x) {
			return true
		}
		return x != End && !d.nodes[x]
	case engine.Send:
		return !d.nodes[x.Node]
	case []any:
		last := ""
		for _, it := range x {
			if s, ok := it.(engine.Send); ok && s.Node == last && last != "" {
				continue // a fan-out: its node checked already
			}
			if d.doubtful(it) {
				return true
			}
			if s, ok := it.(engine.Send); ok {
				last = s.Node
			}
		}
		return false
	}
	return true
}
