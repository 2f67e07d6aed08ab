#!/usr/bin/env python3
"""Random scenarios for LangGraph's functional API, which no other
generator draws: an entrypoint calling tasks one by one and in groups,
tasks that ask (interrupt), fail (with and without retries, backoff),
work, or cache their results; the entrypoint's own interrupt, failure and
save; runs under every durability mode, resumed by plain and by_node-free
values, continued after failures (input null), replayed (at), updated
(update_state), run again with new inputs (previous), caches cleared, and
a second thread. Timing is explicit: the tasks of one group work
different times (40 ms apart) and each task is called once per run (a
repeated cached call is not scripted, see docs/scenario-format.md).
The last call may catch its task's failure (`catch`): the entrypoint then
works on (sleep_ms) and raises nothing itself, so the superstep's abort
finds it running.
An entrypoint with more than one call item streams values only: in
LangGraph.js the call that unblocks its caller has its result streamed
(tasks, updates) after the caller's next calls started, an order of
promise reactions (the caller's then at pregel/runner.ts:589 runs before
the tick's commit, :348 and :149-150), not something a runtime
without JavaScript's event loop reproduces. Cached tasks come last in
their group: LangGraph.js's acceptPush awaits a cache lookup that matches
every task of the superstep still without writes (pregel/loop.ts:926-941,
:1265), so a call made in the same synchronous batch after a cache hit's
call matches the hit again and doubles its writes and its cached update,
an upstream quirk of promise timing (with two cached tasks in a group it
even throws "BUG: multiple returns found", runner.ts:554-557), so a
group holds one cached task at most: the others are called after it.
A plain resume value answers one interrupt in superstep (and in
LangGraph's rule, algo.ts consumeNullResume), but in LangGraph.js it can
answer two: a call's scratchpad keeps the pending-writes array of when it
was planned, and a caller that awaited calls plans its next ones before
those calls' writes are put (event-loop order again), and putWrites
replaces the array (loop.ts putWrites), so the next call's
consumeNullResume splices a stale copy and a later call takes the same
value. So an entrypoint with two askers or more is answered by_node
(under its own name, which its tasks' interrupts are pending under), never
by a plain value.
python3 gen_func.py FIRST LAST OUTDIR, then python3 prune_ops.py
--drop-by-node SUPERSTEP_BINARY OUTDIR/*.json, then as gen_mixed.py"""
import random

from genlib import write_scenarios


def gen(seed):
    r = random.Random(seed)
    nt = r.randint(2, 5)
    tnames = [f"t{i}" for i in range(nt)]
    tasks = {}
    askers = []
    for i, tn in enumerate(tnames):
        t = {"result": f"'{tn}:' + str(state)"}
        t["sleep_ms"] = 40 * i + 10
        k = r.random()
        if k < 0.3:
            t["interrupt"] = f"'{tn}?' + str(state)"
            t["result"] = f"'{tn}:' + str(resume)"
            askers.append(tn)
        elif k < 0.55:
            times = r.choice([1, 1, 2])
            t["fail"] = {"times": times, "message": "x", "after_ms": 40 * i + 20}
            if r.random() < 0.7:
                t["retry"] = {"max_attempts": times + r.choice([0, 1]),
                              "initial_interval_ms": r.choice([0, 10]), "backoff_factor": r.choice([1, 2])}
        if "interrupt" not in t and r.random() < 0.3:
            t["cache"] = {"key": r.choice(["state", "str(state) + 'k'"])}
            if r.random() < 0.3:
                t["cache"]["ttl_s"] = 60
        tasks[tn] = t
    order = tnames[:]
    r.shuffle(order)
    calls, i = [], 0
    args = ["state.n", "len(results)", "previous == null ? 0 : 1", "'a'"]
    while i < len(order):
        g = r.randint(1, min(3, len(order) - i))
        # one asker a group: two interrupts raised at once come in an
        # unspecified order
        while g > 1 and sum(tn in askers for tn in order[i:i + g]) > 1:
            g -= 1
        items = [{"task": tn, "arg": r.choice(args)} for tn in order[i:i + g]]
        # cached tasks last: a call's cache lookup matches every task of the
        # superstep without writes, so a later call of the same group
        # doubles an earlier cached call's writes (see the docstring)
        items.sort(key=lambda c: "cache" in tasks[c["task"]])
        calls.append(items[0] if g == 1 and r.random() < 0.6 else items)
        # and one cached task a group: the others are called after it, alone
        while len(items) > 1 and "cache" in tasks[items[-2]["task"]]:
            calls.append(items.pop(-2))
        i += g
    ep = {"name": "main", "calls": calls,
          "return": "{'out': results, 'prev': previous, 'n': state.n}"}
    last = calls[-1]
    caught = isinstance(last, dict) and "fail" in tasks[last["task"]] and r.random() < 0.4
    if caught:
        # the last call's failure is caught, and the entrypoint is still
        # working when it comes: the abort that fails the superstep finds
        # it running (a call made after the abort, or an interrupt raised
        # at once, would meet it in an order of promise reactions)
        last["catch"] = "'caught:' + str(len(results))"
        ep["sleep_ms"] = 50
    k = 1 if caught else r.random()
    if k < 0.2:
        ep["interrupt"] = "'main?'"
        ep["return"] = "{'out': results, 'ans': resume, 'n': state.n}"
        askers.append("main")
    elif k < 0.35:
        ep["fail"] = {"times": 1, "message": "y", "after_ms": 30}
    if r.random() < 0.3:
        ep["save"] = "{'saved': state.n}"
    sc = {"name": f"fz9_{seed}", "description": "generated (gen_func)", "tasks": tasks,
          "entrypoint": ep, "ops": []}
    ops = sc["ops"]

    def run(op):
        if r.random() < 0.5:
            op["durability"] = r.choice(["exit", "sync"])
        if r.random() < 0.3:
            modes = r.sample(["values", "updates", "tasks"], r.randint(1, 2))
            if len(calls) > 1:
                # a call's result streams after the calls its caller made
                # next in LangGraph.js (event-loop order): values only
                modes = [m for m in modes if m == "values"]
            if modes:
                op["stream"] = modes
        return op

    ops.append(run({"op": "invoke", "input": {"n": 1}}))
    ops.append({"op": "get_state"})
    answers = 0
    for _ in range(r.randint(3, 8)):
        k = r.random()
        if k < 0.3 and askers:
            answers += 1
            if len(askers) == 1:
                ops.append(run({"op": "resume", "value": f"r{answers}"}))
            else:
                # a task's interrupt is pending under the entrypoint's
                # name; when none is (a failed run), prune_ops
                # --drop-by-node drops the op instead of making it plain
                ops.append(run({"op": "resume", "by_node": {"main": f"r{answers}"}}))
        elif k < 0.45:
            ops.append(run({"op": "invoke", "input": None}))
        elif k < 0.6:
            ops.append(run({"op": "invoke", "input": {"n": r.randint(2, 5)}}))
        elif k < 0.68:
            ops.append({"op": "clear_cache"})
        elif k < 0.76:
            ops.append(run({"op": "invoke", "input": None, "at": {"step": r.randint(-1, 3)}}))
            ops.append({"op": "get_state"})
        elif k < 0.84:
            ops.append(run({"op": "invoke", "thread": "t2", "input": {"n": 9}}))
        elif k < 0.92:
            h = {"op": "history"}
            if r.random() < 0.5:
                h["limit"] = r.randint(1, 3)
            ops.append(h)
        else:
            ops.append({"op": "get_state"})
    ops.append({"op": "history"})
    return sc


write_scenarios(gen, "fz9")
