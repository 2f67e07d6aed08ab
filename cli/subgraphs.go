package cli

import (
	"context"
	"strings"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// A thread can hold checkpoints in subgraph namespaces only: its own were
// never written (a program that checkpoints only a subgraph) or were lost.
// threads lists it, export writes it, and show and history, which display
// a thread's own checkpoints unless --ns names a namespace, say where its
// checkpoints are instead of calling it missing.

// subgraphNamespaces returns the namespaces of thread's checkpoints, in
// order, or none.
func subgraphNamespaces(ctx context.Context, st Store, thread string) []string {
	all := engine.ListOptions{AllNamespaces: true}
	var list []*engine.CheckpointTuple
	var err error
	if o, ok := st.(outliner); ok {
		list, err = o.Outline(ctx, engine.Config{ThreadID: thread}, all, nil) // no values
	} else {
		list, err = st.List(ctx, engine.Config{ThreadID: thread}, all)
	}
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range list {
		if ns := t.Config.CheckpointNS; !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	return out
}

// hasCheckpoints reports whether thread has a checkpoint in any namespace.
func hasCheckpoints(ctx context.Context, st Store, thread string) bool {
	list, err := st.List(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{AllNamespaces: true, Limit: 1})
	return err == nil && len(list) > 0
}

// threadNotFound is the error for a thread without checkpoints of its own:
// not found, or found with subgraph checkpoints only.
func threadNotFound(ctx context.Context, st Store, thread string) error {
	nss := subgraphNamespaces(ctx, st, thread)
	if len(nss) == 0 {
		return withCloseThreads(ctx, st, thread, usagef("%w: %q (%s lists them)", ErrThreadNotFound, thread, hintLine(ctx, "threads")))
	}
	names := make([]string, len(nss))
	for i, ns := range nss {
		names[i] = shellWord(ns)
	}
	return usagef("%w: thread %s has checkpoints only in subgraph namespaces (%s): %s",
		ErrSubgraphsOnly, termtext.Name(thread), strings.Join(names, ", "), subgraphsOnlyHint(ctx, thread))
}

// subgraphsOnlyHint says how to read a thread whose checkpoints are all in
// subgraph namespaces, on the database the user named.
func subgraphsOnlyHint(ctx context.Context, thread string) string {
	return "show and history read one with --ns NS; " + hintLine(ctx, "export", shellWord(thread)) + " writes them all"
}
