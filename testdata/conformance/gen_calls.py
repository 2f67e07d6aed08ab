#!/usr/bin/env python3
"""Random scenarios with graph nodes that make task calls, which no other
generator draws: a node calls its own task (which works, fails with or
without retries, or asks with an interrupt), may catch the call's failure
(`catch`), and may have a retry policy of its own; the first node runs
alone, the others together in one superstep; then the thread is
continued (input null) and resumed. Timing is explicit and free of ties:
a task works 10 + 40i ms and fails after 25 + 40i, so its attempts end at
multiples of 5 ms, and a node sleeps 100i + 37 ms after its call (117 more
when it catches, so that the abort of its superstep finds it working), so
it ends at a time that is not one.
python3 gen_calls.py FIRST LAST OUTDIR; same use as gen_mixed.py"""
import random

from genlib import write_scenarios


def gen(seed):
    r = random.Random(seed)
    n = r.randint(2, 4)
    tasks, nodes = {}, []
    for i in range(n):
        tn = f"t{i}"
        t = {"result": f"'{tn}:' + str(state)", "sleep_ms": 10 + 40 * i}
        k = r.random()
        if k < 0.4:
            times = r.choice([1, 2])
            t["fail"] = {"times": times, "message": "x", "after_ms": 25 + 40 * i}
            if r.random() < 0.5:
                t["retry"] = {"max_attempts": times + r.choice([0, 1])}
        elif k < 0.6:
            t["interrupt"] = f"'{tn}?'"
            t["result"] = f"'{tn}:' + str(resume)"
        tasks[tn] = t
        nm = f"n{i}"
        node = {"name": nm, "update": {"log": f"['{nm}']"}, "sleep_ms": 100 * i + 37}
        if r.random() < 0.6:
            call = {"task": tn, "arg": str(i)}
            if "fail" in t and r.random() < 0.5:
                call["catch"] = "'caught'"
                node["sleep_ms"] += 117
            node["calls"] = [call]
            node["update"]["log"] = f"['{nm}:' + str(results[0])]"
        if r.random() < 0.3:
            node["retry"] = {"max_attempts": 2}
        nodes.append(node)
    called = {c["task"] for nd in nodes for c in nd.get("calls", [])}
    tasks = {tn: t for tn, t in tasks.items() if tn in called}
    names = [nd["name"] for nd in nodes]
    edges = [["__start__", names[0]]]
    for nm in names[1:]:
        edges += [[names[0], nm], [nm, "__end__"]]
    sc = {"name": f"fzc_{seed}", "description": "generated (gen_calls)",
          "state": {"log": "add"}, "tasks": tasks, "nodes": nodes, "edges": edges, "ops": []}
    ops = sc["ops"]
    ops += [{"op": "invoke", "input": {"log": []}}, {"op": "get_state"}]
    for j in range(r.randint(1, 3)):
        ops.append(r.choice([{"op": "invoke", "input": None}, {"op": "resume", "value": f"r{j}"}]))
        ops.append({"op": "get_state"})
    ops.append({"op": "history"})
    return sc


write_scenarios(gen, "fzc")
