// Package draw lays a graph out in layers and draws it as text: boxes for
// nodes, lines and arrows for edges, dashed for conditional edges and
// Command gotos, as LangGraph's ASCII drawing does. The debugger's graph
// pane and `superstep graph` print the same drawing from it.
//
// The layout is the classic layered one (Sugiyama's): edges that close a
// cycle are set aside (and written next to their source box as "⟲ to"),
// nodes get the layer of their longest path from __start__, edges that
// skip layers pass through placeholder columns, a few barycenter sweeps
// order each layer to reduce crossings, and each node is placed under the
// mean of its parents. Everything is deterministic: the same graph draws
// the same text.
//
// Cells hold one rune each; node names with double-width runes draw
// misaligned (the drawing does not measure terminal widths).
package draw
