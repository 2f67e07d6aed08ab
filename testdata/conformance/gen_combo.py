#!/usr/bin/env python3
"""Random scenarios combining what the public ones rarely mix: recorded
streams (values, updates, custom; with subgraphs) on invokes and resumes,
nodes with several interrupts answered by plain and by_node resumes,
subgraph nodes (inner interrupts, Command.PARENT with goto + update, Sends
to them, inner loops under a recursion limit), update_state / get_state /
history addressed to a subgraph namespace, replays, node caches beside
retries, deferred nodes beside Sends and interrupts, and every reducer
(add, sum, concat, merge, sorted, add_messages, LastValue, Overwrite).
Timing is explicit: tasks of one superstep work different times.
python3 gen_combo.py FIRST LAST OUTDIR; same use as gen_mixed.py"""
import random

from genlib import connect_unreached, write_scenarios

STATE = {"log": "add", "n": "sum", "s": "concat", "m": "merge", "srt": "sorted",
         "msgs": "add_messages", "v": None}


def update_of(r, nm, i):
    up = {"log": f"['{nm}']"}
    for key, expr in (("n", str(i + 1)), ("s", f"'{nm};'"), ("m", f"{{{nm}: {i}}}"),
                      ("srt", f"['{nm}', 'z{i % 3}']"), ("v", f"'{nm}'")):
        if r.random() < 0.2:
            up[key] = expr
    if r.random() < 0.2:
        up["msgs"] = f"msg('{r.choice(['m0', 'm1', 'm2'])}', 'assistant', '{nm}')"
    if r.random() < 0.06:
        key = r.choice(["log", "s", "srt"])
        up[key] = f"overwrite('{nm}-ow')" if key == "s" else f"overwrite(['{nm}-ow'])"
    return up


def with_interrupt(r, node, nm, several):
    if several and r.random() < 0.5:
        node["interrupt"] = [f"'{nm}?1'", f"'{nm}?2:' + str(resume)"]
        node["update"]["log"] = f"['{nm}:' + join(resumes, '+')]"
    else:
        node["interrupt"] = f"'{nm}?'"
        node["update"]["log"] = f"['{nm}:' + str(resume)]"


def subgraph(r, tag, base_ms, parent_targets):
    k = r.randint(2, 4)
    names = [f"{tag}{i}" for i in range(k)]
    nodes, edges, branches = [], [["__start__", names[0]]], []
    has_int = False
    for i, nm in enumerate(names):
        node = {"name": nm, "update": {"log": f"['{nm}']"}, "sleep_ms": base_ms + 30 * i}
        if r.random() < 0.2:
            node["update"]["n"] = "1"
        if r.random() < 0.25:
            node["emit"] = f"'{nm}!'"
        if i > 0 and not has_int and r.random() < 0.45:
            with_interrupt(r, node, nm, True)
            has_int = True
        nodes.append(node)
    for i in range(k - 1):
        edges.append([names[i], names[i + 1]])
    loop = r.random() < 0.3
    if loop:
        branches.append({"from": names[-1], "route": f"len(state.log) < {r.randint(4, 9)} ? '{names[0]}' : '__end__'",
                         "ends": [names[0], "__end__"]})
    else:
        edges.append([names[-1], "__end__"])
    parent_goto = None
    if parent_targets and r.random() < 0.35:
        last = nodes[-1]
        last["parent"] = True
        parent_goto = r.choice(parent_targets)
        last["goto"] = f"'{parent_goto}'"
        last["update"] = {"log": f"['{last['name']}^']", "n": "10"}
        if loop:
            branches.pop()
        else:
            edges.pop()
    return ({"state": {"log": "add", "n": "sum"}, "nodes": nodes, "edges": edges, "branches": branches},
            has_int, parent_goto, names)


def gen(seed):
    r = random.Random(seed)
    n = r.randint(3, 6)
    names = [f"n{i}" for i in range(n)]
    nodes, edges, branches, subs = [], [["__start__", names[0]]], [], {}
    interrupters, sub_nodes, send_targets = [], [], set()
    is_sub = [i > 0 and r.random() < 0.35 for i in range(n)]
    for i, nm in enumerate(names):
        ms = 60 * i  # LangGraph.js's first run of a subgraph costs tens of ms
        if is_sub[i]:
            targets = [x for x in names if x != nm and x != names[0]]
            sg, hi, pg, inner = subgraph(r, f"{nm}_", ms, targets)
            subs[f"g{i}"] = sg
            node = {"name": nm, "subgraph": f"g{i}"}
            if pg:
                node["ends"] = [pg]
            if hi:
                interrupters.append(nm)
            sub_nodes.append((nm, inner))
        else:
            node = {"name": nm, "update": update_of(r, nm, i)}
            if ms:
                node["sleep_ms"] = ms
            if r.random() < 0.25:
                node["emit"] = f"'{nm}:' + str(len(state.log))"
            if i > 0 and len(interrupters) < 2 and r.random() < 0.3:
                with_interrupt(r, node, nm, True)
                interrupters.append(nm)
            elif i > 0 and r.random() < 0.2:
                node["fail"] = {"times": 1, "message": "x", "after_ms": 30 + 60 * i}
                if any(is_sub) or r.random() < 0.6:
                    # a failure that ends the superstep beside a running
                    # subgraph leaves that subgraph running on in
                    # LangGraph.js (unspecified here): retried, it ends nothing
                    node["retry"] = {"max_attempts": 2}
            if "interrupt" not in node and r.random() < 0.2:
                node["cache"] = {"key": r.choice(["len(state.log)", "state.n"])}
            if i > 1 and r.random() < 0.2:
                node["defer"] = True
        nodes.append(node)
    for i in range(n - 1):
        tgt = r.randint(i + 1, n - 1)
        k = r.random()
        if k < 0.45:
            edges.append([names[i], names[tgt]])
        elif k < 0.65:
            others = names[i + 1:]
            a, b = (r.sample(others, 2) if len(others) >= 2 else (others[0], others[0]))
            branches.append({"from": names[i], "route": f"len(state.log) % 2 == 0 ? '{a}' : ['{a}', '{b}']",
                             "ends": sorted({a, b})})
        elif k < 0.85:
            send_targets.add(names[tgt])
            branches.append({"from": names[i], "route": f"[send('{names[tgt]}', {{log: ['s1']}}), send('{names[tgt]}', {{log: ['s2']}})]",
                             "ends": [names[tgt]]})
        else:
            edges.append([names[i], names[tgt]])
            if i + 1 < tgt:
                edges.append([names[i], names[i + 1]])
    if r.random() < 0.3:
        branches.append({"from": names[-1], "route": f"len(state.log) < {r.randint(6, 12)} ? '{names[1]}' : '__end__'",
                         "ends": [names[1], "__end__"]})
    connect_unreached(names, nodes, edges, branches)
    for nd in nodes:
        if nd["name"] in send_targets:
            # two Send tasks of one node work the same time: keep them free of
            # interrupts, failures and Command.PARENT (their order is unspecified)
            nd.pop("fail", None); nd.pop("retry", None); nd.pop("emit", None)
            if "interrupt" in nd:
                nd.pop("interrupt"); nd["update"]["log"] = f"['{nd['name']}']"
                interrupters.remove(nd["name"])
            if "subgraph" in nd:
                for inner in subs[nd["subgraph"]]["nodes"]:
                    for f in ("interrupt", "parent", "goto", "emit"):
                        inner.pop(f, None)
                    inner["update"] = {"log": f"['{inner['name']}']"}
                    inner.pop("sleep_ms", None)
                nd.pop("ends", None)
                if nd["name"] in interrupters:
                    interrupters.remove(nd["name"])
    sc = {"name": f"fz4_{seed}", "description": "generated (gen_combo)", "state": dict(STATE),
          "nodes": nodes, "edges": edges, "branches": branches, "ops": []}
    if subs:
        sc["subgraphs"] = subs
    ops = sc["ops"]

    # Streams are recorded only where their order is specified: two
    # interrupts raise at once (zero time) when their nodes run again, and
    # the Send tasks of one subgraph node work the same time.
    send_sub = any("subgraph" in nd and nd["name"] in send_targets for nd in nodes)

    def streamed(op):
        # a goto back up the graph (Command.PARENT) may loop with a list
        # that doubles each turn: every run is bounded
        op.setdefault("recursion_limit", r.randint(5, 10))
        if len(interrupters) < 2 and r.random() < 0.7:
            # the Send tasks of one node end together: their update and
            # task result chunks may interleave either way
            modes = ["values", "updates", "custom"] + ([] if send_targets else ["tasks"])
            op["stream"] = r.sample(modes, r.randint(1, len(modes)))
            # a root node's interrupt comes at once, as does a subgraph's
            # first chunk: subgraph streams only without root interrupters
            root_int = any("interrupt" in nd for nd in nodes)
            if subs and not send_sub and not root_int and r.random() < 0.6:
                op["stream_subgraphs"] = True
        return op

    inv = {"op": "invoke", "input": {"log": [], "msgs": [{"id": "m0", "role": "user", "content": "hi"}]}}
    ops.append(streamed(inv))
    ops.append({"op": "get_state", "subgraphs": True})
    if len(interrupters) >= 2 and r.random() < 0.6:
        ops.append(streamed({"op": "resume", "by_node": {interrupters[0]: "b1"}}))
        ops.append({"op": "get_state", "subgraphs": True})
    if interrupters:
        ops.append(streamed({"op": "resume", "value": "r1"}))
    if sub_nodes and r.random() < 0.7:
        sn, inner = r.choice(sub_nodes)
        ops.append({"op": "get_state", "subgraph": sn})
        ops.append({"op": "update_state", "subgraph": sn, "values": {"log": ["su"], "n": 5}, "as_node": r.choice(inner)})
        ops.append({"op": "history", "subgraph": sn})
        ops.append(streamed({"op": "invoke", "input": None}))
        ops.append({"op": "get_state", "subgraphs": True})
    ops.append(streamed({"op": "invoke", "input": None}))
    if interrupters:
        ops.append(streamed({"op": "resume", "value": "r2"}))
    if r.random() < 0.5:
        ops.append(streamed({"op": "invoke", "input": None, "at": {"step": r.randint(1, 2)}}))
        ops.append({"op": "get_state", "subgraphs": True})
        if interrupters:
            ops.append(streamed({"op": "resume", "value": "r3"}))
    if r.random() < 0.4:
        ops.append({"op": "update_state", "at": {"step": r.randint(0, 2)}, "values": {"log": ["upd"], "n": 100, "m": {"u": 1}},
                    "as_node": r.choice(names)})
        ops.append(streamed({"op": "invoke", "input": None, "from": "fork"}))
    if r.random() < 0.3:
        ops.append(streamed({"op": "invoke", "input": {"log": ["again"]}, "thread": "t1"}))
    ops.append({"op": "history"})
    return sc


write_scenarios(gen, "fz4")
