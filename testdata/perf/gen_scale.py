#!/usr/bin/env python3
"""Generates the scaling workloads of issue 7 as scenario files.

    python3 gen_scale.py     # writes pingpong_2000.json and pingpong_2000_idle5000.json

pingpong_2000            ping -> pong -> ping ... for 2000 supersteps
pingpong_2000_idle5000   the same loop beside 5000 nodes that never run
                         (reachable through pong's route, which has no ends)

A superstep's cost must not depend on the idle nodes: the second must run
within 1.5x of the first.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def pingpong(steps=2000, idle=0):
    rounds = steps // 2
    nodes = [
        {"name": "ping", "update": {"n": "state.n + 1"}},
        {"name": "pong", "update": {"m": "state.n"}},
    ]
    nodes += [{"name": f"idle{i}", "update": {"m": "-1"}} for i in range(idle)]
    edges = [["__start__", "ping"], ["ping", "pong"]] + [[f"idle{i}", "__end__"] for i in range(idle)]
    branch = {"from": "pong", "route": f"state.n < {rounds} ? 'ping' : '__end__'"}
    if idle == 0:
        branch["ends"] = ["ping", "__end__"]
    name = f"pingpong_{steps}" + (f"_idle{idle}" if idle else "")
    return name, {
        "name": name,
        "description": f"ping/pong loop of {steps} supersteps beside {idle} idle nodes",
        "perf": {"supersteps": steps + 1, "tasks": steps},
        "state": {"n": None, "m": None},
        "nodes": nodes,
        "edges": edges,
        "branches": [branch],
        "ops": [{"op": "invoke", "thread": "t1", "input": {"n": 0}, "recursion_limit": steps + 10}],
    }


for args in [(2000, 0), (2000, 5000)]:
    name, doc = pingpong(*args)
    with open(os.path.join(HERE, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
