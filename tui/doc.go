// Package tui is superstep's interactive debugger: a terminal UI over the
// engine's Stepper that advances a run one phase at a time (Plan, Execute,
// Update) and shows what the Pregel loop sees between phases — the graph
// with this superstep's tasks, every channel with its version, the
// versions_seen table that decides which node runs next, each task's
// pending writes, pending interrupts with an inline answer box, and the
// thread's checkpoint tree, which can be browsed, replayed and forked.
//
// Run is the only entry point. Everything else is the inside of one
// bubbletea program, built the way DESIGN.md's "tui/ inside" asks:
//
//   - model.go holds the single root tea.Model. Update never does I/O: each
//     engine or saver call is a tea.Cmd built by a model method and its
//     result comes back as an opDoneMsg.
//   - session.go is the narrow interface the model talks to (Open, Start,
//     Next, Superstep, Resume, Checkout, History, UpdateState, Threads) and
//     its implementation over *engine.Graph and engine.Saver. Tests use a
//     fake. The session is handed to the Cmd that uses it and handed back by
//     the result message, because an engine.Stepper is not goroutine-safe:
//     while a Cmd owns it, the model has no session and cannot touch it.
//   - pane_*.go are plain structs with View(width, height int) string.
//   - keys.go (one KeyMap, help.KeyMap), styles.go (one Styles),
//     highlight.go (chroma, built once, lines highlighted lazily).
package tui
