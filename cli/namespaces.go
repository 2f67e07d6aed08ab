package cli

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// A subgraph keeps its checkpoints in its own namespace of the thread
// (LangGraph's checkpoint_ns: "node:task-id", nested ones joined by "|",
// a retried run's "<ns>|1"). history, show, diff and update address one
// with --ns, as LangGraph's get_state_history, get_state and update_state
// do with a subgraph's config; show lists the namespaces a checkpoint's
// tasks ran subgraphs in, with the flag to use.

// addNSFlag registers --ns on cmd.
func addNSFlag(cmd *cobra.Command, ns *string, prog string) {
	cmd.Flags().StringVar(ns, "ns", "", "a subgraph's checkpoint namespace ("+prog+" show lists those of a checkpoint; default: the thread's own)")
}

// threadNS is the namespace a command reads: the one --ns names, where
// its checkpoints are stored (a stateful subgraph keeps one without task
// ids), and the graph they belong to (nil without a graph).
type threadNS struct {
	name, stored string
	graph        *engine.Graph
}

// cfg addresses the namespace's checkpoints of thread.
func (n threadNS) cfg(thread string) engine.Config {
	return engine.Config{ThreadID: thread, CheckpointNS: n.stored}
}

// resolveNS finds namespace ns of thread, read with gr (the thread's graph,
// nil when unknown), or the one a unique prefix names (completeNS). An
// unknown namespace is an input error that names it and lists the
// thread's. Only then, or for a prefix, are all of the thread's
// namespaces listed (every checkpoint's key).
func resolveNS(ctx context.Context, st Store, gr *engine.Graph, thread, ns string) (threadNS, error) {
	if ns == "" {
		return threadNS{graph: gr}, nil
	}
	n, found, err := lookupNS(ctx, st, gr, thread, ns)
	if found || err != nil {
		return n, err
	}
	known := subgraphNamespaces(ctx, st, thread)
	full, err := completeNS(known, thread, ns)
	if err != nil {
		return threadNS{}, err
	}
	if full != ns {
		if n, found, err = lookupNS(ctx, st, gr, thread, full); found || err != nil {
			return n, err
		}
	}
	return threadNS{}, unknownNS(ctx, known, thread, ns)
}

// lookupNS finds namespace ns of thread as given: found when it holds a
// checkpoint.
func lookupNS(ctx context.Context, st Store, gr *engine.Graph, thread, ns string) (n threadNS, found bool, err error) {
	n = threadNS{name: ns, stored: ns, graph: gr}
	if gr != nil {
		sub, stored, err := gr.SubgraphAt(ctx, engine.Config{ThreadID: thread, CheckpointNS: ns})
		switch {
		case errors.Is(err, engine.ErrNoCheckpoint):
			return n, false, nil
		case errors.Is(err, engine.ErrUnknownSubgraph):
			// The graph (changed since the thread ran, or another one)
			// has no subgraph there: the stored checkpoints are still
			// read, without planning, as with no graph at all.
			n.graph = nil
		case err != nil:
			return n, false, storeError(err, "reading namespace %q of thread %q", ns, thread)
		default:
			n.graph, n.stored = sub, stored
		}
	}
	cfg := n.cfg(thread)
	if o, ok := st.(outliner); ok {
		ids, err := o.CheckpointIDs(ctx, cfg, "", 1)
		if err != nil {
			return n, false, storeError(err, "reading namespace %q of thread %q", ns, thread)
		}
		return n, len(ids) > 0, nil
	}
	t, err := st.GetTuple(ctx, cfg)
	if err != nil {
		return n, false, storeError(err, "reading namespace %q of thread %q", ns, thread)
	}
	return n, t != nil, nil
}

// unknownNS is the error for a namespace thread has no checkpoints in;
// it lists the thread's (known), each as --ns takes it.
func unknownNS(ctx context.Context, known []string, thread, ns string) error {
	var subs []string
	for _, k := range slices.Sorted(slices.Values(known)) {
		if k != "" {
			subs = append(subs, shellWord(k))
		}
	}
	list := "it has none"
	if len(subs) > 0 {
		list = "its subgraph namespaces: " + strings.Join(subs, ", ")
	}
	return usagef("%w: --ns %s: thread %s has no checkpoints in that namespace; %s (%s lists a checkpoint's)",
		ErrUnknownNamespace, termtext.Name(ns), termtext.Name(thread), list, hintLine(ctx, "show", shellWord(thread)))
}

// checkpointSubgraphs are the namespaces where the subgraphs that the
// tasks planned at checkpoint t ran keep their checkpoints
// (engine.Graph.SubgraphNamespaces), one level down: show of one of them
// lists those nested in it. t is planned with gr, the graph of its
// namespace, and the namespaces found with root, the thread's; without a
// graph nothing is planned and none are listed.
func checkpointSubgraphs(ctx context.Context, root, gr *engine.Graph, t *engine.CheckpointTuple) []string {
	if root == nil || gr == nil {
		return nil
	}
	snap, err := gr.SnapshotOf(t, false)
	if err != nil {
		return nil
	}
	var out []string
	for _, task := range snap.Tasks {
		nss, err := root.SubgraphNamespaces(ctx, t.Config.ThreadID, task)
		if err != nil {
			continue // an unreadable one is not listed; --ns says why
		}
		for _, ns := range nss {
			if !slices.Contains(out, ns) {
				out = append(out, ns)
			}
		}
	}
	return out
}

// refuse says that err is about the subgraph --ns names, whose state keys
// and nodes are not the thread's graph's.
func (n threadNS) refuse(err error) error {
	if n.name == "" || err == nil {
		return err
	}
	return usagef("%w (in namespace %s: the subgraph's state keys and nodes)", err, termtext.Name(n.name))
}

// nsHint adds to err, a checkpoint reference ref not found in cfg's
// namespace of the thread, the namespace where ref is a checkpoint and the
// flag that reaches it. Only a failed lookup pays for the search.
func nsHint(ctx context.Context, st Store, cfg engine.Config, ref string, err error) error {
	if !errors.Is(err, engine.ErrNoCheckpoint) {
		return err
	}
	var ie *engine.IDError
	if ns := cfg.CheckpointNS; ns != "" && errors.As(err, &ie) {
		// The listing that has the namespace's ids is history's with --ns.
		err = usagef("%w on thread %q in namespace %s (%s lists them)", ie, cfg.ThreadID, termtext.Name(ns), hintLine(ctx, "history", shellWord(cfg.ThreadID), "--ns", shellWord(ns)))
	}
	o, ok := st.(outliner)
	if !ok {
		return err
	}
	for _, ns := range subgraphNamespaces(ctx, st, cfg.ThreadID) {
		if ns == cfg.CheckpointNS {
			continue
		}
		ids, lerr := o.CheckpointIDs(ctx, engine.Config{ThreadID: cfg.ThreadID, CheckpointNS: ns}, "", 0)
		if lerr != nil {
			continue
		}
		if _, rerr := engine.ResolveID(ids, ref); rerr != nil {
			continue
		}
		if ns == "" {
			return usagef("%w; it is a checkpoint of the thread's own: drop --ns", err)
		}
		return usagef("%w; it is a checkpoint of subgraph namespace %s: add --ns %s", err, termtext.Name(ns), shellWord(ns))
	}
	return err
}

// completeNS reads ns as one of thread's namespaces (known) or a unique
// prefix of one at its depth, as a checkpoint id may be given by a prefix:
// "sub" or "sub:e296" for "sub:e29680e8-…", not for its nested
// "sub:e29680e8-…|inner:…". Several matches are an input error listing
// them; none leaves ns as given (the caller says it is unknown).
func completeNS(known []string, thread, ns string) (string, error) {
	if slices.Contains(known, ns) {
		return ns, nil
	}
	var hits []string
	for _, k := range known {
		if rest, ok := strings.CutPrefix(k, ns); ok && !strings.Contains(rest, "|") {
			hits = append(hits, k)
		}
	}
	switch len(hits) {
	case 0:
		return ns, nil
	case 1:
		return hits[0], nil
	}
	for i, h := range hits {
		hits[i] = shellWord(h)
	}
	return "", usagef("%w: --ns %s: several namespaces of thread %s start so: %s; give more of one", ErrUnknownNamespace, termtext.Name(ns), termtext.Name(thread), strings.Join(hits, ", "))
}
