#!/usr/bin/env python3
"""Random scenarios with task calls made inside a subgraph, which no other
generator draws (gen_calls.py's callers are root nodes, gen_func.py's an
entrypoint): the inner nodes of a subgraph node call tasks that work, fail
(with and without retries, caught or not) or ask (interrupt), the inner
nodes may ask themselves, fail and retry, and the root node that runs the
subgraph may retry it whole; a root sibling works beside it; runs are
continued (input null), resumed with plain values and with a Command that
carries an update beside the answer, and inspected through get_state
(subgraphs), the subgraph's history and streams with the subgraph's chunks.
Timing is explicit and free of ties: the inner nodes run one after the
other; task i works 30 + 40i ms and fails after 45 + 40i, an inner node
sleeps 100j + 37 ms after its call (117 more when it catches, so that a
failure's abort finds it working) or fails 100j + 61 ms after its call;
the root sibling works 15 ms, halfway between the subgraph's start and
the first event it can have after that (a call ends at 30 ms), and no
failure aborts it (LangGraph.js lets a subgraph that a sibling's failure
aborted run on: its runner keeps only the run's and the timeout's abort
signals, 1.7.3 dist pregel/runner.js:97-101, so what it does after the
failed call returns lands in whatever op comes next).
One asker at most (a task that asks, or an inner node that does), whose
caller neither fails nor retries, so that a plain resume value answers
exactly one question (docs/scenario-format.md).
python3 gen_subcalls.py FIRST LAST OUTDIR, then python3 prune_ops.py
SUPERSTEP_BINARY OUTDIR/*.json, then as gen_mixed.py"""
import random

from genlib import write_scenarios


def gen(seed):
    r = random.Random(seed)
    k = r.randint(2, 3)
    tasks, inner = {}, []
    asker = r.randrange(k + 1) if r.random() < 0.7 else None  # k: none
    for j in range(k):
        nm = f"s{j}"
        node = {"name": nm, "update": {"log": f"['{nm}']"}, "sleep_ms": 100 * j + 37}
        asks = asker == j
        if r.random() < 0.7 or asks:
            tn = f"t{j}"
            t = {"result": f"'{tn}:' + str(state)", "sleep_ms": 30 + 40 * j}
            kind = "ask" if asks and r.random() < 0.6 else r.choice(["work", "fail"])
            if kind == "ask":
                t["interrupt"] = f"'{tn}?'"
                t["result"] = f"'{tn}:' + str(resume)"
            elif kind == "fail":
                times = r.choice([1, 2])
                t["fail"] = {"times": times, "message": "x", "after_ms": 45 + 40 * j}
                if r.random() < 0.5:
                    t["retry"] = {"max_attempts": times + r.choice([0, 1])}
            tasks[tn] = t
            call = {"task": tn, "arg": str(j)}
            if kind == "fail" and r.random() < 0.5:
                call["catch"] = "'caught'"
                node["sleep_ms"] += 117
            node["calls"] = [call]
            node["update"]["log"] = f"['{nm}:' + str(results[0])]"
            if kind == "ask":
                asks = False  # the call asked; the node itself does not
        if asks:
            node["interrupt"] = f"'{nm}?'"
            node["update"]["log"] = f"['{nm}:' + str(resume)]"
        caller_asks = asker == j
        if not caller_asks and r.random() < 0.2:
            node["fail"] = {"times": 1, "message": "x", "after_ms": 100 * j + 61}
            if r.random() < 0.5:
                node["retry"] = {"max_attempts": 2}
        inner.append(node)
    names = [nd["name"] for nd in inner]
    edges = [["__start__", names[0]]] + [[a, b] for a, b in zip(names, names[1:])] + [[names[-1], "__end__"]]
    sub = {"name": "sub", "subgraph": "g"}
    if asker is None and r.random() < 0.4:
        sub["retry"] = {"max_attempts": 2}
    nodes = [{"name": "n0", "update": {"log": "['n0']"}}, sub,
             {"name": "p", "update": {"log": "['p']"}, "sleep_ms": 15},
             {"name": "n2", "update": {"log": "['n2']"}}]
    sc = {"name": f"fzs_{seed}", "description": "generated (gen_subcalls)",
          "state": {"log": "add"}, "tasks": tasks, "nodes": nodes,
          "edges": [["__start__", "n0"], ["n0", "sub"], ["n0", "p"], ["sub", "n2"], ["p", "n2"]],
          "subgraphs": {"g": {"state": {"log": "add"}, "nodes": inner, "edges": edges}},
          "ops": []}

    def run(op):
        if r.random() < 0.4:
            op["stream"] = r.sample(["values", "updates"], r.randint(1, 2))
            if r.random() < 0.6:
                op["stream_subgraphs"] = True
        return op

    ops = sc["ops"]
    ops += [run({"op": "invoke", "input": {"log": []}}), {"op": "get_state", "subgraphs": True}]
    for j in range(r.randint(1, 3)):
        c = r.random()
        if c < 0.35:
            ops.append(run({"op": "invoke", "input": None}))
        elif c < 0.75 or asker is None:
            ops.append(run({"op": "resume", "value": f"r{j}"}))
        else:
            ops.append(run({"op": "invoke", "command": {"update": {"log": [f"c{j}"]}, "resume": f"r{j}"}}))
        ops.append({"op": "get_state", "subgraphs": True})
    ops.append({"op": "history", "subgraph": "sub"} if r.random() < 0.5 else {"op": "history"})
    return sc


write_scenarios(gen, "fzs")
