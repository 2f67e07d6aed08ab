package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// updateCommand is LangGraph's update_state from the command line: it
// writes values onto a checkpoint as if a node had returned them, on a new
// checkpoint (a fork when the checkpoint is not the latest).
func (a *App) updateCommand(g *globals) *cobra.Command {
	var ckpt, values, asNode, graphFlag, ns string
	cmd := &cobra.Command{
		Use:   "update THREAD --values JSON",
		Short: "Write state values onto a checkpoint (update_state), forking the thread",
		Long: `Apply --values (a JSON object of state keys) to THREAD's latest checkpoint,
or to --checkpoint (an id or any unique prefix), as if node --as-node had
returned them: its edges fire and reducers apply. The new checkpoint has
source "update" and the chosen one as its parent, so updating an older
checkpoint forks the thread (LangGraph's update_state). Prints the new
checkpoint's id; continue from it with superstep run GRAPH --thread THREAD.

Without --as-node the node that ran last is assumed, as LangGraph does.

--ns updates a subgraph's checkpoint in its namespace instead (superstep
show lists a checkpoint's), with the subgraph's state keys and nodes, as
LangGraph's update_state does with a subgraph's config: the new checkpoint
is the subgraph's; the parent's are not touched.`,
		Example: `  superstep update t1 --values '{"approved":true}'
  superstep update t1 --checkpoint e2c3cb43 --values '{"question":"why?"}' --as-node plan_queries
  superstep update t1 --ns 'review:6f1c…' --values '{"verdict":"ok"}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if values == "" {
				return usagef("--values is required: a JSON object of state keys")
			}
			v, err := decodeJSON("--values", []byte(values))
			if err != nil {
				return err
			}
			vm, ok := v.(map[string]any)
			if !ok {
				return usagef("--values: want a JSON object of state keys, got %s", engine.MustEncode(v))
			}
			thread := args[0]
			return a.writeThread(cmd, g, thread, func(ctx context.Context, st Store, list []*engine.CheckpointTuple) (err error) {
				gr, err := requireGraph(ctx, st, thread, graphFlag, noLint)
				if err != nil {
					return err
				}
				n, err := resolveNS(ctx, st, gr, thread, ns)
				if err != nil {
					return err
				}
				if ns != "" {
					if list, err = nsCheckpoints(ctx, st, n.cfg(thread)); err != nil {
						return err
					}
				}
				t := list[0]
				if ckpt != "" {
					if t, err = findCheckpoint(ctx, list, thread, ckpt); err != nil {
						return nsHint(ctx, st, n.cfg(thread), ckpt, err)
					}
				}
				root, gr := gr, n.graph
				if err := checkKeys(gr, vm, "--values"); err != nil {
					return n.refuse(err)
				}
				if asNode != "" && asNode != engine.Start && !containsNode(gr, asNode) {
					return n.refuse(usagef("--as-node: %s", noNode(gr, asNode)))
				}
				// The thread's graph finds the subgraph a namespace names
				// and writes there (engine: updateSuperstep).
				cfg, err := root.UpdateState(ctx, engine.Config{ThreadID: thread, CheckpointNS: n.name, CheckpointID: t.Checkpoint.ID}, vm, asNode)
				if err != nil {
					return asUsage(err)
				}
				if g.json {
					doc := map[string]string{"thread": thread, "checkpoint": cfg.CheckpointID, "parent": t.Checkpoint.ID}
					if ns != "" {
						doc["namespace"] = cfg.CheckpointNS
					}
					return writeJSON(a.Stdout, doc)
				}
				where := ""
				if ns != "" {
					where = " in namespace " + cfg.CheckpointNS
				}
				_, err = fmt.Fprintf(a.Stdout, "thread %s: new checkpoint %s%s (update of %s)\n", thread, engine.ShortID(cfg.CheckpointID), where, engine.ShortID(t.Checkpoint.ID))
				return err
			})
		},
	}
	cmd.Flags().StringVar(&ckpt, "checkpoint", "", "checkpoint to update (default: the latest)")
	cmd.Flags().StringVar(&values, "values", "", "state values as a JSON object")
	cmd.Flags().StringVar(&asNode, "as-node", "", "node the values come from (default: the node that ran last)")
	cmd.Flags().StringVar(&graphFlag, "graph", "", "graph of the thread (default: the one recorded for it)")
	addNSFlag(cmd, &ns, a.Name)
	return cmd
}

// noNode says that graph g has no node name, with the node name likely
// meant and the nodes it has: the one wording of every flag or argument
// that names a node.
func noNode(g *engine.Graph, name string) string {
	nodes := g.NodeNames()
	return fmt.Sprintf("graph %s has no node %q%s (nodes: %s)", g.Name(), name, engine.DidYouMean(nodes, name), strings.Join(nodes, ", "))
}

func containsNode(g *engine.Graph, name string) bool {
	for _, n := range g.NodeNames() {
		if n == name {
			return true
		}
	}
	return false
}

// checkKeys refuses values for keys the graph's state does not have (the
// engine's check, engine.Graph.CheckStateKeys), naming the flag.
func checkKeys(g *engine.Graph, values map[string]any, flag string) error {
	if err := g.CheckStateKeys(values); err != nil {
		return usagef("%s: %w", flag, err)
	}
	return nil
}

func (a *App) deleteCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "delete THREAD",
		Short:   "Delete a thread with every checkpoint and branch",
		Long:    "Delete THREAD: every checkpoint, branch, saved write and its recorded graph. superstep export keeps a copy first.",
		Example: "  superstep export t1 > t1.json && superstep delete t1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.writeThread(cmd, g, args[0], func(ctx context.Context, st Store, _ []*engine.CheckpointTuple) error {
				if err := st.DeleteThread(ctx, args[0]); err != nil {
					return storeError(err, "deleting thread %q", args[0])
				}
				_, err := fmt.Fprintf(a.Stdout, "deleted thread %s\n", args[0])
				return err
			})
		},
	}
}

func (a *App) copyCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "copy THREAD NEW",
		Short: "Copy a thread, with every branch, to a new thread id",
		Long: `Copy THREAD to NEW within the database: every checkpoint, branch, saved
write and the recorded graph. Experiment on the copy and keep the original.`,
		Example: "  superstep copy t-42 t-42-try",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.writeThread(cmd, g, args[0], func(ctx context.Context, st Store, _ []*engine.CheckpointTuple) (err error) {
				if ok, err := threadExists(ctx, st, args[1]); err != nil || ok {
					if err == nil {
						err = usagef("thread %q already exists: delete it first or choose another id", args[1])
					}
					return err
				}
				var buf bytes.Buffer
				if err := st.Export(ctx, args[0], &buf, ""); err != nil {
					return storeError(err, "copying thread %q", args[0])
				}
				_, err = st.Import(ctx, &buf, persist.ImportOptions{Thread: args[1], Overwrite: true, MaxBytes: int64(buf.Len())})
				if errors.Is(err, persist.ErrImportTooLarge) {
					return failf("copying thread %q: %v", args[0], err)
				}
				if err != nil {
					return storeError(err, "copying thread %q to %q", args[0], args[1])
				}
				_, err = fmt.Fprintf(a.Stdout, "copied thread %s to %s\n", args[0], args[1])
				return err
			})
		},
	}
}
