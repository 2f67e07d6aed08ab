#!/usr/bin/env python3
"""Random scenarios mixing reducers (add, sum, add_messages, Overwrite),
deferred nodes, joins, routes, Sends, one interrupt, failures with retries,
max_concurrency and update_state/forks. python3 gen_mixed.py FIRST LAST OUTDIR; run each through the oracle and `superstep trace`, then compare.py --strict"""
import random

from genlib import connect_unreached, write_scenarios

def gen(seed):
    r = random.Random(seed)
    n = r.randint(3, 7)
    names = [f"n{i}" for i in range(n)]
    nodes, edges, branches = [], [["__start__", names[0]]], []
    has_interrupt = False
    send_targets = set()
    deferred = set()
    for i, nm in enumerate(names):
        up = {"log": f"['{nm}']"}
        roll = r.random()
        if roll < 0.25:
            up["n"] = str(i + 1)
        if r.random() < 0.3:
            mid = r.choice(["m1", "m2", "m3"])
            up["msgs"] = f"msg('{mid}', 'assistant', '{nm}')" if r.random() < 0.8 else f"removeMsg('m0')"
        if r.random() < 0.08:
            up["log"] = f"overwrite(['{nm}-ow'])"
        node = {"name": nm, "update": up}
        if i > 0 and r.random() < 0.2 and not has_interrupt:
            node["interrupt"] = f"'{nm}?'"
            up["log"] = f"['{nm}:' + str(resume)]"
            has_interrupt = True
        if i > 0 and r.random() < 0.15:
            node["fail"] = {"times": 1, "message": "x", "after_ms": 40 * (i + 1)}
            if r.random() < 0.5:
                node["retry"] = {"max_attempts": 2}
        if i > 1 and r.random() < 0.2:
            node["defer"] = True
            deferred.add(nm)
        nodes.append(node)
    for i in range(n - 1):
        tgt = r.randint(i + 1, n - 1)
        k = r.random()
        if k < 0.5:
            edges.append([names[i], names[tgt]])
        elif k < 0.7:
            others = names[i + 1:]
            a, b = (r.sample(others, 2) if len(others) >= 2 else (others[0], others[0]))
            branches.append({"from": names[i], "route": f"len(state.log) % 2 == 0 ? '{a}' : ['{a}', '{b}']", "ends": sorted({a, b})})
        elif k < 0.85:
            send_targets.add(names[tgt])
            branches.append({"from": names[i], "route": f"[send('{names[tgt]}', {{log: ['s1']}}), send('{names[tgt]}', {{log: ['s2']}})]", "ends": [names[tgt]]})
        else:
            edges.append([names[i], names[tgt]])
            if i + 1 < tgt:
                edges.append([names[i], names[i + 1]])
    if n >= 4 and r.random() < 0.5:
        edges.append([[names[1], names[2]], names[-1]])
    if r.random() < 0.35:
        branches.append({"from": names[-1], "route": f"len(state.log) < 9 ? '{names[1]}' : '__end__'", "ends": [names[1], "__end__"]})
    connect_unreached(names, nodes, edges, branches)
    for node in nodes:
        if node["name"] in send_targets:
            node.pop("fail", None); node.pop("retry", None)
            if "interrupt" in node:
                node.pop("interrupt"); node["update"]["log"] = f"['{node['name']}']"
    sc = {"name": f"fz2_{seed}", "description": "generated (gen2)",
          "state": {"log": "add", "n": "sum", "msgs": "add_messages", "v": None},
          "nodes": nodes, "edges": edges, "branches": branches, "ops": []}
    ops = sc["ops"]
    inv = {"op": "invoke", "input": {"log": [], "msgs": [{"id": "m0", "role": "user", "content": "hi"}]}}
    if r.random() < 0.3:
        inv["max_concurrency"] = 2
    if r.random() < 0.3:
        inv["recursion_limit"] = r.randint(3, 8)
    ops.append(inv)
    ops.append({"op": "get_state"})
    ops.append({"op": "resume", "value": "ok"} if has_interrupt else {"op": "invoke", "input": None})
    ops.append({"op": "invoke", "input": None})
    if r.random() < 0.6:
        st = r.randint(0, 3)
        ops.append({"op": "update_state", "at": {"step": st}, "values": {"log": ["upd"], "n": 100}, "as_node": r.choice(names)})
        ops.append({"op": "invoke", "input": None, "from": "fork"})
        if has_interrupt:
            ops.append({"op": "resume", "value": "again"})
    if r.random() < 0.4:
        ops.append({"op": "invoke", "input": None, "at": {"step": r.randint(0, 2)}})
    ops.append({"op": "history"})
    return sc

write_scenarios(gen, "fz2")
