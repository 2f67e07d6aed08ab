#!/usr/bin/env python3
"""Generates random scenario files for differential testing against the
LangGraph.js oracle: python3 gen_random.py FIRST_SEED LAST_SEED [FAIL_PROBABILITY].
It writes /tmp/fuzzsc/fuzz_SEED.json; run each through the oracle and
`superstep trace`, then compare.py. Cases worth keeping go to own/."""
import json, random, sys
FAILP = float(sys.argv[3]) if len(sys.argv) > 3 else 0.15
def gen(seed):
    r = random.Random(seed)
    n = r.randint(2, 6)
    names = [f"n{i}" for i in range(n)]
    nodes = []
    edges = [["__start__", names[0]]]
    branches = []
    has_interrupt = False
    for i, nm in enumerate(names):
        node = {"name": nm, "update": {"log": f"['{nm}']"}}
        if r.random() < 0.3:
            node["update"]["n"] = "state.n == null ? 1 : state.n + 1"
        if r.random() < 0.2 and not has_interrupt:
            node["interrupt"] = f"'{nm}?'"
            node["update"]["log"] = f"['{nm}:' + str(resume)]"
            has_interrupt = True
        if r.random() < FAILP:
            # A failing attempt works 40 ms per node index before it
            # raises: zero-time siblings finish first, and two failures
            # (or a failure and a retried attempt) never coincide, so the
            # outcome does not depend on how zero-time tasks are scheduled.
            node["fail"] = {"times": 1, "message": "x", "after_ms": 40 * (i + 1)}
            if r.random() < 0.5:
                node["retry"] = {"max_attempts": 2}
        nodes.append(node)
    # forward edges (DAG) plus optional guarded loop
    for i in range(n - 1):
        tgt = r.randint(i + 1, n - 1)
        kind = r.random()
        if kind < 0.55:
            edges.append([names[i], names[tgt]])
        elif kind < 0.75 and tgt + 1 < n and tgt != i + 1:
            edges.append([names[i], names[i + 1]])
            edges.append([[names[i + 1], names[tgt]], names[min(n - 1, tgt + 1)]] if False else [names[i], names[tgt]])
        elif kind < 0.9:
            others = [x for x in names[i + 1:]]
            a, b = r.sample(others, 2) if len(others) >= 2 else (others[0], others[0])
            branches.append({"from": names[i], "route": f"len(state.log) % 2 == 0 ? '{a}' : '{b}'", "ends": sorted(set([a, b]))})
        else:
            branches.append({"from": names[i], "route": f"[send('{names[tgt]}', {{x: 1}}), send('{names[tgt]}', {{x: 2}})]", "ends": [names[tgt]]})
    # a join into the last node sometimes
    if n >= 4 and r.random() < 0.5:
        edges.append([[names[1], names[2]], names[-1]])
    # a guarded loop back
    if r.random() < 0.4 and n >= 3:
        branches.append({"from": names[-1], "route": f"len(state.log) < 8 ? '{names[1]}' : '__end__'", "ends": [names[1], "__end__"]})
    # A Send target runs as several tasks in one superstep; which of them
    # takes its one scripted failure would depend on how zero-time tasks
    # are scheduled, so Send targets do not fail.
    for b in branches:
        if b["route"].startswith("[send("):
            for node in nodes:
                if node["name"] in b["ends"]:
                    node.pop("fail", None)
                    node.pop("retry", None)
    # reachability: every node must be a target
    targets = set()
    for e in edges: targets.add(e[1])
    for b in branches: targets.update(b["ends"])
    for nm in names[1:]:
        if nm not in targets:
            edges.append([names[0], nm])
    ops = [{"op": "invoke", "input": {"log": []}, "recursion_limit": 30}]
    if has_interrupt:
        ops.append({"op": "get_state"})
        ops.append({"op": "resume", "value": "A"})
        ops.append({"op": "resume", "value": "B"})
    ops.append({"op": "invoke", "input": None, "recursion_limit": 30})
    ops.append({"op": "get_state"})
    if r.random() < 0.5:
        ops.append({"op": "update_state", "at": {"step": 1}, "values": {"log": ["edit"]}, "as_node": names[0]})
        ops.append({"op": "invoke", "from": "fork", "input": None, "recursion_limit": 30})
    if r.random() < 0.4:
        ops.append({"op": "invoke", "at": {"step": 0}, "input": None, "recursion_limit": 30})
    ops.append({"op": "history"})
    return {"name": f"fuzz_{seed}", "state": {"log": "add", "n": None}, "nodes": nodes, "edges": edges, "branches": branches, "ops": ops}
import os
os.makedirs("/tmp/fuzzsc", exist_ok=True)
for s in range(int(sys.argv[1]), int(sys.argv[2])):
    json.dump(gen(s), open(f"/tmp/fuzzsc/fuzz_{s}.json", "w"), indent=1)
