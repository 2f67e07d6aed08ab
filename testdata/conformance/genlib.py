"""Shared pieces of the scenario generators (gen_*.py)."""


def connect_unreached(names, nodes, edges, branches):
    """Adds an edge from the previous node to each node (after the first)
    that no edge, route or node `ends` list reaches: LangGraph refuses to
    compile a graph with an unreachable node."""
    reach = {e[1] for e in edges} | {t for b in branches for t in b["ends"]}
    for nd in nodes:
        reach |= set(nd.get("ends", []))
    for i in range(1, len(names)):
        if names[i] not in reach:
            edges.append([names[i - 1], names[i]])


def write_scenarios(gen, prefix):
    """The generators' command line: FIRST LAST OUTDIR writes gen(seed) for
    each seed from FIRST up to LAST (excluded) as OUTDIR/PREFIX_SEED.json."""
    import json, sys
    out = sys.argv[3]
    for s in range(int(sys.argv[1]), int(sys.argv[2])):
        with open(f"{out}/{prefix}_{s}.json", "w") as f:
            json.dump(gen(s), f, indent=1)
