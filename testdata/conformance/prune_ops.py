#!/usr/bin/env python3
"""Makes generated scenarios' ops valid for the runners: an op the harness
refuses (a step with no checkpoint, no fork to continue, by_node with a
node that has not exactly one pending interrupt, a subgraph with no pending
task) is recorded by `superstep trace` as the error kind Error:Error; the
oracle stops there instead. Each such op is dropped (a by_node resume
becomes a plain one, unless --drop-by-node: gen_func.py's files, where a
plain value could answer two interrupts) and the file is traced again,
until none is left.
python3 prune_ops.py [--drop-by-node] SUPERSTEP_BINARY FILE...  (gen_ops.py's files)"""
import json, subprocess, sys

args = sys.argv[1:]
drop_by_node = args[:1] == ["--drop-by-node"]
if drop_by_node:
    args = args[1:]
binary = args[0]
for path in args[1:]:
    for _ in range(8):
        sc = json.load(open(path))
        out = subprocess.run([binary, "trace", path], capture_output=True, text=True, timeout=300)
        try:
            trace = json.loads(out.stdout)
        except ValueError:
            print(f"{path}: no trace: {out.stderr.strip()[:200]}")
            break
        refused = None
        for rec in trace["ops"]:
            res = rec.get("result") or {}
            op = sc["ops"][rec["op"]]
            harness = op.get("at") or op.get("from") or op.get("by_node") or op.get("subgraph") or op.get("before")
            if res.get("status") == "error" and res.get("error") == "Error:Error" and harness:
                refused = rec["op"]
                break
        if refused is None:
            break
        op = sc["ops"][refused]
        if op.get("by_node") and not drop_by_node:
            op["value"] = list(op.pop("by_node").values())[0]
        else:
            del sc["ops"][refused]
        json.dump(sc, open(path, "w"), indent=1)
