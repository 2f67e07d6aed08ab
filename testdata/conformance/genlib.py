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
