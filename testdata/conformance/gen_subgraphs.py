#!/usr/bin/env python3
"""Random scenarios with subgraphs: inner interrupts, failures, deferred
inner nodes, Command.PARENT, Sends to subgraph nodes, reducers.
python3 gen_subgraphs.py FIRST LAST OUTDIR; same use as gen_mixed.py"""
import random

from genlib import connect_unreached, write_scenarios

def subgraph(r, tag, allow_interrupt, allow_parent, parent_nodes):
    k = r.randint(2, 4)
    names = [f"{tag}{i}" for i in range(k)]
    nodes, edges, branches = [], [["__start__", names[0]]], []
    has_int = False
    for i, nm in enumerate(names):
        up = {"log": f"['{nm}']"}
        if r.random() < 0.3:
            up["msgs"] = f"msg('{r.choice(['m1','m2'])}', 'assistant', '{nm}')"
        node = {"name": nm, "update": up}
        if allow_interrupt and i > 0 and not has_int and r.random() < 0.4:
            node["interrupt"] = f"'{nm}?'"
            up["log"] = f"['{nm}:' + str(resume)]"
            has_int = True
        if i > 0 and r.random() < 0.15:
            node["fail"] = {"times": 1, "message": "x", "after_ms": 60 * (i + 1)}
            if r.random() < 0.5:
                node["retry"] = {"max_attempts": 2}
        if i == k - 1 and i > 1 and r.random() < 0.3:
            node["defer"] = True
        nodes.append(node)
    for i in range(k - 1):
        if r.random() < 0.7:
            edges.append([names[i], names[i + 1]])
        else:
            t = r.randint(i + 1, k - 1)
            edges.append([names[i], names[t]])
            if t != i + 1:
                edges.append([names[0], names[i + 1]])
    reach = {e[1] for e in edges}
    for i in range(1, k):
        if names[i] not in reach:
            edges.append([names[i - 1], names[i]])
    if allow_parent and r.random() < 0.3:
        last = nodes[-1]
        last.pop("defer", None)
        last["parent"] = True
        last["goto"] = f"'{r.choice(parent_nodes)}'"
    return {"state": {"log": "add", "msgs": "add_messages"}, "nodes": nodes, "edges": edges, "branches": branches}, has_int

def gen(seed):
    r = random.Random(seed)
    n = r.randint(3, 5)
    names = [f"n{i}" for i in range(n)]
    subs = {}
    nodes, edges, branches = [], [["__start__", names[0]]], []
    any_int = False
    send_target = None
    for i, nm in enumerate(names):
        if i > 0 and r.random() < 0.45:
            sg, hi = subgraph(r, f"{nm}_", True, True, [x for x in names if x != nm])
            any_int = any_int or hi
            subs[f"g{i}"] = sg
            node = {"name": nm, "subgraph": f"g{i}"}
            gotos = [last["goto"].strip("'") for last in sg["nodes"] if last.get("parent")]
            if gotos:
                node["ends"] = gotos
        else:
            node = {"name": nm, "update": {"log": f"['{nm}']"}}
            if i > 0 and r.random() < 0.15:
                node["fail"] = {"times": 1, "message": "x", "after_ms": 50 + 70 * i}
            if i > 0 and r.random() < 0.15 and not any_int:
                node["interrupt"] = f"'{nm}?'"
                node["update"]["log"] = f"['{nm}:' + str(resume)]"
                any_int = True
        nodes.append(node)
    for i in range(n - 1):
        t = r.randint(i + 1, n - 1)
        k = r.random()
        if k < 0.6:
            edges.append([names[i], names[t]])
        elif k < 0.8 and send_target is None and "subgraph" in nodes[t]:
            send_target = names[t]
            branches.append({"from": names[i], "route": f"[send('{names[t]}', {{log: ['a']}}), send('{names[t]}', {{log: ['b']}})]", "ends": [names[t]]})
        else:
            edges.append([names[i], names[i + 1]])
    if send_target:
        for nd in nodes:
            if nd["name"] == send_target:
                g = subs[nd["subgraph"]]
                for inner in g["nodes"]:
                    inner.pop("fail", None); inner.pop("retry", None); inner.pop("parent", None); inner.pop("goto", None)
                nd.pop("ends", None)
    connect_unreached(names, nodes, edges, branches)
    sc = {"name": f"fz3_{seed}", "description": "generated (gen3)", "state": {"log": "add", "msgs": "add_messages"},
          "subgraphs": subs, "nodes": nodes, "edges": edges, "branches": branches, "ops": []}
    ops = sc["ops"]
    ops.append({"op": "invoke", "input": {"log": [], "msgs": []}})
    ops.append({"op": "get_state", "subgraphs": True})
    if any_int:
        ops.append({"op": "resume", "value": "A"})
        ops.append({"op": "get_state", "subgraphs": True})
    ops.append({"op": "invoke", "input": None})
    if any_int:
        ops.append({"op": "resume", "value": "B"})
    if r.random() < 0.4:
        ops.append({"op": "invoke", "input": None, "at": {"step": 1}})
    ops.append({"op": "history"})
    return sc

write_scenarios(gen, "fz3")
