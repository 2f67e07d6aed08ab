package scenario

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/superstep/superstep/engine"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// Entry and exit names of every graph.
const (
	Start = "__start__"
	End   = "__end__"
	// Input is the as_node of an update_state that writes a new input.
	Input = "__input__"
	// Copy is the as_node of an update_state that copies the checkpoint as
	// a fork.
	Copy = "__copy__"
)

// File is a parsed scenario file.
type File struct {
	Path, Name, Description string
	Graph                   // the root graph
	Subgraphs               map[string]*Graph
	// Entrypoint and Tasks: the functional API (instead of a graph).
	Entrypoint      *Entrypoint
	Tasks           []*TaskDef
	InterruptBefore []string
	InterruptAfter  []string
	// InterruptBeforeAll and InterruptAfterAll: the field was the bare
	// string "*" (every node).
	InterruptBeforeAll, InterruptAfterAll bool
	Ops                                   []Op
	Perf                                  *Perf // nil when absent

	// lintPos says where Lint's findings were written: expressions by
	// their field, update and input keys by their field.
	lintPos map[string]Pos
	// namePos says where each name was written, by its field
	// (edges[0][1], branches[2].path_map.done, interrupt_before[0]), and
	// graphPos where each graph ("" the root, subgraphs.NAME), its edges
	// field and its state keys were: Build points a graph's compile
	// errors at them.
	namePos, graphPos map[string]Pos
	// sites notes which expression returned a destination the engine
	// refused, by task, for Where (nil for a File not parsed).
	sites *siteLog
	// exprs are the expressions' places by their field, for Where to
	// place an error read back from a store (nil for a File not parsed).
	exprs map[string]*site
}

// Perf is the expected size of a performance workload.
type Perf struct {
	Supersteps, Tasks int
}

// Graph is a graph as data: the root graph or a subgraph.
type Graph struct {
	// Stateful (subgraphs only) keeps the subgraph's state across the
	// parent's invocations on a thread (LangGraph's checkpointer: true).
	Stateful bool
	// InterruptBefore / InterruptAfter (subgraphs only): the subgraph's own
	// breakpoints, compiled into it (the root's are File's); the All forms
	// are the bare "*".
	InterruptBefore, InterruptAfter       []string
	InterruptBeforeAll, InterruptAfterAll bool
	State                                 []StateKey // in file order
	Nodes                                 []*Node
	Edges                                 []Edge
	Branches                              []*Branch
}

// Reducers a state key may name.
const (
	ReducerAdd         = "add"
	ReducerAddMessages = "add_messages"
)

// StateKey is one state key and its channel.
type StateKey struct {
	Name    string
	Reducer string // "" (LastValue) or a name engine.NamedReducer knows
	Default any    // for reducers: the channel's initial value (the reducer's own when not given)
}

// Edge is a static edge; a join edge fires when all of From have run.
type Edge struct {
	From []string
	To   string
	Join bool // From was a list in the file
	Pos  Pos
}

// Branch is a conditional edge.
type Branch struct {
	From  string
	Route *Expr
	Ends  []string // nil when omitted
	// PathMap maps the labels Route returns to nodes (nil when omitted).
	PathMap []KeyValue
	Pos     Pos
}

// Node is a scripted node.
type Node struct {
	Name       string
	Interrupts []*Expr
	UpdateKeys []KeyExpr // "update" as a map, in file order
	UpdateExpr *Expr     // "update" as one expression
	Goto       *Expr
	Fail       *Fail
	Retry      *Retry
	Subgraph   string
	Invoke     string      // a subgraph the node's function invokes (engine.InvokeSubgraph)
	Calls      []CallGroup // task calls made first (functional API)
	Ends       []string    // nil when omitted
	SleepMS    int
	Defer      bool   // run only when nothing else is left to run
	TimeoutMS  int    // each attempt's run timeout (0: none)
	Parent     bool   // update and goto go to the parent graph (Command.PARENT)
	Emit       *Expr  // a value for the custom stream mode
	Cache      *Cache // cache the node's writes by input
	Pos        Pos
}

// KeyExpr is one entry of a node's update map.
type KeyExpr struct {
	Key  string
	Expr *Expr
}

// Fail makes a node raise on its first Times attempts in a scenario; a
// failing attempt works AfterMS milliseconds before it raises.
type Fail struct {
	Times   int
	Message string
	AfterMS int
}

// Cache is a node's cache policy: Key (an expression over the node's
// input; nil: the whole input) makes the key, TTLSeconds bounds an entry's
// life (0: forever).
type Cache struct {
	Key        *Expr
	TTLSeconds int
}

// Retry is a node's retry policy.
type Retry struct {
	MaxAttempts int // counts the first attempt
	// InitialIntervalMS, BackoffFactor and MaxIntervalMS shape the waits
	// between attempts (0, 1 and no cap by default); Jitter adds up to a
	// second to each.
	InitialIntervalMS int
	BackoffFactor     float64
	MaxIntervalMS     int
	Jitter            bool
	// RetryOn lists what is retried (nil: every error): the message of a
	// scripted fail, or "NodeTimeoutError".
	RetryOn []string
}

// Op kinds.
const (
	OpInvoke      = "invoke"
	OpResume      = "resume"
	OpGetState    = "get_state"
	OpUpdateState = "update_state"
	OpHistory     = "history"
	OpBulkUpdate  = "bulk_update"
	OpClearCache  = "clear_cache"
)

// Op is one step of a scenario's script.
type Op struct {
	Index    int
	Kind     string
	Thread   string
	Input    any // invoke; nil if null or absent
	HasInput bool
	// RecursionLimit is the run's recursion limit, when HasRecursionLimit.
	// One below 1 is kept: the op fails, as LangGraph's invoke refuses it.
	RecursionLimit    int
	HasRecursionLimit bool
	MaxConcurrency    int // 0 when not given
	// Durability is the run's durability ("sync", "async" or "exit";
	// "" when not given: LangGraph's default, async).
	Durability string
	From       string // "fork" or ""
	AtStep     *int
	Value      any // resume
	HasValue   bool
	ByNode     []KeyValue // resume, in file order
	Values     any        // update_state; may be nil
	Context    any        // invoke, resume: the runtime context (nil when absent)
	Command    *Command   // invoke: a Command as input (nil when absent)
	Stream     []string   // invoke, resume: stream modes to record (values, updates, custom)
	Supersteps [][]Update // bulk_update: the updates of each superstep
	StreamSubs bool       // invoke, resume: record subgraphs' chunks too
	// SubgraphState (get_state "subgraphs": true) records each subgraph
	// task's own state (LangGraph's get_state(subgraphs=True)).
	SubgraphState bool
	// SubgraphOf ("subgraph": node on history, get_state, update_state)
	// addresses the namespace of the latest checkpoint's pending task for
	// that subgraph node, the SubgraphTask-th of them (0: the first).
	SubgraphOf   string
	SubgraphTask int
	AsNode       string
	HasAsNode    bool
	// history: at most Limit snapshots (0: all), only those whose
	// metadata has Filter's values ("source", "step"), only checkpoints
	// before the newest one of step *Before (LangGraph's
	// get_state_history limit, filter and before).
	Limit  int
	Filter map[string]any
	Before *int
	Pos    Pos
}

// Command is a LangGraph Command given as run input.
type Command struct {
	Update    any   // a map of state keys, or nil
	Goto      []any // node names and Sends
	Resume    any
	HasResume bool
}

// Update is one update of a bulk_update superstep.
type Update struct {
	Values    any
	AsNode    string
	HasAsNode bool
}

// KeyValue is one entry of an ordered JSON object.
type KeyValue struct {
	Key   string
	Value any
}

// Pos is a 1-based line and column (in characters) in a scenario file.
type Pos struct {
	Line, Col int
}

// ErrInvalidGraph is wrapped by errors about a graph that is well formed but
// that LangGraph would refuse to compile: Parse's (an edge, join or route
// from no node, a join or a node's ends to none, a duplicate node, an
// unknown reducer or subgraph) and Build's, which place the engine's
// compile errors (a node nothing reaches, an edge's or route's end or an
// interrupt name that is no node). The reference runner reports such a
// graph as a compile_error trace, so Parse returns the File along with the
// error for callers that need to do the same.
var ErrInvalidGraph = errors.New("invalid graph")

// Error is a problem in a scenario file, at a position.
type Error struct {
	Path  string
	Pos   Pos
	Field string // e.g. "nodes[2].update.total"; "" for JSON syntax errors
	Msg   string

	node      string // name of the node Field is inside of, if known
	nodeField string // Field's prefix that designates that node
	graph     bool   // wraps ErrInvalidGraph
	cause     error  // the engine's *CompileError it places, or nil
}

// Error is the place, then the message: path:line:column: field: msg.
func (e *Error) Error() string {
	return e.Place() + ": " + e.Msg
}

// Place is where the error is, as Error begins with it: the file's path,
// line and column, then the field when there is one, with the node it
// is inside of ("flow.json:4:42: nodes[1] \"b\": update.n").
func (e *Error) Place() string {
	loc := fmt.Sprintf("%s:%d:%d", e.Path, e.Pos.Line, e.Pos.Col)
	where := e.Field
	if e.node != "" && strings.HasPrefix(where, e.nodeField) {
		rest := strings.TrimPrefix(strings.TrimPrefix(where, e.nodeField), ".")
		where = fmt.Sprintf("%s %q", e.nodeField, e.node)
		if rest != "" {
			where += ": " + rest
		}
	}
	if where == "" {
		return loc
	}
	return loc + ": " + where
}

// Unwrap returns ErrInvalidGraph for a graph LangGraph would refuse to
// compile, and the engine's *engine.CompileError that an error of Build
// places in the file.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.graph {
		errs = append(errs, ErrInvalidGraph)
	}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}

// Errors are several problems of one scenario file, each at its place,
// in the order a person fixes them: Build's errors for a graph that does
// not compile, one for each engine.CompileError.
type Errors []*Error

// Error is the problems' messages, one a line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes each problem to errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// MaxFileBytes bounds a scenario file's size. The largest scenario in
// the conformance and performance suites is well under a megabyte; a file
// past the bound is refused before it is parsed, not read until memory
// runs out.
const MaxFileBytes = 16 << 20

// ErrNotRegularFile is returned (inside a *FileError) for a path that is
// not a regular file: a directory, a device such as /dev/zero, a pipe.
var ErrNotRegularFile = errors.New("not a regular file")

// ErrFileTooLarge is returned (inside a *FileError) for a file larger than
// MaxFileBytes.
var ErrFileTooLarge = errors.New("scenario file too large")

// FileError is returned by Load for a file it will not read.
type FileError struct {
	Path string
	Size int64 // the file's size, for ErrFileTooLarge
	Err  error // ErrNotRegularFile or ErrFileTooLarge
}

// Error names the file and what is wrong with it.
func (e *FileError) Error() string {
	if e.Err == ErrFileTooLarge {
		return fmt.Sprintf("%s: scenario file is %d bytes, more than the %d a scenario may have", e.Path, e.Size, MaxFileBytes)
	}
	return fmt.Sprintf("%s: not a regular file, so not a scenario file", e.Path)
}

func (e *FileError) Unwrap() error { return e.Err }

// Load reads and parses a scenario file: a regular file of at most
// MaxFileBytes (else a *FileError).
func Load(path string) (*File, error) {
	// Stat first: opening a FIFO blocks until a writer comes, and the
	// open of a device may act (a tape rewinds).
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, &FileError{Path: path, Err: ErrNotRegularFile}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() { // replaced between the two looks
		return nil, &FileError{Path: path, Err: ErrNotRegularFile}
	}
	if fi.Size() > MaxFileBytes {
		return nil, &FileError{Path: path, Size: fi.Size(), Err: ErrFileTooLarge}
	}
	// The file may grow after Stat: read one byte past the bound at most.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, &FileError{Path: path, Size: int64(len(data)), Err: ErrFileTooLarge}
	}
	return Parse(path, data)
}

// Parse parses a scenario file; path is used in errors. Every error is an
// *Error. When the only errors wrap ErrInvalidGraph the File is returned too.
func Parse(path string, data []byte) (*File, error) {
	// A byte order mark before the JSON (Notepad, PowerShell's Out-File
	// write one) is not part of the document, and positions count from
	// after it, as the editor that hid it shows them.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Path: path, Pos: Pos{1, 1}, Msg: "the file is empty: a scenario file is a JSON object with state, nodes and edges (docs/scenario-format.md)"}
	}
	root, err := parseTree(data, newLines(data))
	if err != nil {
		se := err.(*syntaxError)
		return nil, &Error{Path: path, Pos: se.pos, Msg: se.msg}
	}
	p := &parser{path: path, namePos: map[string]Pos{}, lintPos: map[string]Pos{}, graphPos: map[string]Pos{}, exprs: map[string]*site{}}
	f := p.file(root)
	f.lintPos, f.namePos, f.graphPos, f.exprs = p.lintPos, p.namePos, p.graphPos, p.exprs
	f.sites = &siteLog{}
	if p.err == nil {
		p.check(f)
	}
	switch {
	case p.err == nil:
		return f, nil
	case p.err.graph:
		return f, p.err
	default:
		return nil, p.err
	}
}

// parser maps a jnode tree to the model. It keeps the first error and goes
// on with zero values, which keeps the mapping code free of error plumbing.
type parser struct {
	functional bool // the file has an entrypoint
	path       string
	err        *Error
	// the node being read, so that its errors can name it
	node, nodeField string
	// where each name was written, for errors found after the whole file is read
	namePos map[string]Pos
	// where expressions, update keys and input keys were written (Lint)
	lintPos map[string]Pos
	// where graphs, their edges fields and state keys were written
	// (File.graphPos)
	graphPos map[string]Pos
	// each expression's place, by its field (File.exprs)
	exprs map[string]*site
}

func (p *parser) failAt(pos Pos, field, format string, args ...any) {
	if p.err != nil {
		return
	}
	p.err = &Error{Path: p.path, Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)}
	if p.node != "" && strings.HasPrefix(field, p.nodeField) {
		p.err.node, p.err.nodeField = p.node, p.nodeField
	}
}

func (p *parser) fail(n *jnode, field, format string, args ...any) {
	p.failAt(n.pos, field, format, args...)
}

// graphFail records an error that wraps ErrInvalidGraph.
func (p *parser) graphFail(pos Pos, field, format string, args ...any) {
	if p.err == nil {
		p.failAt(pos, field, format, args...)
		p.err.graph = true
	}
}

func join2(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func index2(field string, i int) string { return fmt.Sprintf("%s[%d]", field, i) }

// fields checks that n is an object with only the allowed keys.
func (p *parser) fields(n *jnode, field string, allowed ...string) bool {
	if n.kind != jsonObject {
		p.fail(n, field, "expected an object, got %s", n.kind)
		return false
	}
	for _, f := range n.fields {
		if !slices.Contains(allowed, f.key) {
			if m := fieldMeant(allowed, f.key); m != "" {
				p.failAt(f.keyPos, join2(field, f.key), "unknown field %q (did you mean %q?)", f.key, m)
			} else {
				p.failAt(f.keyPos, join2(field, f.key), "unknown field %q (expected one of %s)", f.key, strings.Join(allowed, ", "))
			}
			return false
		}
	}
	return true
}

// fieldAliases are field names of LangGraph's APIs (Python's, JavaScript's)
// and the scenario fields that mean the same.
var fieldAliases = map[string]string{
	"max_retries": "max_attempts", "retries": "max_attempts", "retry_policy": "retry",
	"cache_policy": "cache", "checkpoint_during": "durability",
}

// fieldMeant is the field of allowed that key likely means: a misspelling
// of one, LangGraph.js's camelCase form of one (maxAttempts), or a name
// LangGraph uses for it; "" when none.
func fieldMeant(allowed []string, key string) string {
	if m := engine.MeantName(allowed, key); m != "" {
		return m
	}
	var snake strings.Builder
	for i, r := range key {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				snake.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		snake.WriteRune(r)
	}
	if s := snake.String(); s != key && slices.Contains(allowed, s) {
		return s
	}
	if m, ok := fieldAliases[key]; ok && slices.Contains(allowed, m) {
		return m
	}
	return ""
}

func (p *parser) str(n *jnode, field string) string {
	if n.kind != jsonString {
		p.fail(n, field, "expected a string, got %s", n.kind)
		return ""
	}
	return n.scalar.(string)
}

func (p *parser) name(n *jnode, field string) string {
	p.namePos[field] = n.pos
	s := p.str(n, field)
	if s == "" && n.kind == jsonString {
		p.fail(n, field, "expected a non-empty name")
	}
	return s
}

func (p *parser) integer(n *jnode, field string, least int) int {
	f, ok := n.scalar.(float64)
	switch {
	case !ok && n.kind == jsonString && isNumeral(n.scalar.(string)):
		p.fail(n, field, "expected an integer, got the string %q: write %s without quotes", n.scalar, n.scalar)
	case !ok:
		p.fail(n, field, "expected an integer, got %s", n.kind)
	case f != math.Trunc(f) || math.Abs(f) > 1<<53:
		p.fail(n, field, "expected an integer, got %v", f)
	case f < float64(least):
		p.fail(n, field, "expected an integer of at least %d, got %v", least, f)
	default:
		return int(f)
	}
	return 0
}

// isNumeral reports whether s is a JSON number, which an author may have
// quoted by mistake.
func isNumeral(s string) bool {
	var v any
	err := json.Unmarshal([]byte(s), &v)
	_, num := v.(float64)
	return err == nil && num
}

func (p *parser) boolean(n *jnode, field string) bool {
	b, ok := n.scalar.(bool)
	if !ok || n.kind != jsonBool {
		p.fail(n, field, "expected true or false, got %s", n.kind)
	}
	return b
}

func (p *parser) list(n *jnode, field string) []*jnode {
	if n.kind != jsonArray {
		// One item written without its list: say how to write the list.
		switch n.kind {
		case jsonObject:
			p.fail(n, field, "expected a list, got %s: put it in brackets, [{…}]", n.kind)
		case jsonNull:
			p.fail(n, field, "expected a list, got null: write [] for none")
		default:
			v, _ := json.Marshal(n.value())
			p.fail(n, field, "expected a list, got %s: write [%s]", n.kind, v)
		}
		return nil
	}
	return n.elems
}

// listAsObject is the object an author who wrote list n likely meant, as
// JSON: its strings as keys, each with the value val ("null", or "same"
// for the string itself), or its objects by their "name", each {…}.
func listAsObject(n *jnode, val string) string {
	var parts []string
	for _, e := range n.elems {
		name := ""
		switch e.kind {
		case jsonString:
			name = e.scalar.(string)
		case jsonObject:
			if v := e.field("name"); v != nil && v.kind == jsonString {
				name = v.scalar.(string)
			}
		}
		if name == "" {
			continue
		}
		k, _ := json.Marshal(name)
		switch {
		case e.kind == jsonObject:
			parts = append(parts, string(k)+": {…}")
		case val == "same":
			parts = append(parts, string(k)+": "+string(k))
		default:
			parts = append(parts, string(k)+": "+val)
		}
	}
	if len(parts) == 0 {
		return "{…}"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// breakpoints reads interrupt_before / interrupt_after: a list of node
// names, or the bare string "*" for every node (all). LangGraph takes "*"
// only bare; in a list it is refused when the graph is built.
func (p *parser) breakpoints(n *jnode, field string) (names []string, all bool) {
	if n.kind == jsonString {
		if s := p.str(n, field); s != "*" {
			p.fail(n, field, `expected a list of node names or "*", got %q`, s)
		}
		return nil, true
	}
	return p.names(n, field), false
}

func (p *parser) names(n *jnode, field string) []string {
	elems := p.list(n, field)
	out := make([]string, 0, len(elems))
	for i, e := range elems {
		out = append(out, p.name(e, index2(field, i)))
	}
	return out
}

func (p *parser) expr(n *jnode, field string) *Expr {
	if n.kind != jsonString {
		// An expression is a string: say how to write what was meant.
		switch n.kind {
		case jsonNumber, jsonBool, jsonNull:
			v, _ := json.Marshal(n.value())
			p.fail(n, field, "expected an expression (a string), got %s: write \"%s\"", n.kind, v)
		default:
			p.fail(n, field, "expected an expression (a string), got %s: write it as one, e.g. \"{'k': state.k}\" or \"[1, 2]\"", n.kind)
		}
		return nil
	}
	src := n.scalar.(string)
	p.lintPos[field] = n.pos
	e, err := Compile(src)
	if err != nil {
		p.fail(n, field, "expression does not compile: %v", err)
		return nil
	}
	e.site = &site{path: p.path, pos: n.pos, field: field, src: src}
	if p.node != "" && strings.HasPrefix(field, p.nodeField) {
		e.site.node, e.site.nodeField = p.node, p.nodeField
	}
	p.exprs[field] = e.site
	return e
}

var (
	graphFields = []string{"state", "nodes", "edges", "branches"}
	fileFields  = append([]string{"name", "description", "perf", "subgraphs", "interrupt_before", "interrupt_after", "ops", "entrypoint", "tasks"}, graphFields...)
)

func (p *parser) file(n *jnode) *File {
	f := &File{Path: p.path}
	if n.kind == jsonObject && n.field("trace_version") != nil {
		// A trace (docs/trace-format.md) sits beside its scenario under
		// a like name, and is the file a tab completion picks as often.
		name := ""
		if v := n.field("scenario"); v != nil {
			name, _ = v.scalar.(string)
		}
		p.fail(n, "", "a trace (docs/trace-format.md), not a scenario file: give the scenario it was made from, %s", traceScenario(p.path, name))
		return f
	}
	if !p.fields(n, "", fileFields...) {
		return f
	}
	if v := n.field("name"); v != nil {
		f.Name = p.str(v, "name")
	}
	if v := n.field("description"); v != nil {
		f.Description = p.str(v, "description")
	}
	if v := n.field("perf"); v != nil && p.fields(v, "perf", "supersteps", "tasks") {
		f.Perf = &Perf{}
		if s := v.field("supersteps"); s != nil {
			f.Perf.Supersteps = p.integer(s, "perf.supersteps", 0)
		}
		if t := v.field("tasks"); t != nil {
			f.Perf.Tasks = p.integer(t, "perf.tasks", 0)
		}
	}
	f.Graph = p.graph(n, "")
	if v := n.field("entrypoint"); v != nil {
		p.functional = true
		f.Entrypoint = p.entrypoint(v)
	}
	if v := n.field("tasks"); v != nil {
		f.Tasks = p.tasks(v)
	}
	p.checkFunctional(f, n)
	if v := n.field("subgraphs"); v != nil && p.fields(v, "subgraphs", keys(v)...) {
		f.Subgraphs = make(map[string]*Graph, len(v.fields))
		for _, s := range v.fields {
			field := join2("subgraphs", s.key)
			if p.fields(s.val, field, append([]string{"name", "description", "stateful", "interrupt_before", "interrupt_after"}, graphFields...)...) {
				g := p.graph(s.val, field)
				if v := s.val.field("stateful"); v != nil {
					g.Stateful = p.boolean(v, join2(field, "stateful"))
				}
				if v := s.val.field("interrupt_before"); v != nil {
					g.InterruptBefore, g.InterruptBeforeAll = p.breakpoints(v, join2(field, "interrupt_before"))
				}
				if v := s.val.field("interrupt_after"); v != nil {
					g.InterruptAfter, g.InterruptAfterAll = p.breakpoints(v, join2(field, "interrupt_after"))
				}
				f.Subgraphs[s.key] = &g
			}
		}
	}
	if v := n.field("interrupt_before"); v != nil {
		f.InterruptBefore, f.InterruptBeforeAll = p.breakpoints(v, "interrupt_before")
	}
	if v := n.field("interrupt_after"); v != nil {
		f.InterruptAfter, f.InterruptAfterAll = p.breakpoints(v, "interrupt_after")
	}
	if v := n.field("ops"); v != nil {
		for i, o := range p.list(v, "ops") {
			f.Ops = append(f.Ops, p.op(o, index2("ops", i), i))
		}
	}
	return f
}

func keys(n *jnode) []string {
	out := make([]string, len(n.fields))
	for i, f := range n.fields {
		out[i] = f.key
	}
	return out
}

func (p *parser) graph(n *jnode, prefix string) Graph {
	var g Graph
	p.graphPos[prefix] = n.pos
	for _, f := range n.fields {
		if f.key == "edges" {
			p.graphPos[join2(prefix, "edges")] = f.keyPos
		}
	}
	if v := n.field("state"); v != nil {
		field := join2(prefix, "state")
		if v.kind == jsonArray {
			p.fail(v, field, "expected an object of state keys and their channels, got a list: write %s", listAsObject(v, "null"))
		} else if p.fields(v, field, keys(v)...) {
			for _, k := range v.fields {
				p.graphPos[join2(field, k.key)] = k.keyPos
				g.State = append(g.State, p.stateKey(k, join2(field, k.key)))
			}
		}
	}
	if v := n.field("nodes"); v != nil {
		field := join2(prefix, "nodes")
		for i, e := range p.list(v, field) {
			g.Nodes = append(g.Nodes, p.nodeDef(e, index2(field, i)))
		}
	}
	if v := n.field("edges"); v != nil {
		field := join2(prefix, "edges")
		for i, e := range p.list(v, field) {
			g.Edges = append(g.Edges, p.edge(e, index2(field, i)))
		}
	}
	if v := n.field("branches"); v != nil {
		field := join2(prefix, "branches")
		for i, e := range p.list(v, field) {
			g.Branches = append(g.Branches, p.branch(e, index2(field, i)))
		}
	}
	return g
}

func (p *parser) stateKey(f jfield, field string) StateKey {
	k := StateKey{Name: f.key}
	v := f.val
	switch v.kind {
	case jsonNull:
		return k
	case jsonString:
		k.Reducer = v.scalar.(string)
		_, k.Default, _ = engine.NamedReducer(k.Reducer)
	case jsonObject:
		if !p.fields(v, field, "reducer", "default") {
			return k
		}
		r := v.field("reducer")
		if r == nil {
			p.fail(v, field, "missing reducer")
			return k
		}
		k.Reducer = p.str(r, join2(field, "reducer"))
		_, k.Default, _ = engine.NamedReducer(k.Reducer)
		if d := v.field("default"); d != nil {
			k.Default = d.value()
		}
		v = r
	default:
		p.fail(v, field, "expected null, a reducer name or {\"reducer\", \"default\"}, got %s", v.kind)
		return k
	}
	if _, _, known := engine.NamedReducer(k.Reducer); v.kind == jsonString && !known {
		hint := "expected add, add_messages, concat, sum, merge or sorted"
		if m := reducerMeant(k.Reducer); m != "" {
			hint = fmt.Sprintf("did you mean %q? %s", m, hint)
		}
		p.graphFail(v.pos, field, "unknown reducer %q (%s)", k.Reducer, hint)
	}
	return k
}

// reducerMeant is the reducer a name an author wrote most likely meant:
// a close spelling, or another library's name for it ("" when none).
func reducerMeant(name string) string {
	switch strings.ToLower(name) {
	case "append", "extend", "list", "operator.add", "concat_list", "+":
		return ReducerAdd
	case "messages", "addmessages", "add_message":
		return ReducerAddMessages
	case "add", "add_messages", "concat", "sum", "merge", "sorted":
		return strings.ToLower(name) // a capital letter
	}
	// A name that begins with another reducer's counts as close to it
	// (engine.CloseNames), so add_mesages would be as close to add as to
	// add_messages: leave out the reducers the name begins with and goes
	// on past by more than a letter.
	var names []string
	for _, r := range []string{"add", "add_messages", "concat", "sum", "merge", "sorted"} {
		if len(name) <= len(r)+1 || !strings.HasPrefix(strings.ToLower(name), r) {
			names = append(names, r)
		}
	}
	return engine.MeantName(names, name)
}

var nodeFields = []string{"name", "interrupt", "update", "goto", "fail", "retry", "subgraph", "ends", "sleep_ms", "defer", "timeout_ms", "parent", "emit", "cache", "invoke", "calls"}

func (p *parser) nodeDef(n *jnode, field string) *Node {
	nd := &Node{Pos: n.pos}
	if n.kind != jsonObject {
		p.fail(n, field, "expected an object, got %s", n.kind)
		return nd
	}
	v := n.field("name")
	if v == nil {
		p.fail(n, field, "missing node name")
		return nd
	}
	nd.Name = p.name(v, join2(field, "name"))
	p.node, p.nodeField = nd.Name, field
	defer func() { p.node, p.nodeField = "", "" }()
	if !p.fields(n, field, nodeFields...) {
		return nd
	}

	nd.Calls = p.calls(n, field)
	nd.Interrupts = p.interrupts(n, field)
	p.update(n, field, nd)
	if v := n.field("goto"); v != nil {
		nd.Goto = p.expr(v, join2(field, "goto"))
	}
	nd.Fail = p.failSpec(n, field)
	if v := n.field("retry"); v != nil {
		f := join2(field, "retry")
		if p.fields(v, f, "max_attempts", "initial_interval_ms", "backoff_factor", "max_interval_ms", "jitter", "retry_on") {
			nd.Retry = p.retry(v, f)
		}
	}
	p.subgraphRef(n, field, nd)
	if v := n.field("ends"); v != nil {
		nd.Ends = p.names(v, join2(field, "ends"))
		if nd.Goto == nil && nd.Subgraph == "" && nd.Invoke == "" {
			p.fail(v, join2(field, "ends"), "ends is only allowed with goto or on a subgraph or invoke node")
		}
	}
	if v := n.field("sleep_ms"); v != nil {
		nd.SleepMS = p.integer(v, join2(field, "sleep_ms"), 0)
	}
	nd.Cache = p.cacheSpec(n, field)
	if v := n.field("emit"); v != nil {
		nd.Emit = p.expr(v, join2(field, "emit"))
	}
	if v := n.field("parent"); v != nil {
		nd.Parent = p.boolean(v, join2(field, "parent"))
	}
	if v := n.field("timeout_ms"); v != nil {
		nd.TimeoutMS = p.integer(v, join2(field, "timeout_ms"), 1)
	}
	if v := n.field("defer"); v != nil {
		nd.Defer = p.boolean(v, join2(field, "defer"))
	}
	return nd
}

// update reads node n's update: a map of key expressions, or one
// expression for the whole update.
func (p *parser) update(n *jnode, field string, nd *Node) {
	v := n.field("update")
	if v == nil {
		return
	}
	f := join2(field, "update")
	switch v.kind {
	case jsonObject:
		nd.UpdateKeys = []KeyExpr{}
		for _, k := range v.fields {
			p.lintPos[join2(f, k.key)+keySuffix] = k.keyPos
			nd.UpdateKeys = append(nd.UpdateKeys, KeyExpr{k.key, p.expr(k.val, join2(f, k.key))})
		}
	case jsonString:
		nd.UpdateExpr = p.expr(v, f)
	default:
		p.fail(v, f, "expected a map of expressions or one expression, got %s", v.kind)
	}
}

// subgraphRef reads node n's subgraph or invoke, the subgraph it runs,
// and refuses the fields such a node cannot have: the subgraph does its
// work.
func (p *parser) subgraphRef(n *jnode, field string, nd *Node) {
	if v := n.field("subgraph"); v != nil {
		nd.Subgraph = p.name(v, join2(field, "subgraph"))
		for _, other := range []string{"interrupt", "update", "goto", "fail", "sleep_ms", "parent", "emit", "calls"} {
			if o := n.field(other); o != nil {
				p.fail(o, join2(field, other), "a subgraph node cannot have %s", other)
			}
		}
	}
	if v := n.field("invoke"); v != nil {
		nd.Invoke = p.name(v, join2(field, "invoke"))
		// sleep_ms is allowed: the node works that long before it
		// invokes, which orders its subgraph's start after a sibling's.
		for _, other := range []string{"subgraph", "interrupt", "update", "goto", "fail", "parent", "emit", "calls"} {
			if o := n.field(other); o != nil {
				p.fail(o, join2(field, other), "a node that invokes a subgraph cannot have %s", other)
			}
		}
	}
}

func (p *parser) retry(v *jnode, f string) *Retry {
	r := &Retry{MaxAttempts: 3, BackoffFactor: 1}
	if m := v.field("max_attempts"); m != nil {
		r.MaxAttempts = p.integer(m, join2(f, "max_attempts"), 1)
	}
	if m := v.field("initial_interval_ms"); m != nil {
		r.InitialIntervalMS = p.integer(m, join2(f, "initial_interval_ms"), 0)
	}
	if m := v.field("backoff_factor"); m != nil {
		b, ok := m.scalar.(float64)
		if !ok || b < 1 {
			p.fail(m, join2(f, "backoff_factor"), "expected a number of at least 1")
		}
		r.BackoffFactor = b
	}
	if m := v.field("max_interval_ms"); m != nil {
		r.MaxIntervalMS = p.integer(m, join2(f, "max_interval_ms"), 0)
	}
	if m := v.field("jitter"); m != nil {
		r.Jitter = p.boolean(m, join2(f, "jitter"))
	}
	if m := v.field("retry_on"); m != nil {
		r.RetryOn = p.names(m, join2(f, "retry_on"))
	}
	return r
}

// supersteps reads a bulk update: a list of supersteps, each a non-empty
// list of {"values", "as_node"}.
func (p *parser) supersteps(v *jnode, f string) [][]Update {
	var out [][]Update
	for i, st := range p.list(v, f) {
		sf := index2(f, i)
		var ups []Update
		for j, u := range p.list(st, sf) {
			uf := index2(sf, j)
			p.lintPos[uf] = u.pos
			if !p.fields(u, uf, "values", "as_node") {
				continue
			}
			var up Update
			if x := u.field("values"); x != nil {
				up.Values = x.value()
				p.updateKeyPos(x, join2(uf, "values"))
			}
			if x := u.field("as_node"); x != nil {
				up.AsNode, up.HasAsNode = p.name(x, join2(uf, "as_node")), true
			}
			ups = append(ups, up)
		}
		out = append(out, ups)
	}
	return out
}

// command reads a Command input: update (a map), goto (a node name, a
// Send as {"$send": {"node", "arg"}}, or a list of them), resume.
func (p *parser) command(v *jnode, f string) *Command {
	c := &Command{}
	if !p.fields(v, f, "update", "goto", "resume") {
		return c
	}
	if u := v.field("update"); u != nil {
		if u.kind != jsonObject && u.kind != jsonNull {
			p.fail(u, join2(f, "update"), "expected a map of state keys, got %s", u.kind)
		}
		c.Update = u.value()
		p.updateKeyPos(u, join2(f, "update"))
	}
	if g := v.field("goto"); g != nil {
		targets := []*jnode{g}
		if g.kind == jsonArray {
			targets = g.elems
		}
		for i, e := range targets {
			gf := join2(f, "goto")
			if g.kind == jsonArray {
				gf = index2(gf, i)
			}
			switch x := engine.FromJSON(e.value()).(type) {
			case string:
				c.Goto = append(c.Goto, x)
				p.namePos[gf] = e.pos
			case engine.Send:
				c.Goto = append(c.Goto, x)
			default:
				p.fail(e, gf, "expected a node name or {\"$send\": {\"node\", \"arg\"}}, got %s", e.kind)
			}
		}
	}
	if r := v.field("resume"); r != nil {
		c.Resume, c.HasResume = r.value(), true
	}
	// An empty Command is refused when its op runs, as LangGraph refuses
	// it (EmptyInputError as a run's input; an update_state that writes
	// nothing), not when the file loads.
	return c
}

func (p *parser) edge(n *jnode, field string) Edge {
	e := Edge{Pos: n.pos}
	if n.kind == jsonObject && n.field("from") != nil && n.field("to") != nil {
		from, _ := json.Marshal(n.field("from").value())
		to, _ := json.Marshal(n.field("to").value())
		p.fail(n, field, "expected [from, to], got an object: write [%s, %s]", from, to)
		return e
	}
	if n.kind != jsonArray || len(n.elems) != 2 {
		p.fail(n, field, "expected [from, to]")
		return e
	}
	from, to := n.elems[0], n.elems[1]
	if from.kind == jsonArray {
		e.Join = true
		e.From = p.names(from, index2(field, 0))
		if len(e.From) == 0 {
			p.fail(from, index2(field, 0), "expected at least one node to join")
		}
	} else {
		e.From = []string{p.name(from, index2(field, 0))}
	}
	e.To = p.name(to, index2(field, 1))
	return e
}

func (p *parser) branch(n *jnode, field string) *Branch {
	b := &Branch{Pos: n.pos}
	if !p.fields(n, field, "from", "route", "ends", "path_map") {
		return b
	}
	if v := n.field("from"); v != nil {
		b.From = p.name(v, join2(field, "from"))
	} else {
		p.fail(n, field, "missing from")
	}
	if v := n.field("route"); v != nil {
		b.Route = p.expr(v, join2(field, "route"))
	} else {
		p.fail(n, field, "missing route")
	}
	if v := n.field("ends"); v != nil {
		b.Ends = p.names(v, join2(field, "ends"))
	}
	if v := n.field("path_map"); v != nil {
		f := join2(field, "path_map")
		if n.field("ends") != nil {
			p.fail(v, f, "path_map and ends exclude each other (the map's nodes are the ends)")
		} else if v.kind == jsonArray {
			p.fail(v, f, "expected an object of the route's labels and the nodes they go to, got a list: write %s, or list the nodes as \"ends\"", listAsObject(v, "same"))
		} else if p.fields(v, f, keys(v)...) {
			b.PathMap = []KeyValue{}
			for _, kv := range v.fields {
				b.PathMap = append(b.PathMap, KeyValue{kv.key, p.name(kv.val, join2(f, kv.key))})
			}
			if len(b.PathMap) == 0 {
				p.fail(v, f, "expected at least one label")
			}
		}
	}
	return b
}

var opFields = map[string][]string{
	OpInvoke:      {"op", "thread", "input", "recursion_limit", "from", "at", "context", "max_concurrency", "durability", "command", "stream", "stream_subgraphs"},
	OpResume:      {"op", "thread", "value", "by_node", "recursion_limit", "from", "at", "context", "max_concurrency", "durability", "stream", "stream_subgraphs"},
	OpGetState:    {"op", "thread", "subgraphs", "subgraph", "subgraph_task"},
	OpHistory:     {"op", "thread", "subgraph", "subgraph_task", "limit", "filter", "before"},
	OpUpdateState: {"op", "thread", "values", "as_node", "at", "command", "subgraph", "subgraph_task"},
	OpBulkUpdate:  {"op", "thread", "supersteps", "at"},
	OpClearCache:  {"op"},
}

func (p *parser) op(n *jnode, field string, i int) Op {
	op := Op{Index: i, Thread: "t1", Pos: n.pos}
	if !p.opKind(n, field, &op) {
		return op
	}
	if v := n.field("thread"); v != nil {
		op.Thread = p.name(v, join2(field, "thread"))
	}
	p.opInput(n, field, &op)
	p.runOptions(n, field, &op)
	p.streamOptions(n, field, &op)
	p.subgraphAddress(n, field, &op)
	p.opCommand(n, field, &op)
	p.resumeAnswers(n, field, &op)
	p.updateValues(n, field, &op)
	p.historyOptions(n, field, &op)
	return op
}

// opKind reads which op n is and checks n has only that op's fields: false
// (after an error) when n is not an object, has no known op or has a
// field the op does not take.
func (p *parser) opKind(n *jnode, field string, op *Op) bool {
	if n.kind != jsonObject {
		p.fail(n, field, "expected an object, got %s", n.kind)
		return false
	}
	k := n.field("op")
	if k == nil {
		p.fail(n, field, "missing op")
		return false
	}
	op.Kind = p.str(k, join2(field, "op"))
	allowed, ok := opFields[op.Kind]
	if !ok {
		if k.kind == jsonString {
			p.fail(k, join2(field, "op"), "unknown op %q (expected invoke, resume, get_state, update_state, bulk_update, clear_cache or history)", op.Kind)
		}
		return false
	}
	return p.fields(n, field, allowed...)
}

// opInput reads an invoke's input: an object or null, or any value for an
// entrypoint.
func (p *parser) opInput(n *jnode, field string, op *Op) {
	v := n.field("input")
	if v == nil {
		return
	}
	op.Input, op.HasInput = v.value(), true
	if v.kind == jsonObject {
		for _, k := range v.fields {
			p.lintPos[join2(join2(field, "input"), k.key)+keySuffix] = k.keyPos
		}
	}
	if v.kind != jsonObject && v.kind != jsonNull && !p.functional {
		p.fail(v, join2(field, "input"), "expected an object or null, got %s", v.kind)
	}
}

// runOptions reads how an invoke or resume runs: recursion_limit,
// max_concurrency, durability, where it starts (from a fork or at a
// step, not both) and its context.
func (p *parser) runOptions(n *jnode, field string, op *Op) {
	if v := n.field("recursion_limit"); v != nil {
		p.lintPos[join2(field, "recursion_limit")] = v.pos
		op.RecursionLimit = p.integer(v, join2(field, "recursion_limit"), math.MinInt32)
		op.HasRecursionLimit = true
	}
	if v := n.field("max_concurrency"); v != nil {
		op.MaxConcurrency = p.integer(v, join2(field, "max_concurrency"), 1)
	}
	if v := n.field("durability"); v != nil {
		op.Durability = p.str(v, join2(field, "durability"))
		if _, err := engine.ParseDurability(op.Durability); err != nil && v.kind == jsonString {
			p.fail(v, join2(field, "durability"), "expected \"sync\", \"async\" or \"exit\", got %q", op.Durability)
		}
	}
	if v := n.field("from"); v != nil {
		if op.From = p.str(v, join2(field, "from")); op.From != "fork" && v.kind == jsonString {
			p.fail(v, join2(field, "from"), "expected \"fork\", got %q", op.From)
		}
	}
	if v := n.field("at"); v != nil {
		op.AtStep = p.stepRef(v, join2(field, "at"))
	}
	if n.field("from") != nil && n.field("at") != nil {
		p.fail(n, field, "from and at exclude each other")
	}
	if v := n.field("context"); v != nil {
		op.Context = v.value()
		if v.kind != jsonObject {
			p.fail(v, join2(field, "context"), "expected an object, got %s", v.kind)
		}
	}
}

// streamOptions reads the stream modes a run streams and whether its
// subgraphs stream too.
func (p *parser) streamOptions(n *jnode, field string, op *Op) {
	if v := n.field("stream"); v != nil {
		f := join2(field, "stream")
		op.Stream = p.names(v, f)
		for i, m := range op.Stream {
			if m != "values" && m != "updates" && m != "custom" && m != "tasks" {
				p.fail(v.elems[i], index2(f, i), "unknown stream mode %q (expected values, updates, custom or tasks)", m)
			}
		}
	}
	if v := n.field("stream_subgraphs"); v != nil {
		op.StreamSubs = p.boolean(v, join2(field, "stream_subgraphs"))
	}
}

// subgraphAddress reads which subgraph's state an op reads or updates:
// subgraphs (all of them, for get_state), or subgraph and which of its
// tasks (subgraph_task, only with subgraph).
func (p *parser) subgraphAddress(n *jnode, field string, op *Op) {
	if v := n.field("subgraphs"); v != nil {
		op.SubgraphState = p.boolean(v, join2(field, "subgraphs"))
	}
	if v := n.field("subgraph"); v != nil {
		op.SubgraphOf = p.name(v, join2(field, "subgraph"))
	}
	if v := n.field("subgraph_task"); v != nil {
		op.SubgraphTask = p.integer(v, join2(field, "subgraph_task"), 0)
		if op.SubgraphOf == "" {
			p.fail(v, join2(field, "subgraph_task"), "subgraph_task needs subgraph")
		}
	}
}

// opCommand reads an op's command, which stands instead of input and
// values.
func (p *parser) opCommand(n *jnode, field string, op *Op) {
	v := n.field("command")
	if v == nil {
		return
	}
	op.Command = p.command(v, join2(field, "command"))
	if n.field("input") != nil || n.field("values") != nil {
		p.fail(v, join2(field, "command"), "command excludes input and values")
	}
}

// resumeAnswers reads what a resume answers: one value, or a value per
// node (by_node) — exactly one of the two.
func (p *parser) resumeAnswers(n *jnode, field string, op *Op) {
	if v := n.field("value"); v != nil {
		op.Value, op.HasValue = v.value(), true
	}
	if v := n.field("by_node"); v != nil {
		f := join2(field, "by_node")
		if p.fields(v, f, keys(v)...) {
			op.ByNode = []KeyValue{}
			for _, kv := range v.fields {
				p.namePos[join2(f, kv.key)] = kv.keyPos
				op.ByNode = append(op.ByNode, KeyValue{kv.key, kv.val.value()})
			}
		}
	}
	if op.Kind == OpResume && op.HasValue == (op.ByNode != nil) {
		p.fail(n, field, "a resume needs exactly one of value and by_node")
	}
}

// updateValues reads what a state update writes: values as as_node, or a
// bulk_update's supersteps (which it needs).
func (p *parser) updateValues(n *jnode, field string, op *Op) {
	if v := n.field("values"); v != nil {
		op.Values = v.value()
		p.updateKeyPos(v, join2(field, "values"))
	}
	if v := n.field("supersteps"); v != nil {
		op.Supersteps = p.supersteps(v, join2(field, "supersteps"))
	} else if op.Kind == OpBulkUpdate {
		p.fail(n, field, "a bulk_update needs supersteps")
	}
	if v := n.field("as_node"); v != nil {
		op.AsNode, op.HasAsNode = p.name(v, join2(field, "as_node")), true
	}
}

// updateKeyPos records, for Lint, where each key of an update's values
// v (written at f) was written, and for a copy's list of [values,
// as_node] pairs each pair's keys and node.
func (p *parser) updateKeyPos(v *jnode, f string) {
	switch v.kind {
	case jsonObject:
		for _, k := range v.fields {
			p.lintPos[join2(f, k.key)+keySuffix] = k.keyPos
		}
	case jsonArray:
		for i, pair := range v.elems {
			if pair.kind != jsonArray || len(pair.elems) != 2 {
				continue // not a pair: the update refuses it when it runs
			}
			pf := index2(f, i)
			if pair.elems[0].kind == jsonObject {
				p.updateKeyPos(pair.elems[0], index2(pf, 0))
			}
			p.namePos[index2(pf, 1)] = pair.elems[1].pos
		}
	}
}

// historyOptions reads a history op's limit, filter and before.
func (p *parser) historyOptions(n *jnode, field string, op *Op) {
	if v := n.field("limit"); v != nil {
		op.Limit = p.integer(v, join2(field, "limit"), 1)
	}
	if v := n.field("filter"); v != nil {
		f := join2(field, "filter")
		if p.fields(v, f, "source", "step") {
			op.Filter = map[string]any{}
			if s := v.field("source"); s != nil {
				op.Filter["source"] = p.name(s, join2(f, "source"))
			}
			if s := v.field("step"); s != nil {
				op.Filter["step"] = p.integer(s, join2(f, "step"), -1)
			}
		}
	}
	if v := n.field("before"); v != nil {
		f := join2(field, "before")
		if op.SubgraphOf != "" {
			p.fail(v, f, "before addresses a root checkpoint: not with subgraph")
		}
		op.Before = p.stepRef(v, f)
	}
}

// stepRef reads {"step": k}, the address of the newest checkpoint of step
// k (nil after an error).
func (p *parser) stepRef(v *jnode, f string) *int {
	if !p.fields(v, f, "step") {
		return nil
	}
	s := v.field("step")
	if s == nil {
		p.fail(v, f, "missing step")
		return nil
	}
	step := p.integer(s, join2(f, "step"), -1)
	return &step
}

// check resolves names across the file once its shape is known.
func (p *parser) check(f *File) {
	if f.Subgraphs != nil {
		for _, name := range sortedKeys(f.Subgraphs) {
			p.checkGraph(f.Subgraphs[name], join2("subgraphs", name), f.Subgraphs)
		}
	}
	p.checkGraph(&f.Graph, "", f.Subgraphs)
	p.checkCycles(f)
	nodes := f.nodeSet()
	// An interrupt_before/after name that is no node: see checkGraph.
	for i, op := range f.Ops {
		field := index2("ops", i)
		for _, kv := range op.ByNode {
			if at := join2(join2(field, "by_node"), kv.Key); !nodes[kv.Key] {
				hint := engine.DidYouMean(sortedKeys(nodes), kv.Key)
				if hint == "" && f.Entrypoint != nil {
					hint = fmt.Sprintf(": the entrypoint asks its tasks' questions, so answer by_node %q", f.Entrypoint.Name)
				}
				p.failAt(p.at(at, op.Pos), at, "unknown node %q%s", kv.Key, hint)
			}
		}
	}
}

// subgraphRunBy is the subgraph that g's node named node runs (as a
// subgraph or by invoke), or nil when it runs none or g has no such node.
func (f *File) subgraphRunBy(g *Graph, node string) *Graph {
	for _, n := range g.Nodes {
		if n.Name == node {
			return f.Subgraphs[cmp.Or(n.Subgraph, n.Invoke)]
		}
	}
	return nil
}

// at returns where the name at field was written, or else pos.
func (p *parser) at(field string, pos Pos) Pos {
	if q, ok := p.namePos[field]; ok {
		return q
	}
	return pos
}

// nodeSet names the root graph's nodes: an entrypoint's one node.
func (f *File) nodeSet() map[string]bool {
	if f.Entrypoint != nil {
		return map[string]bool{f.Entrypoint.Name: true}
	}
	return f.Graph.nodeSet()
}

func (g *Graph) nodeSet() map[string]bool {
	set := make(map[string]bool, len(g.Nodes))
	for _, n := range g.Nodes {
		set[n.Name] = true
	}
	return set
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (p *parser) checkGraph(g *Graph, prefix string, subgraphs map[string]*Graph) {
	nodes := map[string]bool{}
	ref := func(pos Pos, field, name string, extra string) {
		if !nodes[name] && name != extra {
			p.graphFail(p.at(field, pos), field, "unknown node %q%s", name, nodeHint(sortedKeys(nodes), name, extra))
		}
	}
	// target checks an end of an edge, a route or a node's ends: only
	// __start__, which is none. A name that is no node is the engine's
	// compile check's, which Build places at the same end: LangGraph.js
	// looks for ends that are no node only after it looked for nodes
	// nothing reaches (1.7.3 dist/graph/graph.js:165-172), so a file with
	// both fails as UnreachableNodeError there, and here too when the
	// engine reports both (or that the node a misspelt end meant is
	// reached by nothing else: engine.CompileError.MeantUnreached).
	// Sources and joins stay here: LangGraph.js refuses them before
	// (graph.js:155-156; a join when it is added, state.js:411-416).
	target := func(pos Pos, field, name string) {
		if name == Start {
			ref(pos, field, name, End)
		}
	}
	for i, n := range g.Nodes {
		field := index2(join2(prefix, "nodes"), i)
		if nodes[n.Name] {
			p.graphFail(n.Pos, field, "duplicate node name %q", n.Name)
		}
		if n.Name == Start || n.Name == End {
			p.graphFail(n.Pos, field, "%s is a reserved name", n.Name)
		}
		nodes[n.Name] = true
	}
	for i, n := range g.Nodes {
		field := index2(join2(prefix, "nodes"), i)
		p.node, p.nodeField = n.Name, field
		if n.Subgraph != "" && subgraphs[n.Subgraph] == nil {
			f := join2(field, "subgraph")
			p.graphFail(p.at(f, n.Pos), f, "unknown subgraph %q", n.Subgraph)
		}
		if n.Invoke != "" && subgraphs[n.Invoke] == nil {
			f := join2(field, "invoke")
			p.graphFail(p.at(f, n.Pos), f, "unknown subgraph %q", n.Invoke)
		}
		for j, e := range n.Ends {
			target(n.Pos, index2(join2(field, "ends"), j), e)
		}
		p.node, p.nodeField = "", ""
	}
	// An interrupt_before/after name that is no node is the engine's
	// (its compile check), placed at the entry by Build: LangGraph.js
	// looks for it last (graph.js:173).
	for i, e := range g.Edges {
		field := index2(join2(prefix, "edges"), i)
		for j, from := range e.From {
			f := index2(field, 0)
			if e.Join {
				f = index2(f, j)
			}
			ref(e.Pos, f, from, Start)
		}
		if e.Join {
			ref(e.Pos, index2(field, 1), e.To, End)
		} else {
			target(e.Pos, index2(field, 1), e.To)
		}
	}
	for i, b := range g.Branches {
		field := index2(join2(prefix, "branches"), i)
		ref(b.Pos, join2(field, "from"), b.From, Start)
		for j, e := range b.Ends {
			target(b.Pos, index2(join2(field, "ends"), j), e)
		}
		for _, kv := range b.PathMap {
			target(b.Pos, join2(join2(field, "path_map"), kv.Key), kv.Value.(string))
		}
	}
}

// nodeHint is " (did you mean …?)" for name, a node name that is none
// of names: the close one, or the entry or exit name (extra, "" for
// none) as LangGraph's Python and JavaScript spell their constants (START,
// END) or a user shortens them (start, end).
func nodeHint(names []string, name, extra string) string {
	if extra != "" && strings.EqualFold(strings.Trim(name, "_"), strings.Trim(extra, "_")) {
		return fmt.Sprintf(" (did you mean %q?)", extra)
	}
	return engine.DidYouMean(names, name)
}

// checkCycles rejects subgraphs that contain themselves, which would make
// building the graph recurse forever.
func (p *parser) checkCycles(f *File) {
	state := map[string]int{} // 1: on the path, 2: done
	var visit func(name string) bool
	visit = func(name string) bool {
		switch state[name] {
		case 1:
			return false
		case 2:
			return true
		}
		state[name] = 1
		for _, n := range f.Subgraphs[name].Nodes {
			// A node that invokes a subgraph builds it as a subgraph
			// node does (buildGraph).
			sub := cmp.Or(n.Subgraph, n.Invoke)
			if sub != "" && f.Subgraphs[sub] != nil && !visit(sub) {
				p.graphFail(n.Pos, join2("subgraphs", name), "subgraph %q contains itself through node %q", name, n.Name)
				return false
			}
		}
		state[name] = 2
		return true
	}
	for _, name := range sortedKeys(f.Subgraphs) {
		visit(name)
	}
}

// traceScenario names the scenario file a trace at path was made from:
// by the repository's naming (NAME.trace.json beside NAME.json), or by
// the graph name the trace records.
func traceScenario(path, name string) string {
	if base, ok := strings.CutSuffix(path, ".trace.json"); ok && base != "" {
		return base + ".json"
	}
	if name != "" {
		return fmt.Sprintf("the file of scenario %q", name)
	}
	return "the file of its scenario"
}
