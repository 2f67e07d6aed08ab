// Package typed is superstep's Go-shaped API for graphs: the state is a
// struct, nodes get it as *S and return a typed partial update, Sends carry
// typed arguments and interrupts typed payloads and answers.
//
// It is a layer over engine.StateGraph, not a second engine: NewGraph
// derives the state keys and their channels from the struct, each typed
// node is wrapped into an engine.NodeFunc, and Compile returns the same
// *engine.Graph a map-built graph would be, embedded in Graph[S]. Channels,
// versions, checkpoints, stores, the debugger and traces see no difference;
// a test in package graphs traces each built-in graph in both APIs and
// compares the traces byte for byte.
//
//	type State struct {
//		Total   int      `json:"total"`
//		Visited []string `json:"visited" reducer:"append"`
//	}
//
//	g, err := typed.NewGraph[State]("linear").
//		AddNode("a", func(ctx context.Context, s *State) (typed.Update[State], error) {
//			return typed.Write(s, typed.Set(&s.Total, s.Total*2), typed.Set(&s.Visited, []string{"a"})), nil
//		}).
//		AddEdge(engine.Start, "a").
//		Compile()
//
// Start with NewGraph and the struct; the examples (typed/example_test.go;
// go doc does not print them) show one concept each: a first graph (the
// package example), a reducer (WithReducer), a conditional edge
// (StateGraph.AddConditionalEdges), Send fan-out (AddFanOut, and
// StateGraph.AddSends for Sends to several nodes), an
// interrupt answered and a Command's Goto (Interrupt), a fork
// (Graph.UpdateState), a chat history (Messages), a ReAct agent's tool calls
// (ToolCall) and the same calls run in parallel (AddFanOut's toolCalls
// example), a typed stream
// (Graph.Stream) and the debugger on your own graph (the package's Debugger
// example). For a tool-calling agent: a retried node (StateGraph.AddNode's
// retry example), a subgraph node and its stream (StateGraph.AddSubgraph),
// a run cancelled by Ctrl-C and continued (Graph.Continue), and an old
// interrupt answered differently on a fork (Graph.Resume's fork example);
// examples/toolagent in the repository puts them together in one program,
// checkpointed in a bbolt file, that its test runs end to end.
//
// # The state struct
//
// Each exported field is one state key, named as encoding/json names it
// (the json tag, else the field name; `json:"-"` leaves the field out). An
// embedded struct is not flattened into keys as encoding/json would: the
// graph reports it as a *SchemaError (give the field a name). A field's channel
// is LastValue, or:
//
//   - a field of type AppendList[T], or a slice tagged `reducer:"append"`:
//     writes are appended (LangGraph's Annotated[list, operator.add]);
//   - a field of type Messages (or tagged `reducer:"add_messages"`): chat
//     messages merged by id;
//   - `reducer:"name"`: a reducer registered on the graph with
//     WithReducer("name", func(current, write T) T).
//
// # Values
//
// Channels hold the engine's values — JSON's data model — whatever API
// wrote them, so that a typed and a map graph checkpoint the same bytes.
// The layer encodes what a node sets (ints become numbers, time.Time its
// RFC 3339 text, structs objects by their json tags) and decodes what a
// node reads back into the field's type: an int field stays an int after a
// checkpoint round trip and a time.Time a time.Time. A stored value that
// does not fit — 2.5 for an int, "yesterday" for a time — is a
// *DecodeError that names the field, its key and the position inside the
// value. Integers beyond ±2^53, which a float64 would round, are kept
// exact (the engine stores them as json.Number digits) and come back whole
// into int64 and uint64 fields; one that does not fit its field — 2^63 for
// an int64 — is a DecodeError too.
//
// A Messages field merges messages by id; a write of RemoveMessage(id)
// deletes one, and RemoveAllMessages() everything before it. A Message
// carries an assistant's ToolCalls and a tool result's ToolCallID, under
// LangChain's keys.
//
// # Nodes, routes, Sends and interrupts
//
// A NodeFunc gets its own copy of the state as *S and returns an Update:
// Write(s, Set(&s.Field, value), …) lists the fields it changed, in order;
// the zero Update writes nothing. Append(&s.List, items…) is the write of
// an AppendList field given as its items. Update.Goto and Update.Send make it a
// Command (update and where to go next). A RouteFunc returns the next node's
// name (AddConditionalEdges). A fan-out starts one task of a node added by
// AddSendNode per argument, whose function gets its argument decoded into
// its own type and a zero state to build its update on (out): AddFanOut's function returns the typed arguments for one
// such node, a SendsFunc returns Sends (AddSends), each made by Send with a
// typed argument, to any nodes. AddFanOut is the usual form and the
// cheaper: its arguments stay typed in their list until each is encoded,
// where Send first boxes each one into an engine.Send (an allocation per
// task, and a type check per Send when encoding). Interrupt asks a
// person with a typed payload and returns the answer decoded into a type of
// the node's choosing; Graph.Resume answers it with a Go value. A compiled
// graph becomes a subgraph node with AddSubgraph (the subgraph's whole final
// state is the node's update), or a node runs a typed graph itself with
// Graph.InvokeSubgraph and hands back the fields it chooses.
//
// # What stays in the engine
//
// Everything about running a graph: Graph[S] embeds *engine.Graph, so the
// Stepper, GetState, History, StreamModes and map-valued Invoke and
// UpdateState are all there; Run, Continue, Resume (ResumeWith to answer
// with a state update), State (StateIn for a subgraph, read through the
// graph that ran it), UpdateState (UpdateStateIn for a subgraph, written
// through the graph that ran it) and Stream (typed parts of the stream
// modes) are their typed forms (an Update with Goto given to Run or
// UpdateState is a Command, as a node's is), and
// g.Graph.Stream the engine's event stream. The map API remains for scenario files and graphs
// built at run time, and both APIs can be mixed in one program.
//
// # Why Set(&s.Field, value)
//
// A node must be able to say "these fields changed, to these values" such
// that it cannot name a field that does not exist, needs no type
// assertion, can set a field to its zero value, and keeps the order of its
// writes (LangGraph's task-write order is observable in checkpoints and
// traces). The alternatives considered:
//
//   - Return the whole struct and diff it against the input: cannot tell
//     "wrote the same value" (which still bumps the channel's version and
//     triggers nodes: LangGraph's LastValue.update returns True for any one
//     value, libs/langgraph/langgraph/channels/last_value.py:56) from "did
//     not write", and a reducer field's write (the items to append) is not
//     its new value.
//   - Return a state object and write its non-None fields: what LangGraph
//     itself does when a node returns a dataclass or pydantic state
//     (get_update_as_tuples, libs/langgraph/langgraph/_internal/_fields.py:166,
//     which its own comment calls "somewhat inelegant"); Go has no None for
//     an int, and pydantic's fields_set — the set of fields assigned — is the
//     record that Set keeps here explicitly.
//   - Return a fresh struct and write its non-zero fields (omitempty): a
//     node could never set 0, false or "" — the router's c sets total to 0.
//   - A pointer-field update struct (Total *int) per state: a second type
//     kept in step with the first by hand, and writes in field order, not
//     in the order the node made them.
//   - Wrapper field types (Total typed.Field[int]): every read becomes
//     s.Total.V and the struct no longer marshals like the user's own.
//   - A generic builder keyed by strings or by key handles declared next to
//     the struct: strings are what this package removes; handles duplicate
//     the struct.
//
// Set takes the field's address, so the compiler checks both that it is a
// field (a misspelt name does not compile) and that the value has its
// type; it is the idiom Go programmers know from flag.IntVar(&cfg.Port,
// …) and sql.Rows.Scan(&u.Name). Each address is taken as an offset in
// the struct Write is given and resolved to a field through the schema of
// S, which depends on the type alone: when Write is called for several
// changes (so the Update carries the writes themselves, not the changes
// and room for them), when the node returns for one. An address that is
// not a state field of that struct is ErrNotAField, and a value its field
// cannot encode an *EncodeError; either is reported with the node's name
// when the node returns, on the first run. Goto and Send on an Update
// make it a Command.
//
// # Why Append only compiles on an AppendList
//
// An append field's write is the items to append, so Set(&s.Results,
// []int{x}) says it with a list made for the occasion, which Set keeps
// when it does not encode it (an allocation per call, on a fan-out's
// hottest path). Append(&s.Results, x) takes the items themselves and
// copies them. What it should mean on a LastValue field has no good
// answer: replacing the field with the items drops the rest of its list,
// and appending to the node's copy (s.Results plus the items) is a
// read-modify-write that loses a sibling's write in the same superstep and
// has no list to start from in a Send's zero out. So it does not compile
// there: Append takes a *AppendList[T], a list type that declares its
// field an append channel, and a pointer to a plain []T or to any other
// field is a compile error. A reducer tag that contradicts the type
// (`reducer:"max"` on an AppendList) is a *SchemaError when the graph is
// built. The alternatives were an Append on any slice that fails at run
// time on a LastValue field (a mistake found when the node first runs,
// not when it is written) and a marker on the Change that the hot paths
// would check for every write.
//
// # Other Go agent frameworks
//
// cloudwego/eino's graphs are typed dataflow: each node is a typed
// function from its input to its output, values flow along edges, and an
// optional per-run state struct (compose.WithGenLocalState) is mutated in
// place through handlers or compose.ProcessState under a mutex. That fits
// eino's model but not Pregel's: here writes made in one superstep must be
// invisible until the step ends, several nodes may write one key in the
// same step, and reducers fold those writes in task order. A node that
// mutates shared state cannot express that; a node that returns its writes
// can, so typed keeps eino's typed state struct but not its in-place
// mutation. trpc-agent-go follows LangGraph closely: its State is a
// map[string]any described by a schema of fields with reducers, and nodes
// return a State map, with generic getters to read values. That is the
// engine's map API with helpers; typed moves the schema into the struct
// itself and the keys into the compiler's hands.
//
// # What a node costs
//
// Each node gets its own copy of the state, so decoding it is the layer's
// main cost. A graph keeps the state it decoded last and asks the engine
// which keys changed since (engine.StateChanges): a chain or a loop
// re-decodes only the fields the previous step wrote, and the tasks of one
// superstep share one decoding. It reads those keys by their position in
// the engine's declared keys (engine.StateByKey; Compile passes
// engine.WithStateByKey so that the runs keep them), an index where the
// state map costs a hash and a lookup per key, so refreshing a field costs
// less than a map node's reading it (the engine owns the keys' order: the
// graph maps each position to its field from engine.Graph.StateKeys).
// Fields that hold references (slices, maps, pointers, interfaces) are decoded afresh for every node, so a node may
// change its copy in place without touching another's; a long list of
// numbers, strings or bools that holds the same elements as the one its
// field decoded last (the same boxed values) is copied from that decoding
// instead, still into a slice of the node's own (on fanout_1000 the list
// of 1,000 items is read by the sending node, its Sends function, the join
// and the run's result: three of its four decodings become copies).
//
// That isolation is deliberately stronger than LangGraph's and the map
// API's. LangGraph hands each node a new dict whose values are the channels'
// own objects (read_channels, libs/langgraph/langgraph/pregel/_io.py:38;
// LastValue.get returns its value, channels/last_value.py:69), and the map
// API hands every node the same read-only map: in both, sorting a list in
// place changes what the next node reads, and only a rule in the
// documentation says not to. A typed node gets a *S that looks like its own
// struct, and Go's everyday idioms — append into spare capacity,
// sort.Ints, assigning into a map — change a value in place; sharing the
// decoded slices between nodes under a read-only rule would turn those into
// silent corruption of other nodes' state, to save decoding lists that a
// fan-out measured at about 2% of the run. So reference fields stay
// per-node copies, made by copying an unchanged list rather than sharing
// it.
//
// The copy is valid until its node or route returns, as the map API's
// state map is (engine.NodeFunc: the engine changes that map in place for
// later supersteps). One rule for both APIs, with the same honesty: what
// a node hands back to the layer — its Update, its Sends' arguments, a
// typed Interrupt's payload — is encoded before the copy is reused, and a
// node or route that returns an error (an interrupt's included, whose
// payload might hold s) never has its copy reused; a node that keeps s
// itself in a closure or a goroutine is not detected, as a map node that
// keeps its map is not. Reference fields are decoded (or copied) afresh
// for each task (above), so keeping a slice read from s stays safe.
//
// How the copy is reused depends on its size, by measurement. A state
// larger than 256 bytes is recycled: on wide_state (1.6 KB, 100 nodes) the
// per-node copy was the layer's main allocation, and with GC on recycling
// it took the typed overhead in CPU time without a saver from about +42%
// to +21…28% (interleaved runs, 2 shared cores under load); with GC off it
// saves a few hundred instructions per node. The copy handed back last is
// kept in an atomic slot (one swap to take it, one to give it back), and
// copies handed back while the slot is full go to a sync.Pool, whose Get
// and Put cost more than the slot. A small state keeps the one allocation
// it shares with the node's write (nodeTask): that allocation is needed
// for the write anyway, and so does the zero state a Send node lends its
// function (out): recycling a small one through a sync.Pool cost about 120
// instructions a task in its Get and Put, more than its share of an
// allocation made anyway. Routes and Sends functions recycle at every
// size, and a Send node its larger outs.
// A recycled copy is never shared by two tasks at once, and its content is
// overwritten (or zeroed) before reuse.
//
// The copy is one heap allocation per node or route when it is not
// recycled: the *S passes to a function the layer cannot see into, so it
// escapes (go build -gcflags=-m: "new(S) escapes to heap"), and passing S
// by value would not help, since Write(&s, Set(&s.F, …)) keeps the
// address.
//
// A node's result costs no allocation of its own: the engine takes an
// engine.Update in an interface, which a conversion would copy to the heap
// (about 270 instructions a node on loop_5000, as for a map node returning
// engine.Pairs), so the layer allocates the slice header with the node's
// writes and makes the interface point to it (boxed). A Set of a short
// list of ints or strings allocates the values, the interfaces that hold
// them and the list's header as one block in the same way (a list of
// one, the usual append, in a 48-byte block). On chain_1000, loop_5000
// and wide_state a typed run makes fewer allocations than the map run;
// wide_state's allocates 4% more bytes (157.4 KB against 151.3 KB a run:
// the engine's values by key position, and the result decoded). Its CPU
// time is higher than its instructions say (+6…12% at +3…4%) because of
// the caches, not the count: every superstep's code and data are cold
// again by the next one, and a typed node runs more distinct code (the
// layer's decoding, resolving and boxing; the node's ten Set calls) and
// touches more data (its 1.6 KB copy, the cache it is copied from, the
// writes' field table) than a map node that reads ten keys of the map the
// engine just wrote. Callgrind's cache model, per run: first-level
// instruction misses 67.3k against 56.3k, data read misses 11.8k against
// 8.5k (the engine's own writes to the state map miss too, as no typed
// node reads it). The map benchmark's hundred nodes are one closure, the
// typed benchmark's a hundred functions; with the map nodes written one
// by one as well (wide_state_pernode) the typed overhead in CPU time is
// +1…6%.
// fanout_1000's allocates 11% more bytes (1.417 MB against 1.271 MB a
// run) in fewer allocations (6,149 against 8,129): per Send task the
// one-element list Append encodes in a 48-byte block (a map node's []any,
// its number and the interface holding the list take as much in three),
// and the zero state the node builds its update on (SendFunc's out)
// allocated with the node's write and result in 112 bytes. Recycling out
// instead, with the write in 64 bytes of its own, made 48 bytes a task
// less but cost about 120 instructions a task in sync.Pool's Get and Put;
// without them the typed run's instructions are the map run's (+0…1%) and
// its CPU time is lower. Per run, the lists of 1,000 items that the split
// node, its fan-out function, the join and the result each decode (above)
// are most of the difference in bytes.
//
// An Update is four words: its one inline change resolved to the field's
// offset and pointer type, and the value. More changes are resolved when
// Write is called, through the schema of the state type (built once per
// type, so a Write needs no graph), into the state writes the engine
// takes, allocated in one block with their slice header and sized to
// them: a wide_state node that sets ten fields allocates 352 bytes, where
// a map node's ten writes and its result take 344 (what few Updates have,
// an error to report or gotos, is behind a pointer); the block had room for
// sixteen changes and their writes, 1,280 bytes, and with GC on the typed
// overhead in CPU time was about +20%. Goto and Send add a small block
// of their own that shares those writes. A Change is two interfaces.
// Both are small enough for the compiler to keep in registers, which
// keeps the frames of the user's node and of Set small. That mattered
// most for a fan-out while each task's goroutine started with a fresh
// 2 KB stack, half of it the engine's: a task whose calls went past it
// copied its stack (about 10,000 instructions, 20,000 deep in the
// allocator), 25 times a fanout_1000 run for typed tasks against 15 for
// map tasks with GC off (with a six-word Update and a five-word Change,
// every typed Send task did: +111% instructions over the map API). The
// engine now runs a superstep's tasks on goroutines that take the next
// task when theirs ends (engine/runner.go startAll), so a fan-out's tasks
// reuse stacks already grown and both APIs copy a stack about three
// times a run; the small frames still spare the first tasks on each
// goroutine.
//
// A fan-out's arguments are encoded once each, from where they are: in
// AddFanOut's list, or in the Sends' interfaces for AddSends. Arguments
// made of numbers, strings and bools are encoded and decoded through
// their address by a plan their codec builds once (field offsets and
// kinds), an int field without a call.
package typed
