package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/superstep/superstep/engine"
)

// topologyChange is how a graph's topology differs from the one recorded
// with a thread, in engine.Graph.Topology lines.
type topologyChange struct {
	removed, added []string
	// newNodes are the nodes only the current graph has.
	newNodes []string
}

func compareTopology(recorded, current []string) topologyChange {
	var c topologyChange
	for _, l := range recorded {
		if !slices.Contains(current, l) {
			c.removed = append(c.removed, l)
		}
	}
	for _, l := range current {
		if slices.Contains(recorded, l) {
			continue
		}
		c.added = append(c.added, l)
		if rest, ok := strings.CutPrefix(l, "node "); ok {
			c.newNodes = append(c.newNodes, strings.SplitN(rest, " ", 2)[0])
		}
	}
	return c
}

// maxChangeLines is how many differing lines a message names; the rest
// are counted.
const maxChangeLines = 12

// String names the differing lines, removed (-) then added (+), at most
// maxChangeLines of them: a graph rewritten whole differs in scores of
// lines, which made a message of one line thousands of characters long
// (the command line prints an error on one line). superstep graph shows
// a graph's whole topology.
func (c topologyChange) String() string {
	var parts []string
	for _, l := range c.removed {
		parts = append(parts, "- "+l)
	}
	for _, l := range c.added {
		parts = append(parts, "+ "+l)
	}
	if n := len(parts) - maxChangeLines; n > 0 {
		parts = append(parts[:maxChangeLines], fmt.Sprintf("… and %d more", n))
	}
	return strings.Join(parts, "; ")
}

// incompatibility says why a recorded thread cannot go on with the current
// graph, or "" when it can. Additions are compatible — a new state key, a
// new node with its channels and edges — as long as no recorded task ran a
// node of the new graph's added names (used reports that): the recorded
// checkpoints then mean the same under both graphs. Anything removed or
// changed (a node's triggers, a channel's kind or reducer, an edge) would
// make the engine plan from channels and versions the graph does not have.
func (c topologyChange) incompatibility(used func(node string) bool) string {
	if len(c.removed) > 0 {
		return fmt.Sprintf("%d recorded lines (marked -) are gone or changed, and the recorded checkpoints would not mean the same", len(c.removed))
	}
	for _, n := range c.newNodes {
		if used(n) {
			return fmt.Sprintf("it adds node %s, but a recorded task ran a node of that name", n)
		}
	}
	return ""
}

// checkTopology compares g with the topology recorded for thread. A
// compatible change is allowed with a note; an incompatible one is refused
// naming the difference, unless force (then a warning). A thread recorded
// without a topology (a bare hash) can only be compared by its hash.
func checkTopology(ctx context.Context, st Store, thread string, g *engine.Graph, force bool, warn func(string)) error {
	fp, err := st.Fingerprint(ctx, thread)
	if err != nil {
		return storeError(err, "reading thread %q", thread)
	}
	rec, ok := decodeGraphRecord(fp)
	if !ok {
		return checkUnrecorded(ctx, st, thread, g, force, warn)
	}
	if rec.Fingerprint == g.Fingerprint() {
		return nil
	}
	what := "recorded with " + orNone(rec.Graph)
	change := compareTopology(rec.Topology, g.Topology())
	var why string
	if len(rec.Topology) == 0 {
		why = "the recorded topology is not stored, only its hash " + rec.Fingerprint
	} else {
		list, err := st.List(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{})
		if err != nil {
			return storeError(err, "reading thread %q", thread)
		}
		why = change.incompatibility(func(node string) bool {
			return slices.ContainsFunc(list, func(t *engine.CheckpointTuple) bool {
				_, ran := t.Checkpoint.VersionsSeen[node]
				return ran
			})
		})
		what += ": " + change.String()
	}
	switch {
	case why == "":
		warn(fmt.Sprintf("thread %q: the graph changed compatibly since it was %s; going on", thread, what))
		return nil
	case force:
		warn(fmt.Sprintf("%v for thread %q (%s; %s); going on because of --force", engine.ErrGraphChanged, thread, what, why))
		return nil
	}
	return usagef("%w for thread %q (%s): %s; --force goes on anyway", engine.ErrGraphChanged, thread, what, why)
}

// checkUnrecorded checks g against a thread that has no recorded graph: one
// a service wrote through engine.WithSaver, which records none. Its latest
// checkpoint still names the nodes that ran (versions_seen) and the
// channels that were written (channel versions); a graph that lacks any of
// them is not the thread's — planning with it would run other nodes on
// another state — and is refused like an incompatible change, unless force
// (then a warning). A graph that has them all may still differ (an edge):
// nothing says so without a record.
func checkUnrecorded(ctx context.Context, st Store, thread string, g *engine.Graph, force bool, warn func(string)) error {
	t, err := st.GetTuple(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		return storeError(err, "reading thread %q", thread)
	}
	if t == nil || t.Checkpoint == nil {
		return nil
	}
	missing := g.ForeignNames(t.Checkpoint)
	if len(missing) == 0 {
		return nil
	}
	what := fmt.Sprintf("it has no recorded graph, and its checkpoints name what graph %s lacks: %s", orNone(g.Name()), strings.Join(missing, ", "))
	if force {
		warn(fmt.Sprintf("%v for thread %q (%s); going on because of --force", engine.ErrGraphChanged, thread, what))
		return nil
	}
	return usagef("%w for thread %q: %s; is it another graph's thread? --force goes on anyway", engine.ErrGraphChanged, thread, what)
}
