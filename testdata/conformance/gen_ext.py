#!/usr/bin/env python3
"""Random scenarios for the features no other generator draws: durability
modes (async, sync, exit) on invokes and resumes, runtime context read by
nodes, routes and subgraph nodes, run timeouts with retry_on and backoff,
stateful subgraphs and nodes that invoke a subgraph (engine.InvokeSubgraph),
Command inputs (update, goto, Sends), update_state with a Command, with
as_node __copy__ and __end__, bulk_update, history with limit, filter and
before, node caches with clear_cache, and path_map routes; beside
interrupts (by_node), failures, replays, forks and a second thread.
Timing is explicit: nodes that can run in one superstep work different
times (60 ms apart), a timeout is at least 40 ms from the work it cuts,
and the Send tasks of one node carry no interrupt, failure, timeout or
cache. One subgraph (node or invoking node) at most.
python3 gen_ext.py FIRST LAST OUTDIR, then python3 prune_ops.py
SUPERSTEP_BINARY OUTDIR/*.json, then as gen_mixed.py"""
import random

from genlib import connect_unreached, write_scenarios

STATE = {"log": "add", "n": "sum", "v": None, "m": "merge"}


def ctx_expr(nm):
    return f"['{nm}:' + str(context.tag)]"


def subgraph(r, tag, base_ms, parent_targets):
    k = r.randint(2, 4)
    names = [f"{tag}{i}" for i in range(k)]
    nodes, edges = [], [["__start__", names[0]]]
    has_int = False
    for i, nm in enumerate(names):
        node = {"name": nm, "update": {"log": f"['{nm}']"}, "sleep_ms": base_ms + 30 * i}
        if r.random() < 0.3:
            node["update"]["log"] = ctx_expr(nm)
        if r.random() < 0.25:
            node["update"]["n"] = "1"
        if i > 0 and not has_int and r.random() < 0.4:
            node["interrupt"] = f"'{nm}?'"
            node["update"]["log"] = f"['{nm}:' + str(resume)]"
            has_int = True
        elif i > 0 and r.random() < 0.25:
            node["fail"] = {"times": 1, "message": "x", "after_ms": base_ms + 30 * i + 20}
            node["retry"] = {"max_attempts": 2, "initial_interval_ms": r.choice([0, 20])}
        nodes.append(node)
    for i in range(k - 1):
        edges.append([names[i], names[i + 1]])
    edges.append([names[-1], "__end__"])
    parent_goto = None
    if parent_targets and r.random() < 0.3:
        last = nodes[-1]
        last.pop("interrupt", None)
        has_int = any("interrupt" in nd for nd in nodes)
        last["parent"] = True
        parent_goto = r.choice(parent_targets)
        last["goto"] = f"'{parent_goto}'"
        last["update"] = {"log": f"['{last['name']}^']", "n": "10"}
        edges.pop()
    sg = {"state": {"log": "add", "n": "sum"}, "nodes": nodes, "edges": edges}
    if r.random() < 0.4:
        sg["stateful"] = True
    return sg, has_int, parent_goto, names


def timed_node(r, node, ms, with_sub):
    """A run timeout: the first attempt works past it (a failure scheduled
    after the timeout), the retry finishes well inside it."""
    t = ms + 80
    node["timeout_ms"] = t
    node["fail"] = {"times": 1, "message": "slow", "after_ms": t + 60}
    node["retry"] = {"max_attempts": 2, "retry_on": ["NodeTimeoutError"]}
    if not with_sub and r.random() < 0.3:
        # retried on a scripted failure only: the timeout ends the run
        # (not beside a subgraph: a failure that ends the superstep leaves
        # a running subgraph running on in LangGraph.js, unspecified: conf21)
        node["retry"]["retry_on"] = ["other"]


def gen(seed):
    r = random.Random(seed)
    n = r.randint(3, 6)
    names = [f"n{i}" for i in range(n)]
    nodes, edges, branches, subs = [], [["__start__", names[0]]], [], {}
    interrupters, sub_nodes, send_targets = [], [], set()
    sub_at = r.randint(1, n - 1) if r.random() < 0.55 else None
    for i, nm in enumerate(names):
        ms = 60 * i
        if i == sub_at:
            targets = [x for x in names if x != nm and x != names[0]]
            sg, hi, pg, inner = subgraph(r, f"{nm}_", ms, targets)
            subs[f"g{i}"] = sg
            node = {"name": nm, r.choice(["subgraph", "invoke"]): f"g{i}"}
            if pg:
                node["ends"] = [pg]
            if hi:
                interrupters.append(nm)
            sub_nodes.append((nm, inner))
        else:
            node = {"name": nm, "update": {"log": f"['{nm}']"}}
            if ms:
                node["sleep_ms"] = ms
            roll = r.random()
            if roll < 0.25:
                node["update"]["log"] = ctx_expr(nm)
            if r.random() < 0.3:
                node["update"]["n"] = str(i + 1)
            if r.random() < 0.15:
                node["update"]["v"] = f"'{nm}'"
            if r.random() < 0.2:
                node["update"]["m"] = f"{{{nm}: context.tag == null ? 0 : 1}}"
            k = r.random()
            if i > 0 and len(interrupters) < 2 and k < 0.3:
                node["interrupt"] = f"'{nm}?'"
                node["update"]["log"] = f"['{nm}:' + str(resume)]"
                interrupters.append(nm)
            elif i > 0 and k < 0.45:
                timed_node(r, node, ms, sub_at is not None)
            elif i > 0 and k < 0.6:
                node["fail"] = {"times": r.choice([1, 2]), "message": "x", "after_ms": 30 + ms}
                # retried enough beside a subgraph (see timed_node)
                node["retry"] = {"max_attempts": node["fail"]["times"] + (1 if sub_at is not None else r.choice([0, 1])),
                                 "initial_interval_ms": r.choice([0, 10, 30]),
                                 "backoff_factor": r.choice([1, 2]), "max_interval_ms": 40}
            if "interrupt" not in node and r.random() < 0.25:
                node["cache"] = {"key": r.choice(["len(state.log)", "state.n", "context.tag"])}
                if r.random() < 0.3:
                    node["cache"]["ttl_s"] = 60
            if i > 1 and r.random() < 0.12 and "timeout_ms" not in node:
                node["defer"] = True
        nodes.append(node)
    for i in range(n - 1):
        tgt = r.randint(i + 1, n - 1)
        k = r.random()
        if k < 0.35:
            edges.append([names[i], names[tgt]])
        elif k < 0.5 and i + 2 < n:
            a, b = r.sample(names[i + 1:], 2)
            edges.append([names[i], a]); edges.append([names[i], b])
        elif k < 0.65:
            others = names[i + 1:]
            a, b = (r.sample(others, 2) if len(others) >= 2 else (others[0], others[0]))
            route = r.choice([f"context.tag == 'x' ? 'p' : 'q'", f"len(state.log) % 2 == 0 ? 'p' : 'q'"])
            branches.append({"from": names[i], "route": route, "path_map": {"p": a, "q": b}})
        elif k < 0.8 and tgt != sub_at:
            send_targets.add(names[tgt])
            branches.append({"from": names[i], "route": f"[send('{names[tgt]}', {{log: ['s1']}}), send('{names[tgt]}', {{log: ['s2']}})]",
                             "ends": [names[tgt]]})
        elif k < 0.9 and i != sub_at and tgt != sub_at:
            send_targets.add(names[tgt])
            extra = f", '{names[i + 1]}'" if i + 1 != tgt and r.random() < 0.5 else ""
            nodes[i]["goto"] = f"[send('{names[tgt]}', {{log: ['g1']}}){extra}]"
            nodes[i]["ends"] = sorted({names[tgt]} | ({names[i + 1]} if extra else set()))
        else:
            edges.append([names[i], names[tgt]])
            if i + 1 < tgt:
                edges.append([names[i], names[i + 1]])
    if r.random() < 0.25:
        branches.append({"from": names[-1], "route": f"len(state.log) < {r.randint(6, 12)} ? '{names[1]}' : '__end__'",
                         "ends": [names[1], "__end__"]})
    connect_unreached(names, nodes, edges, branches_with_ends(branches))
    for nd in nodes:
        if nd["name"] in send_targets:
            for f in ("fail", "retry", "timeout_ms", "cache", "defer"):
                nd.pop(f, None)
            if "interrupt" in nd:
                nd.pop("interrupt"); nd["update"]["log"] = f"['{nd['name']}']"
                interrupters.remove(nd["name"])
    sc = {"name": f"fz8_{seed}", "description": "generated (gen_ext)", "state": dict(STATE),
          "nodes": nodes, "edges": edges, "branches": branches, "ops": []}
    if subs:
        sc["subgraphs"] = subs
    if r.random() < 0.25:
        sc[r.choice(["interrupt_before", "interrupt_after"])] = sorted(r.sample(names[1:], 1))
    ops = sc["ops"]

    def run(op):
        if r.random() < 0.6:
            op["durability"] = r.choice(["exit", "exit", "sync"])
        if r.random() < 0.6:
            op["context"] = {"tag": r.choice(["x", "y"])}
        op["recursion_limit"] = r.randint(3, 10) if r.random() < 0.4 else 12
        if len(interrupters) < 2 and not send_targets and r.random() < 0.4:
            op["stream"] = r.sample(["values", "updates", "tasks"], r.randint(1, 3))
        return op

    first = {"op": "invoke", "input": {"log": []}}
    if r.random() < 0.25:
        first = {"op": "invoke", "command": {"update": {"log": ["cmd"]}}}
        if r.random() < 0.5:
            first["command"]["goto"] = r.choice(names[1:])
    # Send targets of Command gotos: not the subgraph node (two runs of one
    # subgraph at once, a stateful one's in one namespace, write in an
    # unspecified order)
    plain = [x for x in names[1:] if not any(x == sn for sn, _ in sub_nodes)] or names[:1]
    ops.append(run(first))
    ops.append({"op": "get_state", "subgraphs": True})
    answers = 0
    for _ in range(r.randint(4, 9)):
        k = r.random()
        if k < 0.12 and len(interrupters) >= 2:
            answers += 1
            ops.append(run({"op": "resume", "by_node": {r.choice(interrupters): f"b{answers}"}}))
        elif k < 0.25 and interrupters:
            answers += 1
            ops.append(run({"op": "resume", "value": f"r{answers}"}))
        elif k < 0.35:
            ops.append(run({"op": "invoke", "input": None}))
        elif k < 0.45:
            c = {"update": {"log": ["uc"], "n": 7}}
            if r.random() < 0.6:
                c["goto"] = r.choice([r.choice(names[1:]), {"$send": {"node": r.choice(plain), "arg": {"log": ["us"]}}}])
            u = {"op": "update_state", "command": c, "as_node": r.choice(names)}
            if r.random() < 0.4:
                u["at"] = {"step": r.randint(0, 3)}
            ops.append(u)
            ops.append(run({"op": "invoke", "input": None, "from": "fork"}))
        elif k < 0.52:
            u = {"op": "update_state", "values": None, "as_node": r.choice(["__copy__", "__end__"])}
            if r.random() < 0.5:
                u["at"] = {"step": r.randint(0, 3)}
            ops.append(u)
            ops.append(run({"op": "invoke", "input": None, "from": "fork"}))
        elif k < 0.6:
            a, b = r.sample(names, 2)
            ops.append({"op": "bulk_update", "supersteps": [[{"values": {"log": ["b1"]}, "as_node": a}],
                                                            [{"values": {"log": ["b2"], "n": 3}, "as_node": b}]]})
            ops.append(run({"op": "invoke", "input": None, "from": "fork"}))
        elif k < 0.7:
            h = {"op": "history"}
            if r.random() < 0.5:
                h["limit"] = r.randint(1, 4)
            if r.random() < 0.5:
                h["filter"] = r.choice([{"source": "loop"}, {"source": "update"}, {"step": r.randint(0, 3)},
                                        {"source": "input"}, {"source": "fork"}])
            if r.random() < 0.4:
                h["before"] = {"step": r.randint(1, 4)}
            ops.append(h)
        elif k < 0.76:
            ops.append({"op": "clear_cache"})
        elif k < 0.84:
            ops.append(run({"op": "invoke", "input": None, "at": {"step": r.randint(0, 4)}}))
            ops.append({"op": "get_state", "subgraphs": True})
        elif k < 0.9 and sub_nodes:
            sn, inner = sub_nodes[0]
            ops.append({"op": "get_state", "subgraph": sn})
            ops.append({"op": "update_state", "subgraph": sn, "values": {"log": ["su"], "n": 5}, "as_node": r.choice(inner)})
            ops.append(run({"op": "invoke", "input": None}))
        elif k < 0.95:
            t2 = {"op": "invoke", "thread": "t2", "input": {"log": ["t2"]}}
            if r.random() < 0.5:
                t2 = {"op": "invoke", "thread": "t2", "command": {"update": {"log": ["t2"]}, "goto": [
                    {"$send": {"node": r.choice(plain), "arg": {"log": ["t2s"]}}}]}}
            ops.append(run(t2))
        else:
            ops.append(run({"op": "invoke", "input": {"log": ["again"]}}))
    if sub_nodes and r.random() < 0.5:
        ops.append({"op": "history", "subgraph": sub_nodes[0][0]})
    ops.append({"op": "history"})
    return sc


def branches_with_ends(branches):
    out = []
    for b in branches:
        out.append(b if "ends" in b else {"from": b["from"], "ends": list(b["path_map"].values())})
    return out


write_scenarios(gen, "fz8")
