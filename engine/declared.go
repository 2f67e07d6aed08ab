package engine

import "context"

// runsSubgraphs reports whether n's tasks run subgraphs: a subgraph node,
// or a node whose function runs declared ones (UsesSubgraph).
func (n *node) runsSubgraphs() bool { return n.subgraph != nil || len(n.uses) > 0 }

// declaredName is the name n declared sub under, or "".
func (n *node) declaredName(sub *Graph) string {
	for _, u := range n.uses {
		if u.g == sub {
			return u.name
		}
	}
	return ""
}

// subgraphIn finds which of n's subgraphs ran in ns, a namespace of one of
// n's tasks (with its run counter, "<ns>|1", for a later run in the task),
// and that graph's latest checkpoint there; t is nil when none is stored.
// A subgraph node runs its one graph. Of the declared subgraphs it is the
// one whose name the checkpoint records (MetaSubgraph): the namespace only
// says which run it was.
func (n *node) subgraphIn(ctx context.Context, saver Saver, thread, ns string) (sub *Graph, t *CheckpointTuple, err error) {
	if n.subgraph != nil {
		t, err = saver.GetTuple(ctx, Config{ThreadID: thread, CheckpointNS: n.subgraph.ownNamespace(ns)})
		return n.subgraph, t, err
	}
	// A stateful subgraph keeps its checkpoints in the namespace without
	// task ids, so there are at most two places to look.
	read := map[string]*CheckpointTuple{}
	for _, u := range n.uses {
		own := u.g.ownNamespace(ns)
		t, ok := read[own]
		if !ok {
			if t, err = saver.GetTuple(ctx, Config{ThreadID: thread, CheckpointNS: own}); err != nil {
				return nil, nil, err
			}
			read[own] = t
		}
		if t != nil && t.Metadata.Extra[MetaSubgraph] == u.name {
			return u.g, t, nil
		}
	}
	return nil, nil, nil
}

// savedIn reports whether ns of thread holds a checkpoint where n's
// declared subgraphs keep theirs (either namespace form), whichever graph
// wrote it.
func (n *node) savedIn(ctx context.Context, saver Saver, thread, ns string) (bool, error) {
	for _, u := range n.uses {
		t, err := saver.GetTuple(ctx, Config{ThreadID: thread, CheckpointNS: u.g.ownNamespace(ns)})
		if err != nil || t != nil {
			return t != nil, err
		}
	}
	return false, nil
}

// declaredMark is the part of a subgraph checkpoint's metadata that a
// checkpoint written beside it in its namespace (an update, a copy) keeps:
// the declared subgraph that ran there.
func declaredMark(md Metadata) map[string]any {
	if name, ok := md.Extra[MetaSubgraph]; ok {
		return map[string]any{MetaSubgraph: name}
	}
	return nil
}

// SubgraphAt returns the graph whose checkpoints live in cfg's namespace (a
// subgraph node's task, or a run of a subgraph a node declared with
// UsesSubgraph, as SnapshotTask.Subgraph, SubgraphRun.Namespace and
// Event.Namespace give it) and the namespace they are stored under: a
// stateful subgraph keeps one without task ids. Reading the checkpoints
// there with that graph (SnapshotOf) shows them as GetState does. An
// unknown node is ErrUnknownSubgraph; where nothing has run yet it is the
// first subgraph the node declared (as LangGraph finds a node's subgraph),
// and where only a subgraph it did not declare ran, ErrNoCheckpoint.
func (g *Graph) SubgraphAt(ctx context.Context, cfg Config) (*Graph, string, error) {
	owner, err := g.graphForNamespace(ctx, cfg.ThreadID, cfg.CheckpointNS)
	if err != nil {
		return nil, "", err
	}
	return owner, owner.ownNamespace(cfg.CheckpointNS), nil
}
