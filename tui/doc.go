// Package tui is superstep's interactive debugger: a terminal UI over the
// engine's Stepper that advances a run one phase at a time (Plan, Execute,
// Update) and shows what the Pregel loop sees between phases — the graph
// with this superstep's tasks, every channel with its version, the
// versions_seen table that decides which node runs next, each task's
// pending writes, pending interrupts with an inline answer box, and the
// thread's checkpoint tree, which can be browsed, replayed and forked.
//
// Run is the entry point: give it a graph compiled with a saver
// (engine.WithSaver) and it takes the terminal until the user quits
// (example: Run). Options picks the thread, a new thread's input and what
// the command line plugs in (Condition, SettingsStore, ThreadSummary).
// Everything else is the inside of one bubbletea program, built the way
// DESIGN.md's "tui/ inside" asks:
//
//   - model.go holds the single root tea.Model: it routes a key to the
//     component on screen (mode), sizes it (sync) and asks it which keys
//     apply now (syncKeys). Update never does I/O: each engine or saver
//     call is a tea.Cmd built by a model method (ops.go) and its result
//     comes back as an opDoneMsg. The checkpoint tree's reads are Cmds of
//     their own (tree_reads.go), through a reader of the thread that is
//     not the session, so that browsing never waits on the store. A
//     replay's reads of the recording (replay.go) ride with the Cmd of the
//     step they are for: the judge and the answer box work from what it
//     read.
//   - session.go is the narrow interface the model talks to (Open, Start,
//     Next, Superstep, Resume, Checkout, History, UpdateState, Threads) and
//     its implementation over *engine.Graph and engine.Saver. Tests use a
//     fake. The session is handed to the Cmd that uses it and handed back by
//     the result message, because an engine.Stepper is not goroutine-safe:
//     while a Cmd owns it, the model has no session and cannot touch it.
//   - Components, one file each, own their keys: a key map of their own
//     (key.Binding values with help text, ShortHelp for the footer and
//     FullHelp for the overlay), an enableKeys that turns on the bindings
//     that apply, and the handling of them. They own their size (setSize)
//     and their View: mainview.go (the 2×2 grid of pane_*.go),
//     pane_inspector.go, answer.go (one answer box per interrupt, and a
//     state update sent with the answers), fork.go (stateedit.go: the
//     state as JSON and the update an edit of it makes, for both),
//     threads.go, pane_tree.go (tree_load.go loads it, tree_reads.go
//     reads what it draws), pane_diff.go,
//     subgraph.go (subgraph_actions.go: diff, answers and time travel
//     from a namespace), substep_view.go (a subgraph run held live and
//     stepped; substep.go is the engine hook that holds it and brings
//     its pauses to the model through the step's Cmd), settings.go, editwrites.go, pane_watch.go (prompt and
//     the list of breakpoints), help.go (the ? overlay, built from every
//     component's FullHelp). The root model keeps only the global keys
//     (help, quit) and routes each key to the component on screen.
//   - keys.go is what the key maps share: each common key's letters and
//     words, the overlay's columns, the global keys. The help test checks
//     every component's map against its FullHelp, the overlay and the
//     README's key table. styles.go (one Styles), highlight.go
//     (chroma, built once, lines highlighted lazily), changed.go (which
//     channels a checkpoint changed: the one answer every * is drawn
//     from, worked out for the checkpoints update_state writes).
package tui
