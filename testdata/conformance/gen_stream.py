#!/usr/bin/env python3
"""Random scenarios aimed at stream output, the chunks a user sees live:
every op that runs the graph records a random non-empty choice of the
stream modes values, updates, custom and tasks (most often all four), and,
when the graph has a subgraph, often its namespaced chunks too
(stream_subgraphs). The graphs put into those streams: interrupts (one or
a list per node) answered by plain and by_node resumes, Send fan-outs,
a subgraph or subgraph-invoking node (inner interrupts, inner custom
chunks, Command.PARENT with update and goto, a stateful one), retries that
succeed, node caches (cached tasks' updates, a second thread and new
inputs that hit them, clear_cache), deferred nodes, joins, a routed loop,
static breakpoints (interrupt_before/after, then input null; a
subgraph's own), run timeouts retried, a subgraph retried whole by the
node that runs it, Command inputs (update, goto; update beside a resume),
update_state (values, a Command, __copy__, __end__) and bulk_update
continued from the fork, replays (at), durability modes (async, sync,
exit), max_concurrency 2; one file in five is a functional-API
entrypoint instead (tasks that ask, fail and retry, cache; one call item,
a call or a group, streamed in every mode).

Timing is explicit, so that each chunk's place is specified:
* every node works (sleep_ms) and no two nodes work the same time: root
  node i works 50 + 80 i ms, a subgraph's inner node j base + 40 j ms;
  custom chunks are emitted after the work, so they too are apart;
* a failing attempt raises at fail.after_ms (never the time another event
  is due), a timed-out one at timeout_ms (60 ms past its work, its failure
  due 60 ms later), and is retried (max_attempts 2): the op goes on. An op
  that fails all the same (a routed loop or a Command.PARENT goto past
  the recursion limit) has an unspecified stream (LangGraph.js loses its
  last chunks): compare such ops without their streams;
* an interrupt is raised at once when its node starts (zero time): so at
  most one root node asks, and a subgraph's interrupt is never in its
  first inner node (the subgraph's first node works before anything in
  it asks). Subgraph chunks are recorded only when no root node asks (a
  root interrupt and a subgraph's first chunk are both due at once);
* a Send goes to a worker node (working longer than any root node) that
  nothing else reaches (edges, routes, gotos), one Send per worker from
  one route, so that no two tasks of one node run in one superstep (they
  would work the same time);
* update_state into a subgraph's namespace only without a root asker:
  the subgraph may have nothing left to work, and ends at once;
* one node writes the LastValue key (a conflict fails the op);
* a list of interrupts (the next one raised at once when the first is
  answered) only when one node asks;
* with two askers, a run that may meet both pending (input null, a
  replay, a fork) records no stream: both are asked again at once;
* with two askers (the root one and the subgraph's), resumes answer
  by_node (prune_ops.py turns one into a plain value when its node has no
  pending interrupt): a plain value may answer two askers in LangGraph.js;
* the functional entrypoint makes one call item (more streams a call's
  result after its caller went on, an event-loop order, see gen_func.py),
  a group holds one asker at most and one cached task at most, last.
python3 gen_stream.py FIRST LAST OUTDIR, then python3 prune_ops.py
SUPERSTEP_BINARY OUTDIR/*.json, then run each through the oracle and
`superstep trace`, and compare.py --strict"""
import random

from genlib import connect_unreached, write_scenarios

STATE = {"log": "add", "n": "sum", "v": None, "m": "merge"}
MODES = ["values", "updates", "custom", "tasks"]


def modes(r, functional=False):
    ms = MODES if not functional else ["values", "updates", "tasks"]
    if r.random() < 0.5:
        return list(ms)
    return r.sample(ms, r.randint(1, len(ms)))


def subgraph(r, tag, base_ms, parent_targets):
    k = r.randint(2, 4)
    names = [f"{tag}{j}" for j in range(k)]
    nodes, edges = [], [["__start__", names[0]]]
    has_int = False
    for j, nm in enumerate(names):
        node = {"name": nm, "update": {"log": f"['{nm}']"}, "sleep_ms": base_ms + 40 * j}
        if r.random() < 0.25:
            node["update"]["n"] = "1"
        if r.random() < 0.4:
            node["emit"] = f"'{nm}!' + str(len(state.log))"
        if j > 0 and not has_int and r.random() < 0.45:
            if r.random() < 0.3:
                node["interrupt"] = [f"'{nm}?1'", f"'{nm}?2:' + str(resume)"]
                node["update"]["log"] = f"['{nm}:' + join(resumes, '+')]"
            else:
                node["interrupt"] = f"'{nm}?'"
                node["update"]["log"] = f"['{nm}:' + str(resume)]"
            has_int = True
        elif j > 0 and r.random() < 0.2:
            node["fail"] = {"times": 1, "message": "x", "after_ms": base_ms + 40 * j - 20}
            node["retry"] = {"max_attempts": 2}
        nodes.append(node)
    for j in range(k - 1):
        edges.append([names[j], names[j + 1]])
    edges.append([names[-1], "__end__"])
    parent_goto = None
    if parent_targets and r.random() < 0.3:
        last = nodes[-1]
        if "interrupt" in last:
            last.pop("interrupt")
            has_int = False
        last["parent"] = True
        parent_goto = r.choice(parent_targets)
        last["goto"] = f"'{parent_goto}'"
        last["update"] = {"log": f"['{last['name']}^']", "n": "10"}
        edges.pop()
    sg = {"state": {"log": "add", "n": "sum"}, "nodes": nodes, "edges": edges}
    if r.random() < 0.25:
        sg["stateful"] = True
    outer_retry = False
    failing = [nd for nd in nodes if "fail" in nd]
    if failing and r.random() < 0.5:
        # the failure ends the subgraph's run; the node running it retries
        # it whole
        failing[0].pop("retry")
        outer_retry = True
    if k > 2 and r.random() < 0.15:
        # the subgraph's own breakpoint, after its first node worked
        sg[r.choice(["interrupt_before", "interrupt_after"])] = [names[1]]
    return sg, has_int, parent_goto, names, outer_retry


def gen_graph(r, seed):
    n = r.randint(3, 6)
    names = [f"n{i}" for i in range(n)]
    nodes, edges, branches, subs = [], [["__start__", names[0]]], [], {}
    interrupters, sub_nodes = [], []
    root_asker = v_writer = None
    sub_at = r.randint(1, n - 1) if r.random() < 0.45 else None
    for i, nm in enumerate(names):
        ms = 50 + 80 * i
        if i == sub_at:
            targets = [x for x in names if x != nm and x != names[0]]
            sg, hi, pg, inner, outer_retry = subgraph(r, f"{nm}_", ms, targets)
            subs[f"g{i}"] = sg
            node = {"name": nm, r.choice(["subgraph", "subgraph", "invoke"]): f"g{i}"}
            if outer_retry:
                node["retry"] = {"max_attempts": 2}
            if pg:
                node["ends"] = [pg]
            if hi:
                interrupters.append(nm)
            sub_nodes.append((nm, inner))
        else:
            node = {"name": nm, "update": {"log": f"['{nm}']"}, "sleep_ms": ms}
            if r.random() < 0.3:
                node["update"]["n"] = str(i + 1)
            if not v_writer and r.random() < 0.15:
                # one writer of the LastValue key: two in a superstep fail it
                node["update"]["v"] = f"'{nm}'"
                v_writer = nm
            if r.random() < 0.2:
                node["update"]["m"] = f"{{{nm}: len(state.log)}}"
            if r.random() < 0.4:
                node["emit"] = f"'{nm}:' + str(len(state.log))"
            k = r.random()
            if i > 0 and root_asker is None and k < 0.35:
                if r.random() < 0.3:
                    node["interrupt"] = [f"'{nm}?1'", f"'{nm}?2:' + str(resume)"]
                    node["update"]["log"] = f"['{nm}:' + join(resumes, '+')]"
                else:
                    node["interrupt"] = f"'{nm}?' + str(len(state.log))"
                    node["update"]["log"] = f"['{nm}:' + str(resume)]"
                root_asker = nm
                interrupters.append(nm)
            elif i > 0 and k < 0.5:
                node["fail"] = {"times": 1, "message": "x", "after_ms": ms - 30}
                node["retry"] = {"max_attempts": 2, "initial_interval_ms": r.choice([0, 10])}
            elif i > 0 and k < 0.6:
                # a run timeout: the first attempt works past it, the
                # retry well inside it
                node["timeout_ms"] = ms + 60
                node["fail"] = {"times": 1, "message": "slow", "after_ms": ms + 120}
                node["retry"] = {"max_attempts": 2, "retry_on": ["NodeTimeoutError"]}
            if "interrupt" not in node and r.random() < 0.25:
                node["cache"] = {"key": r.choice(["len(state.log)", "state.n"])}
                if r.random() < 0.3:
                    node["cache"]["ttl_s"] = 60
            if i > 1 and r.random() < 0.15:
                node["defer"] = True
        nodes.append(node)
    workers = []
    for i in range(n - 1):
        tgt = r.randint(i + 1, n - 1)
        k = r.random()
        if k < 0.4:
            edges.append([names[i], names[tgt]])
        elif k < 0.55 and i + 2 < n:
            a, b = r.sample(names[i + 1:], 2)
            edges.append([names[i], a]); edges.append([names[i], b])
            if r.random() < 0.5:
                edges.append([[a, b], names[-1]] if names[-1] not in (a, b) else [names[i], names[tgt]])
        elif k < 0.7:
            others = names[i + 1:]
            a, b = (r.sample(others, 2) if len(others) >= 2 else (others[0], others[0]))
            branches.append({"from": names[i], "route": f"len(state.log) % 2 == 0 ? '{a}' : ['{a}', '{b}']",
                             "ends": sorted({a, b})})
        elif k < 0.85 and i != sub_at:
            # a fan-out to two workers of their own, which work different times
            w = [f"w{len(workers)}", f"w{len(workers) + 1}"]
            # after every root node's last event (a timed-out node's retry
            # ends at 2 (50 + 80 i) + 60 ms): a deferred node may run beside
            base = 60 + 160 * n + 60 * len(workers)
            for j, wn in enumerate(w):
                wnode = {"name": wn, "update": {"log": "state.log", "n": "1"}, "sleep_ms": base + 30 * j}
                if r.random() < 0.3:
                    wnode["emit"] = f"'{wn}:' + str(len(state.log))"
                workers.append(wnode)
                edges.append([wn, names[tgt]] if r.random() < 0.6 else [wn, "__end__"])
            branches.append({"from": names[i], "route": f"[send('{w[0]}', {{log: ['{w[0]}']}}), send('{w[1]}', {{log: ['{w[1]}']}})]",
                             "ends": w})
        else:
            edges.append([names[i], names[tgt]])
            if i + 1 < tgt:
                edges.append([names[i], names[i + 1]])
    if r.random() < 0.25:
        branches.append({"from": names[-1], "route": f"len(state.log) < {r.randint(6, 12)} ? '{names[1]}' : '__end__'",
                         "ends": [names[1], "__end__"]})
    connect_unreached(names, nodes, edges, branches)
    if len(interrupters) >= 2:
        # a node's second interrupt is raised at once when the first is
        # answered, beside the other asker's pending one: one each
        for nd in nodes + [x for sg in subs.values() for x in sg["nodes"]]:
            if isinstance(nd.get("interrupt"), list):
                nd["interrupt"] = nd["interrupt"][0]
                nd["update"]["log"] = f"['{nd['name']}:' + str(resume)]"
    sc = {"name": f"fz10_{seed}", "description": "generated (gen_stream)", "state": dict(STATE),
          "nodes": nodes + workers, "edges": edges, "branches": branches, "ops": []}
    if subs:
        sc["subgraphs"] = subs
    if r.random() < 0.3:
        kind = r.choice(["interrupt_before", "interrupt_after"])
        sc[kind] = "*" if r.random() < 0.2 else sorted(r.sample(names[1:], 1))
    sub_stream = bool(subs) and root_asker is None and r.random() < 0.7
    ops = sc["ops"]

    def run(op, again=False):
        # again: a run that may ask pending interrupts again without an
        # answer; with two askers both come at once, so it records no stream
        if r.random() < 0.9 and not (again and len(interrupters) >= 2):
            op["stream"] = modes(r)
            if sub_stream and r.random() < 0.8:
                op["stream_subgraphs"] = True
        if r.random() < 0.4:
            op["durability"] = r.choice(["exit", "sync", "async"])
        if r.random() < 0.1:
            # (1 runs a single task of a superstep in LangGraph.js 1.7.3)
            op["max_concurrency"] = 2
        op["recursion_limit"] = 12
        return op

    answers = 0

    def resume():
        nonlocal answers
        answers += 1
        if len(interrupters) >= 2:
            return run({"op": "resume", "by_node": {r.choice(interrupters): f"b{answers}"}})
        if r.random() < 0.2:
            # a Command with an update beside the answer
            return run({"op": "invoke", "command": {"update": {"log": [f"c{answers}"]}, "resume": f"r{answers}"}})
        return run({"op": "resume", "value": f"r{answers}"})

    if r.random() < 0.2:
        c = {"update": {"log": ["cmd"], "n": 0}}
        if r.random() < 0.6:
            c["goto"] = r.choice(names[1:])
        ops.append(run({"op": "invoke", "command": c}))
    else:
        ops.append(run({"op": "invoke", "input": {"log": [], "n": 0}}))
    for _ in range(r.randint(4, 9)):
        k = r.random()
        if k < 0.3 and interrupters:
            ops.append(resume())
        elif k < 0.42:
            ops.append(run({"op": "invoke", "input": None}, True))
        elif k < 0.52:
            c = {"update": {"log": ["uc"], "n": 7}}
            if r.random() < 0.5:
                c["goto"] = r.choice(names[1:])
            u = {"op": "update_state", "as_node": r.choice(names)}
            if r.random() < 0.5:
                u["command"] = c
            else:
                u["values"] = {"log": ["upd"], "n": 100}
            if r.random() < 0.4:
                u["at"] = {"step": r.randint(0, 3)}
            ops.append(u)
            ops.append(run({"op": "invoke", "input": None, "from": "fork"}))
        elif k < 0.62:
            ops.append(run({"op": "invoke", "input": None, "at": {"step": r.randint(0, 4)}}, True))
        elif k < 0.66:
            ops.append({"op": "clear_cache"})
        elif k < 0.7:
            u = {"op": "update_state", "values": None, "as_node": r.choice(["__copy__", "__end__"])}
            if r.random() < 0.5:
                u["at"] = {"step": r.randint(0, 3)}
            ops.append(u)
            ops.append(run({"op": "invoke", "input": None, "from": "fork"}, True))
        elif k < 0.73:
            a, b = r.sample(names, 2)
            ops.append({"op": "bulk_update", "supersteps": [[{"values": {"log": ["b1"]}, "as_node": a}],
                                                            [{"values": {"log": ["b2"], "n": 3}, "as_node": b}]]})
            ops.append(run({"op": "invoke", "input": None, "from": "fork"}))
        elif k < 0.78 and sub_nodes and root_asker is None:
            # (an update to the subgraph's last node ends its run at once,
            # beside a root interrupt raised at once)
            sn, inner = sub_nodes[0]
            ops.append({"op": "update_state", "subgraph": sn, "values": {"log": ["su"], "n": 5}, "as_node": r.choice(inner)})
            # continued at the thread's head, or from the update (LangGraph's
            # checkpoint map: the root run knows the subgraph's checkpoint)
            cont = {"op": "invoke", "input": None}
            if r.random() < 0.5:
                cont["from"] = "fork"
            ops.append(run(cont))
        elif k < 0.86:
            ops.append(run({"op": "invoke", "thread": "t2", "input": {"log": ["t2"], "n": 1}}))
        elif k < 0.92:
            ops.append({"op": "get_state", "subgraphs": True})
        else:
            ops.append(run({"op": "invoke", "input": {"log": ["again"]}}))
    ops.append({"op": "history"})
    return sc


def gen_func(r, seed):
    nt = r.randint(1, 3)
    tnames = [f"t{i}" for i in range(nt)]
    tasks, askers = {}, []
    for i, tn in enumerate(tnames):
        t = {"result": f"'{tn}:' + str(state)", "sleep_ms": 40 + 60 * i}
        k = r.random()
        if k < 0.35 and not askers:
            t["interrupt"] = f"'{tn}?' + str(state)"
            t["result"] = f"'{tn}:' + str(resume)"
            askers.append(tn)
        elif k < 0.6:
            t["fail"] = {"times": 1, "message": "x", "after_ms": 20 + 60 * i}
            t["retry"] = {"max_attempts": 2}
        elif r.random() < 0.5:
            t["cache"] = {"key": "state"}
        tasks[tn] = t
    items = [{"task": tn, "arg": r.choice(["state.n", "'a'", "previous == null ? 0 : 1"])} for tn in tnames]
    # one cached task, called last
    cached = [c for c in items if "cache" in tasks[c["task"]]]
    for c in cached[:-1]:
        tasks[c["task"]].pop("cache")
    items.sort(key=lambda c: "cache" in tasks[c["task"]])
    ep = {"name": "main", "calls": [items[0] if len(items) == 1 else items],
          "return": "{'out': results, 'prev': previous, 'n': state.n}", "sleep_ms": 20 + 60 * nt}
    if r.random() < 0.3:
        ep["interrupt"] = "'main?'"
        ep["return"] = "{'out': results, 'ans': resume, 'n': state.n}"
        askers.append("main")
    if r.random() < 0.3:
        ep["save"] = "{'saved': state.n}"
    sc = {"name": f"fz10_{seed}", "description": "generated (gen_stream, functional)", "tasks": tasks,
          "entrypoint": ep, "ops": []}
    ops = sc["ops"]

    def run(op):
        if r.random() < 0.9:
            op["stream"] = modes(r, True)
        if r.random() < 0.4:
            op["durability"] = r.choice(["exit", "sync", "async"])
        return op

    ops.append(run({"op": "invoke", "input": {"n": 1}}))
    answers = 0
    for _ in range(r.randint(3, 7)):
        k = r.random()
        if k < 0.35 and askers:
            answers += 1
            if len(askers) == 1:
                ops.append(run({"op": "resume", "value": f"r{answers}"}))
            else:
                ops.append(run({"op": "resume", "by_node": {"main": f"r{answers}"}}))
        elif k < 0.5:
            ops.append(run({"op": "invoke", "input": None}))
        elif k < 0.65:
            ops.append(run({"op": "invoke", "input": {"n": r.randint(2, 5)}}))
        elif k < 0.72:
            ops.append({"op": "clear_cache"})
        elif k < 0.82:
            ops.append(run({"op": "invoke", "input": None, "at": {"step": r.randint(-1, 3)}}))
        elif k < 0.92:
            ops.append(run({"op": "invoke", "thread": "t2", "input": {"n": 9}}))
        else:
            ops.append({"op": "get_state"})
    ops.append({"op": "history"})
    return sc


def gen(seed):
    r = random.Random(seed)
    if r.random() < 0.2:
        return gen_func(r, seed)
    return gen_graph(r, seed)


write_scenarios(gen, "fz10")
