package scenario

import (
	"context"
	"fmt"
	"strings"

	"github.com/superstep/superstep/engine"
)

// Entrypoint is the functional API's entrypoint ("entrypoint"): a function
// that makes task calls, then may interrupt, fail or sleep like a node, and
// returns Return (with Save: LangGraph's entrypoint.final).
type Entrypoint struct {
	Name       string
	Calls      []CallGroup
	Interrupts []*Expr
	Fail       *Fail
	SleepMS    int
	Return     *Expr
	Save       *Expr
	Pos        Pos
}

// CallGroup is one item of "calls": one task call, awaited before the next
// item, or a list of calls started together and awaited together.
type CallGroup struct {
	Calls    []TaskCall
	Parallel bool // the item was a list: its result is the list of results
}

// TaskCall is one call of a task with an argument expression. Catch, when
// set, is the call's result if it fails: the caller catches the failure
// (a try/catch around the await). An interrupt or a Command for the
// parent is no failure and is not caught.
type TaskCall struct {
	Task  string
	Arg   *Expr
	Catch *Expr
	Pos   Pos
}

// TaskDef is a task of "tasks": interrupts, fail and sleep as a node's,
// then Result, an expression over the argument (state) and the answers.
type TaskDef struct {
	Name       string
	Interrupts []*Expr
	Fail       *Fail
	SleepMS    int
	Retry      *Retry
	Cache      *Cache // cache the task's result by its argument
	Result     *Expr
}

var (
	entrypointFields = []string{"name", "calls", "interrupt", "fail", "sleep_ms", "return", "save"}
	taskFields       = []string{"interrupt", "fail", "sleep_ms", "retry", "cache", "result"}
)

func (p *parser) entrypoint(n *jnode) *Entrypoint {
	e := &Entrypoint{Name: "main", Pos: n.pos}
	if !p.fields(n, "entrypoint", entrypointFields...) {
		return e
	}
	if v := n.field("name"); v != nil {
		e.Name = p.name(v, "entrypoint.name")
	}
	e.Calls = p.calls(n, "entrypoint")
	e.Interrupts = p.interrupts(n, "entrypoint")
	e.Fail = p.failSpec(n, "entrypoint")
	if v := n.field("sleep_ms"); v != nil {
		e.SleepMS = p.integer(v, "entrypoint.sleep_ms", 0)
	}
	if v := n.field("return"); v != nil {
		e.Return = p.expr(v, "entrypoint.return")
	}
	if v := n.field("save"); v != nil {
		e.Save = p.expr(v, "entrypoint.save")
	}
	return e
}

// calls reads a "calls" field: task calls, or lists of calls made together.
func (p *parser) calls(n *jnode, field string) []CallGroup {
	v := n.field("calls")
	if v == nil {
		return nil
	}
	f := join2(field, "calls")
	var out []CallGroup
	for i, item := range p.list(v, f) {
		field := index2(f, i)
		if item.kind == jsonArray {
			g := CallGroup{Parallel: true}
			for j, c := range item.elems {
				g.Calls = append(g.Calls, p.taskCall(c, index2(field, j)))
			}
			out = append(out, g)
			continue
		}
		out = append(out, CallGroup{Calls: []TaskCall{p.taskCall(item, field)}})
	}
	return out
}

func (p *parser) taskCall(n *jnode, field string) TaskCall {
	c := TaskCall{Pos: n.pos}
	if n.kind != jsonObject {
		p.fail(n, field, "expected a call {\"task\", \"arg\"} or a list of calls, got %s", n.kind)
		return c
	}
	if !p.fields(n, field, "task", "arg", "catch") {
		return c
	}
	if v := n.field("task"); v != nil {
		c.Task = p.name(v, join2(field, "task"))
	} else {
		p.fail(n, field, "a call needs a task")
	}
	if v := n.field("arg"); v != nil {
		c.Arg = p.expr(v, join2(field, "arg"))
	}
	if v := n.field("catch"); v != nil {
		c.Catch = p.expr(v, join2(field, "catch"))
	}
	return c
}

func (p *parser) tasks(n *jnode) []*TaskDef {
	var out []*TaskDef
	if n.kind == jsonArray {
		p.fail(n, "tasks", "expected an object of tasks by name, got a list: write %s", listAsObject(n, "null"))
		return nil
	}
	if !p.fields(n, "tasks", keys(n)...) {
		return nil
	}
	for _, kv := range n.fields {
		field := join2("tasks", kv.key)
		p.lintPos[field+keySuffix] = kv.keyPos
		t := &TaskDef{Name: kv.key}
		out = append(out, t)
		if kv.val.kind == jsonObject {
			for _, nf := range []string{"update", "goto"} {
				if v := kv.val.field(nf); v != nil {
					p.fail(v, join2(field, nf), "a task has no %s, as a node has: it returns its \"result\" (an expression), which its caller reads in results", nf)
				}
			}
		}
		if !p.fields(kv.val, field, taskFields...) {
			continue
		}
		t.Interrupts = p.interrupts(kv.val, field)
		t.Fail = p.failSpec(kv.val, field)
		if v := kv.val.field("sleep_ms"); v != nil {
			t.SleepMS = p.integer(v, join2(field, "sleep_ms"), 0)
		}
		if v := kv.val.field("retry"); v != nil {
			f := join2(field, "retry")
			if p.fields(v, f, "max_attempts", "initial_interval_ms", "backoff_factor", "max_interval_ms", "jitter", "retry_on") {
				t.Retry = p.retry(v, f)
			}
		}
		t.Cache = p.cacheSpec(kv.val, field)
		if v := kv.val.field("result"); v != nil {
			t.Result = p.expr(v, join2(field, "result"))
		}
	}
	return out
}

// cacheSpec reads a "cache" field.
func (p *parser) cacheSpec(n *jnode, field string) *Cache {
	v := n.field("cache")
	if v == nil {
		return nil
	}
	f := join2(field, "cache")
	if !p.fields(v, f, "key", "ttl_s") {
		return nil
	}
	c := &Cache{}
	if k := v.field("key"); k != nil {
		c.Key = p.expr(k, join2(f, "key"))
	}
	if t := v.field("ttl_s"); t != nil {
		c.TTLSeconds = p.integer(t, join2(f, "ttl_s"), 1)
	}
	return c
}

// interrupts reads an "interrupt" field: one expression or a list.
func (p *parser) interrupts(n *jnode, field string) []*Expr {
	v := n.field("interrupt")
	if v == nil {
		return nil
	}
	f := join2(field, "interrupt")
	if v.kind == jsonArray {
		var out []*Expr
		for i, e := range v.elems {
			out = append(out, p.expr(e, index2(f, i)))
		}
		return out
	}
	return []*Expr{p.expr(v, f)}
}

// failSpec reads a "fail" field.
func (p *parser) failSpec(n *jnode, field string) *Fail {
	v := n.field("fail")
	if v == nil {
		return nil
	}
	f := join2(field, "fail")
	if !p.fields(v, f, "times", "message", "after_ms") {
		return nil
	}
	out := &Fail{Times: 1, Message: "fail"}
	if t := v.field("times"); t != nil {
		out.Times = p.integer(t, join2(f, "times"), 0)
	}
	if m := v.field("message"); m != nil {
		out.Message = p.str(m, join2(f, "message"))
	}
	if a := v.field("after_ms"); a != nil {
		out.AfterMS = p.integer(a, join2(f, "after_ms"), 0)
	}
	return out
}

// checkFunctional resolves task names and refuses graph fields beside an
// entrypoint.
func (p *parser) checkFunctional(f *File, n *jnode) {
	known := map[string]bool{}
	var names []string
	for _, t := range f.Tasks {
		known[t.Name] = true
		names = append(names, t.Name)
	}
	check := func(groups []CallGroup, field string) {
		for i, g := range groups {
			for j, c := range g.Calls {
				field := index2(join2(field, "calls"), i)
				if g.Parallel {
					field = index2(field, j)
				}
				if c.Task != "" && !known[c.Task] {
					p.graphFail(p.at(join2(field, "task"), c.Pos), join2(field, "task"), "%s", unknownTask(c.Task, names))
				}
			}
		}
	}
	for i, nd := range f.Nodes {
		check(nd.Calls, index2("nodes", i))
	}
	for _, name := range sortedKeys(f.Subgraphs) {
		for i, nd := range f.Subgraphs[name].Nodes {
			check(nd.Calls, index2(join2(join2("subgraphs", name), "nodes"), i))
		}
	}
	if f.Entrypoint == nil {
		return
	}
	for _, other := range []string{"state", "nodes", "edges", "branches", "subgraphs", "interrupt_before", "interrupt_after"} {
		if v := n.field(other); v != nil {
			p.fail(v, other, "a file with an entrypoint has no %s", other)
		}
	}
	check(f.Entrypoint.Calls, "entrypoint")
}

// unknownTask says that name is none of the file's tasks (names), with
// the likely one or the list, and how to declare it.
func unknownTask(name string, names []string) string {
	switch {
	case len(names) == 0:
		return fmt.Sprintf("unknown task %q: the file has no \"tasks\"; declare it there (\"tasks\": {\"%s\": {\"result\": \"state\"}})", name, name)
	case engine.DidYouMean(names, name) != "":
		return fmt.Sprintf("unknown task %q%s", name, engine.DidYouMean(names, name))
	}
	return fmt.Sprintf("unknown task %q (tasks: %s); declare it under \"tasks\" or call one of those", name, strings.Join(names, ", "))
}

// taskSet is a file's scripted tasks, ready to call.
type taskSet struct {
	fns  map[string]func(context.Context, any) (any, error)
	opts map[string][]engine.TaskOption
}

// newTaskSet makes the file's tasks; their entry counters are
// "task:<name>".
func newTaskSet(f *File, c *Counters) *taskSet {
	ts := &taskSet{fns: map[string]func(context.Context, any) (any, error){}, opts: map[string][]engine.TaskOption{}}
	for _, td := range f.Tasks {
		ts.fns[td.Name] = taskFunc("task:"+td.Name, td, c)
		if td.Retry != nil {
			ts.opts[td.Name] = append(ts.opts[td.Name], engine.TaskRetry(retryPolicy(td.Retry)))
		}
		if td.Cache != nil {
			// A call's input is its argument list: the key expression
			// reads the argument.
			p := cachePolicy(td.Cache)
			if key := p.Key; key != nil {
				p.Key = func(input any) (string, error) { return key(input.([]any)[0]) }
			}
			ts.opts[td.Name] = append(ts.opts[td.Name], engine.TaskCache(p))
		}
	}
	return ts
}

// run makes the calls of a node or entrypoint in order: each item's calls
// start together and are awaited together; an item's result is its call's
// result, or the list of them for a list of calls. env gives the argument
// expressions the results so far.
func (ts *taskSet) run(ctx context.Context, groups []CallGroup, env Env) ([]any, error) {
	results := []any{}
	for _, g := range groups {
		futures := make([]*engine.Future[any], 0, len(g.Calls))
		env.Results = results
		for _, tc := range g.Calls {
			var arg any
			if tc.Arg != nil {
				v, err := tc.Arg.Eval(env)
				if err != nil {
					return nil, tc.Arg.placed(fmt.Errorf("call %s: arg: %w", tc.Task, err))
				}
				arg = v
			}
			futures = append(futures, engine.Task(ctx, tc.Task, ts.fns[tc.Task], arg, ts.opts[tc.Task]...))
		}
		vals, err := awaitAll(futures, g.Calls, env)
		if err != nil {
			return nil, err
		}
		if g.Parallel {
			results = append(results, vals)
		} else {
			results = append(results, vals[0])
		}
	}
	return results, nil
}

// buildEntrypoint compiles the file's entrypoint and tasks.
func buildEntrypoint(f *File, opts []engine.CompileOption) (*engine.Graph, *Counters, error) {
	c := newCounters()
	e := f.Entrypoint
	tasks := newTaskSet(f, c)
	entered := c.entryCounter(e.Name)
	fn := func(ctx context.Context, input any) (any, error) {
		entered.Add(1)
		rc := engine.RuntimeContext(ctx)
		previous := engine.Previous(ctx)
		results, err := tasks.run(ctx, e.Calls, Env{State: input, Context: rc, Previous: previous})
		if err != nil {
			return nil, err
		}
		resumes, err := prelude(ctx, e.Name, e.Interrupts, e.Fail, e.SleepMS, Env{State: input, Context: rc, Results: results, Previous: previous}, c)
		if err != nil {
			return nil, err
		}
		env := Env{State: input, Resume: last(resumes), Resumes: resumes, Context: rc, Results: results, Previous: previous}
		var value any
		if e.Return != nil {
			if value, err = e.Return.Eval(env); err != nil {
				return nil, e.Return.placed(fmt.Errorf("return: %w", err))
			}
		}
		if e.Save == nil {
			return value, nil
		}
		save, err := e.Save.Eval(env)
		if err != nil {
			return nil, e.Save.placed(fmt.Errorf("save: %w", err))
		}
		return engine.Final{Value: value, Save: save}, nil
	}
	g, err := engine.NewEntrypoint(e.Name, fn, opts...)
	if err != nil {
		return nil, nil, err
	}
	return g, c, nil
}

// awaitAll waits for the calls as the oracle's Promise.all does: their
// results in call order once all have them, or the first error as soon as
// a call raises it (an interrupt too), without waiting for the others,
// which go on as tasks of the superstep (the runner awaits a parallel
// group with Promise.all, testdata/conformance/oracle/lib/build.mjs:323,
// which rejects with the first rejection in time; LangGraph.js's call()
// puts each call in executingTasksMap, pregel/runner.ts:586, and the tick
// loop keeps running them, pregel/runner.ts:323-400).
func awaitAll(futures []*engine.Future[any], calls []TaskCall, env Env) ([]any, error) {
	type result struct {
		i   int
		v   any
		err error
	}
	done := make(chan result, len(futures)) // buffered: no sender waits after an early return
	for i, fu := range futures {
		go func() {
			v, err := fu.Result()
			if err != nil && calls[i].Catch != nil && !engine.IsBubbleUp(err) { // the oracle's catch passes these on
				v, err = calls[i].Catch.Eval(env)
				if err != nil {
					err = calls[i].Catch.placed(fmt.Errorf("call %s: catch: %w", calls[i].Task, err))
				}
			}
			done <- result{i, v, err}
		}()
	}
	vals := make([]any, len(futures))
	for range futures {
		r := <-done
		if r.err != nil {
			return nil, r.err
		}
		vals[r.i] = r.v
	}
	return vals, nil
}

// taskFunc is a scripted task: interrupts, fail, sleep, then its result.
func taskFunc(path string, td *TaskDef, c *Counters) func(context.Context, any) (any, error) {
	entered := c.entryCounter(path)
	return func(ctx context.Context, arg any) (any, error) {
		entered.Add(1)
		rc := engine.RuntimeContext(ctx)
		resumes, err := prelude(ctx, path, td.Interrupts, td.Fail, td.SleepMS, Env{State: arg, Context: rc}, c)
		if err != nil {
			return nil, err
		}
		if td.Result == nil {
			return nil, nil
		}
		v, err := td.Result.Eval(Env{State: arg, Resume: last(resumes), Resumes: resumes, Context: rc})
		if err != nil {
			return nil, td.Result.placed(fmt.Errorf("result: %w", err))
		}
		return v, nil
	}
}

// prelude runs what a scripted function does after its calls: its
// interrupts (each returns its answer; env holds the input, context and
// call results), its scripted failure, its sleep.
func prelude(ctx context.Context, path string, interrupts []*Expr, fail *Fail, sleepMS int, env Env, c *Counters) ([]any, error) {
	var resumes []any
	for _, e := range interrupts {
		env.Resume, env.Resumes = last(resumes), append([]any(nil), resumes...)
		payload, err := e.Eval(env)
		if err != nil {
			return nil, e.placed(fmt.Errorf("interrupt expression: %w", err))
		}
		answer, err := engine.Interrupt(ctx, payload)
		if err != nil {
			return nil, err
		}
		resumes = append(resumes, answer)
	}
	if fail != nil && c.failAttempt(path) <= fail.Times {
		if err := work(ctx, fail.AfterMS); err != nil {
			return nil, err
		}
		return nil, &ScriptedFailure{Node: path, Message: fail.Message}
	}
	if err := work(ctx, sleepMS); err != nil {
		return nil, err
	}
	return resumes, nil
}

// entrypointValues is what the trace records as an entrypoint's values: its
// output when it is a map, as LangGraph.js's values chunk read as an
// object; nothing otherwise.
func entrypointValues(out any) map[string]any {
	if m, ok := out.(map[string]any); ok {
		return m
	}
	return map[string]any{}
}
