#!/usr/bin/env python3
"""Random scenarios for the combinations the other generators leave out:
static breakpoints (interrupt_before/after, "*", a subgraph's own) beside
Sends, Command goto Sends and subgraph nodes; Command goto Sends from inside
a subgraph (to inner nodes, and to the parent with Command.PARENT); several
interrupts pending at once answered by_node one at a time; update_state
with every as_node form (a node, none, __start__, __input__, a subgraph
namespace) on forked and replayed threads; recursion limits on continued,
resumed, forked and replayed runs; add_messages removals carried by Sends;
retries and failures beside interrupts, with history after the failure;
`at` replays of steps that saved pending writes (interrupted, failed).
Timing is explicit: nodes that can run in one superstep work different
times (60 ms apart), a failure comes 25 ms past a multiple of 60 ms, so
that no attempt of a retried one ends when a sleep does (multiples of 30
ms), and Send tasks of one node carry no interrupt, failure or stream.
python3 gen_ops.py FIRST LAST OUTDIR, then python3 prune_ops.py
SUPERSTEP_BINARY OUTDIR/*.json (the random op script
may address steps or pending interrupts a run did not leave), then as
gen_mixed.py"""
import random

from genlib import connect_unreached, write_scenarios

STATE = {"log": "add", "n": "sum", "msgs": "add_messages", "v": None}


def msgs_update(r, nm):
    k = r.random()
    if k < 0.15:
        return f"removeMsg('{r.choice(['m0', 'm1'])}')"
    if k < 0.45:
        return f"msg('{r.choice(['m0', 'm1', 'm2'])}', 'assistant', '{nm}')"
    return None


def subgraph(r, tag, base_ms, parent_targets, quiet):
    """quiet: the subgraph is a Send target (its runs work the same time)."""
    k = r.randint(2, 4)
    names = [f"{tag}{i}" for i in range(k)]
    nodes, edges, branches = [], [["__start__", names[0]]], []
    has_int = False
    for i, nm in enumerate(names):
        node = {"name": nm, "update": {"log": f"['{nm}']"}, "sleep_ms": base_ms + 30 * i}
        if r.random() < 0.25:
            node["update"]["n"] = "1"
        if not quiet and i > 0 and not has_int and r.random() < 0.4:
            node["interrupt"] = f"'{nm}?'"
            node["update"]["log"] = f"['{nm}:' + str(resume)]"
            has_int = True
        nodes.append(node)
    for i in range(k - 1):
        edges.append([names[i], names[i + 1]])
    edges.append([names[-1], "__end__"])
    goto_send = False
    if k >= 3 and r.random() < 0.4:
        # an inner Command goto with Sends to a later inner node
        src, dst = nodes[0], names[-1]
        src["goto"] = f"[send('{dst}', {{log: ['{src['name']}>a']}}), send('{dst}', {{log: ['{src['name']}>b']}})]"
        src["ends"] = [dst]
        goto_send = True
        # the Send tasks of one node work the same time: keep them quiet
        last = nodes[-1]
        if "interrupt" in last:
            last.pop("interrupt"); last["update"]["log"] = f"['{last['name']}']"
            has_int = any("interrupt" in nd for nd in nodes)
    parent_goto = None
    if not quiet and parent_targets and r.random() < 0.35:
        last = nodes[-1]
        last.pop("interrupt", None)
        has_int = any("interrupt" in nd for nd in nodes)
        last["parent"] = True
        parent_goto = r.choice(parent_targets)
        if r.random() < 0.5:
            last["goto"] = f"send('{parent_goto}', {{log: ['{last['name']}^s']}})"
        else:
            last["goto"] = f"'{parent_goto}'"
        last["update"] = {"log": f"['{last['name']}^']", "n": "10"}
        edges.pop()
    sg = {"state": {"log": "add", "n": "sum"}, "nodes": nodes, "edges": edges, "branches": branches}
    if r.random() < 0.3:
        inner = [nd["name"] for nd in nodes[1:] if not nd.get("parent")]
        if inner:
            sg[r.choice(["interrupt_before", "interrupt_after"])] = [r.choice(inner)]
            has_int = True
    return sg, has_int, parent_goto, names, goto_send


def gen(seed):
    r = random.Random(seed)
    n = r.randint(4, 6)
    names = [f"n{i}" for i in range(n)]
    nodes, edges, branches, subs = [], [["__start__", names[0]]], [], {}
    interrupters, sub_nodes, send_targets = [], [], set()
    # one subgraph node at most: sibling subgraphs' inner timings add up
    # to orders closer than LangGraph.js's start-up cost of a subgraph, and
    # two runs of one subgraph at once write in an unspecified order (the
    # other generators cover both)
    is_sub = [False] * n
    if r.random() < 0.5:
        is_sub[r.randint(1, n - 1)] = True
    for i, nm in enumerate(names):
        ms = 60 * i
        if is_sub[i]:
            targets = [x for x in names if x != nm and x != names[0]]
            sg, hi, pg, inner, _ = subgraph(r, f"{nm}_", ms, targets, False)
            subs[f"g{i}"] = sg
            node = {"name": nm, "subgraph": f"g{i}"}
            if pg:
                node["ends"] = [pg]
            if hi:
                interrupters.append(nm)
            sub_nodes.append((nm, inner))
        else:
            node = {"name": nm, "update": {"log": f"['{nm}']"}}
            if ms:
                node["sleep_ms"] = ms
            if r.random() < 0.3:
                node["update"]["n"] = str(i + 1)
            mu = msgs_update(r, nm)
            if mu:
                node["update"]["msgs"] = mu
            if r.random() < 0.15:
                node["update"]["v"] = f"'{nm}'"
            if i > 0 and len(interrupters) < 3 and r.random() < 0.35:
                node["interrupt"] = f"'{nm}?'"
                node["update"]["log"] = f"['{nm}:' + str(resume)]"
                interrupters.append(nm)
            if i > 0 and r.random() < 0.25:
                node["fail"] = {"times": r.choice([1, 1, 2]), "message": "x", "after_ms": 25 + 60 * i}
                if any(is_sub) or r.random() < 0.6:
                    # a failure that ends the superstep beside a running
                    # subgraph leaves that subgraph running on in
                    # LangGraph.js (unspecified; conf21): retried enough
                    node["retry"] = {"max_attempts": node["fail"]["times"] + (1 if any(is_sub) else r.choice([0, 1]))}
        nodes.append(node)
    for i in range(n - 1):
        tgt = r.randint(i + 1, n - 1)
        k = r.random()
        if k < 0.35:
            edges.append([names[i], names[tgt]])
        elif k < 0.5 and i + 2 < n:
            # fan out to two later nodes (several interrupts pending at once)
            a, b = r.sample(names[i + 1:], 2)
            edges.append([names[i], a]); edges.append([names[i], b])
        elif k < 0.7 and not is_sub[tgt]:
            send_targets.add(names[tgt])
            rm = r.random() < 0.5
            arg1 = f"{{log: ['s1'], rm: 'm0'}}" if rm else "{log: ['s1']}"
            # one Send to a subgraph node: two runs of one subgraph at
            # the same time write their checkpoints in an unspecified order
            second = "" if is_sub[tgt] else f", send('{names[tgt]}', {{log: ['s2']}})"
            branches.append({"from": names[i], "route": f"[send('{names[tgt]}', {arg1}){second}]",
                             "ends": [names[tgt]]})
        elif k < 0.85 and "subgraph" not in nodes[i] and not is_sub[tgt]:
            # a Command goto with Sends (and a plain name)
            send_targets.add(names[tgt])
            nd = nodes[i]
            extra = f", '{names[i + 1]}'" if i + 1 != tgt and r.random() < 0.5 else ""
            second = "" if is_sub[tgt] else f", send('{names[tgt]}', {{log: ['g2']}})"
            nd["goto"] = f"[send('{names[tgt]}', {{log: ['g1'], rm: 'm1'}}){second}{extra}]"
            nd["ends"] = sorted({names[tgt]} | ({names[i + 1]} if extra else set()))
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
            nd.pop("fail", None); nd.pop("retry", None)
            if "interrupt" in nd:
                nd.pop("interrupt"); nd["update"]["log"] = f"['{nd['name']}']"
                interrupters.remove(nd["name"])
            if "subgraph" not in nd and not any(b["from"] == nd["name"] for b in branches):
                # a Send may carry a message id to remove (not beside a
                # route: a route's read applies the removal and may fail
                # the task, and its Send siblings end at the same time,
                # finished or cancelled in an unspecified order)
                nd["update"]["msgs"] = "len(state.rm) > 0 ? removeMsg(state.rm) : msg('mx', 'assistant', 'x')"
            elif "subgraph" not in nd:
                nd["update"]["msgs"] = "msg('mx', 'assistant', 'x')"
            else:
                sg, _, _, inner, _ = subgraph(r, f"{nd['name']}_", 0, [], True)
                subs[nd["subgraph"]] = sg
                nd.pop("ends", None)
                if nd["name"] in interrupters:
                    interrupters.remove(nd["name"])
                sub_nodes[:] = [(a, b) for a, b in sub_nodes if a != nd["name"]]
    sc = {"name": f"fz6_{seed}", "description": "generated (gen_ops)", "state": dict(STATE),
          "nodes": nodes, "edges": edges, "branches": branches, "ops": []}
    if subs:
        sc["subgraphs"] = subs
    bp = r.random()
    if bp < 0.15:
        sc[r.choice(["interrupt_before", "interrupt_after"])] = "*"
    elif bp < 0.6:
        sc[r.choice(["interrupt_before", "interrupt_after"])] = sorted(r.sample(names[1:], r.randint(1, 2)))
        if r.random() < 0.3:
            other = "interrupt_after" if "interrupt_before" in sc else "interrupt_before"
            sc[other] = [r.choice(names[1:])]
    ops = sc["ops"]

    def lim(op):
        if r.random() < 0.35:
            op["recursion_limit"] = r.randint(2, 6)
        elif subs:
            # a subgraph node returns its whole state, appended to the
            # parent's lists: in a loop they double each turn, so every
            # run is bounded (gen_combo's rule)
            op["recursion_limit"] = r.randint(8, 12)
        # streams where their order is specified (gen_combo's rules): one
        # interrupter at most, no tasks mode beside Send tasks, subgraph
        # chunks only without root interrupters
        # (the Send tasks of one node end together: no streams beside them)
        if len(interrupters) < 2 and not send_targets and r.random() < 0.5:
            modes = ["values", "updates", "tasks"]
            op["stream"] = r.sample(modes, r.randint(1, len(modes)))
            if subs and not any("interrupt" in nd for nd in nodes) and r.random() < 0.5:
                op["stream_subgraphs"] = True
        return op

    ops.append(lim({"op": "invoke", "input": {"log": [], "msgs": [{"id": "m0", "role": "user", "content": "hi"},
                                                                 {"id": "m1", "role": "user", "content": "yo"}]}}))
    ops.append({"op": "get_state", "subgraphs": True})
    answers = 0
    for _ in range(r.randint(4, 8)):
        k = r.random()
        if k < 0.3 and len(interrupters) >= 2:
            who = r.choice(interrupters)
            answers += 1
            ops.append(lim({"op": "resume", "by_node": {who: f"b{answers}"}}))
            ops.append({"op": "get_state", "subgraphs": True})
        elif k < 0.45 and interrupters:
            answers += 1
            ops.append(lim({"op": "resume", "value": f"r{answers}"}))
        elif k < 0.6:
            ops.append(lim({"op": "invoke", "input": None}))
        elif k < 0.75:
            u = {"op": "update_state", "values": r.choice([
                {"log": ["upd"], "n": 100},
                {"log": ["upd"], "msgs": [{"id": "m0", "role": "user", "content": "edited"}]},
                {"msgs": [{"remove": "m1"}], "v": "u"},
                None])}
            if r.random() < 0.6:
                u["at"] = {"step": r.randint(-1, 3)}
            a = r.random()
            if a < 0.55:
                u["as_node"] = r.choice(names)
            elif a < 0.7:
                u["as_node"] = "__start__"
            elif a < 0.8:
                u["as_node"] = "__input__"
            if u["values"] is None:
                u.pop("values")
            if sub_nodes and r.random() < 0.15:
                sn, inner = r.choice(sub_nodes)
                u = {"op": "update_state", "subgraph": sn, "values": {"log": ["su"], "n": 5}, "as_node": r.choice(inner)}
            ops.append(u)
            ops.append(lim({"op": "invoke", "input": None, "from": "fork"}))
        elif k < 0.88:
            ops.append(lim({"op": "invoke", "input": None, "at": {"step": r.randint(0, 4)}}))
            ops.append({"op": "get_state", "subgraphs": True})
        else:
            ops.append({"op": "history"})
    if sub_nodes and r.random() < 0.5:
        ops.append({"op": "history", "subgraph": r.choice(sub_nodes)[0]})
    ops.append({"op": "history"})
    return sc


write_scenarios(gen, "fz6")
