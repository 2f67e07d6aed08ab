package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/superstep/superstep/draw"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/termtext"
)

func (a *App) graphsCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "graphs",
		Short:   "List the built-in graphs",
		Example: "  superstep graphs\n  superstep graphs --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all := graphs.All()
			if g.json {
				type row struct {
					Name        string         `json:"name"`
					Description string         `json:"description"`
					Input       map[string]any `json:"input,omitempty"`
					Default     bool           `json:"default,omitempty"`
				}
				rows := make([]row, 0, len(all))
				for _, e := range all {
					rows = append(rows, row{e.Name, e.Description, e.Input, e.Name == graphs.Default})
				}
				return writeJSON(a.Stdout, rows)
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
			for _, e := range all {
				mark := " "
				if e.Name == graphs.Default {
					mark = "*"
				}
				fmt.Fprintf(tw, "%s %s\t%s\n", mark, e.Name, e.Description)
			}
			return tw.Flush()
		},
	}
}

func (a *App) graphCommand(g *globals) *cobra.Command {
	var mermaid bool
	var lint lintMode
	cmd := &cobra.Command{
		Use:   "graph GRAPH",
		Short: "Show a graph's topology",
		Long: `Show GRAPH's nodes with their trigger channels, its edges and conditional
edges, and its channels; or, with --mermaid, a Mermaid flowchart.`,
		Example: "  superstep graph research\n  superstep graph research --mermaid > research.mmd\n  superstep graph ./my-scenario.json --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := resolveGraph(cmd.Context(), args[0], a.lintWith(lint))
			if err != nil {
				return err
			}
			gr := res.g
			if mermaid {
				_, err := fmt.Fprint(a.Stdout, gr.Mermaid())
				return err
			}
			info := gr.Describe()
			if g.json {
				return writeJSON(a.Stdout, graphJSON(gr, info))
			}
			writeTopology(a, gr, info)
			return nil
		},
	}
	cmd.Flags().BoolVar(&mermaid, "mermaid", false, "print a Mermaid flowchart")
	addLintFlag(cmd, &lint)
	return cmd
}

func writeTopology(a *App, gr *engine.Graph, info engine.GraphInfo) {
	w := a.Stdout
	fmt.Fprintf(w, "graph %s  (fingerprint %s)\n\n", termtext.Name(info.Name), gr.Fingerprint())
	// The drawing the debugger's graph pane shows (g).
	fmt.Fprint(w, draw.Draw(draw.FromInfo(info)).String())
	fmt.Fprint(w, "\nnodes\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, n := range info.Nodes {
		extra := []string{}
		if n.Subgraph {
			extra = append(extra, "subgraph")
		}
		if n.Retry != nil {
			extra = append(extra, fmt.Sprintf("retry %d", n.Retry.MaxAttempts))
		}
		if len(n.Ends) > 0 {
			extra = append(extra, "goto "+strings.Join(n.Ends, ","))
		}
		if n.Description != "" {
			extra = append(extra, n.Description)
		}
		fmt.Fprintf(tw, "  %s\ttriggers %s%s\n", termtext.Name(n.Name), strings.Join(termtext.Names(n.Triggers), ", "), cell(termtext.Name(strings.Join(extra, "; "))))
	}
	tw.Flush()
	var edges, routes []string
	for _, e := range info.Edges {
		line := "  " + strings.Join(termtext.Names(e.From), " + ") + " -> " + termtext.Name(e.To)
		if e.Channel != "" {
			line += "  (" + termtext.Name(e.Channel) + ")"
		}
		if e.Conditional {
			routes = append(routes, line)
		} else {
			edges = append(edges, line)
		}
	}
	fmt.Fprintf(w, "\nedges\n%s\n", strings.Join(edges, "\n"))
	if len(routes) > 0 {
		fmt.Fprintf(w, "\nconditional edges\n%s\n", strings.Join(routes, "\n"))
	}
	fmt.Fprintln(w, "\nchannels")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range info.Channels {
		kind := c.Kind
		if c.Reducer != "" {
			kind += "(" + c.Reducer + ")"
		}
		internal := ""
		if c.Internal {
			internal = "internal"
		}
		fmt.Fprintf(tw, "  %s\t%s%s\n", termtext.Name(c.Name), termtext.Name(kind), cell(internal))
	}
	tw.Flush()
	if len(info.InterruptBefore)+len(info.InterruptAfter) > 0 {
		fmt.Fprintf(w, "\nbreakpoints  before: %s  after: %s\n", strings.Join(termtext.Names(info.InterruptBefore), ","), strings.Join(termtext.Names(info.InterruptAfter), ","))
	}
}

// cell is a last table cell: empty ones add no padding to their line.
func cell(s string) string {
	if s == "" {
		return ""
	}
	return "\t" + s
}

// graphJSON is graph --json: snake_case names, as every other --json.
func graphJSON(gr *engine.Graph, info engine.GraphInfo) map[string]any {
	type retry struct {
		MaxAttempts     int     `json:"max_attempts"`
		InitialInterval string  `json:"initial_interval"`
		BackoffFactor   float64 `json:"backoff_factor"`
		MaxInterval     string  `json:"max_interval"`
	}
	type node struct {
		Name        string   `json:"name"`
		Triggers    []string `json:"triggers"`
		Subgraph    bool     `json:"subgraph,omitempty"`
		Retry       *retry   `json:"retry,omitempty"`
		Ends        []string `json:"ends,omitempty"`
		Description string   `json:"description,omitempty"`
	}
	type edge struct {
		From        []string `json:"from"`
		To          string   `json:"to"`
		Conditional bool     `json:"conditional,omitempty"`
		Join        bool     `json:"join,omitempty"`
		Channel     string   `json:"channel,omitempty"`
	}
	type channel struct {
		Name     string `json:"name"`
		Kind     string `json:"kind"`
		Reducer  string `json:"reducer,omitempty"`
		Internal bool   `json:"internal,omitempty"`
	}
	nodes := []node{}
	for _, n := range info.Nodes {
		out := node{Name: n.Name, Triggers: n.Triggers, Subgraph: n.Subgraph, Ends: n.Ends, Description: n.Description}
		if p := n.Retry; p != nil {
			out.Retry = &retry{MaxAttempts: p.MaxAttempts, InitialInterval: p.InitialInterval.String(), BackoffFactor: p.BackoffFactor, MaxInterval: p.MaxInterval.String()}
		}
		nodes = append(nodes, out)
	}
	edges := []edge{}
	for _, e := range info.Edges {
		edges = append(edges, edge{From: e.From, To: e.To, Conditional: e.Conditional, Join: e.Join, Channel: e.Channel})
	}
	channels := []channel{}
	for _, c := range info.Channels {
		channels = append(channels, channel{Name: c.Name, Kind: c.Kind, Reducer: c.Reducer, Internal: c.Internal})
	}
	return map[string]any{
		"name": info.Name, "fingerprint": gr.Fingerprint(), "nodes": nodes, "edges": edges,
		"channels": channels, "interrupt_before": nonNilSlice(info.InterruptBefore), "interrupt_after": nonNilSlice(info.InterruptAfter),
	}
}
