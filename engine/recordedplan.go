package engine

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ErrUndecided is returned when a graph record cannot say what a
// checkpoint plans: it has no topology (a bare fingerprint), a line or a
// channel kind this build does not know, a topology its fingerprint does
// not match, or the checkpoint is a subgraph's, or its status depends on a
// subgraph's own checkpoints (see RecordedPlan.Status). The error names
// which.
var ErrUndecided = errors.New("the recorded graph cannot decide")

// RecordedPlan is a graph's planning as its GraphRecord keeps it: the
// nodes with their triggers and the channels with their kinds, read from
// the record's Topology, without the nodes' functions. It plans from a
// stored root checkpoint what the compiled graph plans from it, so that a
// thread's status, done or pending, is known where the graph is not: the
// list of threads a service serves, a database another program wrote.
//
// It plans with the graph's own code, not a second copy of the rule: the
// recorded nodes and channels make a graph that has no functions, and
// GetState's planning (restore the channels, apply the null task's writes,
// prepareNextTasks: PUSH tasks for pending Sends, PULL tasks by
// LangGraph's trigger rule, TriggerFires) runs on it. Which channels a
// node writes (its edges, routes, Command gotos) does not enter planning:
// those are writes of tasks that already ran, saved in the checkpoint.
//
// A RecordedPlan is immutable and safe for concurrent use.
type RecordedPlan struct {
	g *Graph
	// reads are the channels whose values planning reads: every node's
	// triggers and the Send topic.
	reads map[string]bool
}

// PlanFromRecord reads the topology of r. Errors: ErrUndecided, wrapped
// with what the record lacks or has that this build cannot read.
func PlanFromRecord(r GraphRecord) (*RecordedPlan, error) {
	if len(r.Topology) == 0 {
		return nil, fmt.Errorf("%w: the record keeps no topology", ErrUndecided)
	}
	// The fingerprint hashes the lines (computeFingerprint): one that
	// does not match says the lines are not the graph's whole topology.
	g := &Graph{channelSpec: map[string]channelInfo{}, nodes: map[string]*node{}, triggerToNodes: map[string][]string{}, keyIndex: map[string]int{}}
	lines := slices.Clone(r.Topology)
	sort.Strings(lines)
	if fp := fingerprintOf(lines); fp != r.Fingerprint {
		return nil, fmt.Errorf("%w: the topology does not match the fingerprint %s", ErrUndecided, r.Fingerprint)
	}
	var nodeLines []string
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "node "):
			nodeLines = append(nodeLines, line)
		case strings.HasPrefix(line, "channel "):
			name, kind, err := parseChannelLine(line)
			if err != nil {
				return nil, err
			}
			if _, dup := g.channelSpec[name]; dup {
				return nil, fmt.Errorf("%w: channel %q is recorded twice", ErrUndecided, name)
			}
			info := channelInfo{kind: kind, internal: true}
			if kind == KindReducer {
				// The reducer's function is not recorded. Planning never
				// reads a reducer key's value (it is available from the
				// start), and a null write folded in with this one
				// leaves it available, as any reducer does.
				info.key = &KeySpec{Name: name, Reducer: keepLatest}
			}
			g.addChannel(name, info)
		case strings.HasPrefix(line, "edge "), strings.HasPrefix(line, "route "):
			// What a node writes: not planning's.
		default:
			return nil, fmt.Errorf("%w: topology line %q", ErrUndecided, line)
		}
	}
	for _, line := range nodeLines {
		name, trigs, ok := strings.Cut(strings.TrimPrefix(line, "node "), " triggers ")
		if !ok || name == "" {
			return nil, fmt.Errorf("%w: topology line %q", ErrUndecided, line)
		}
		if _, dup := g.nodes[name]; dup {
			return nil, fmt.Errorf("%w: node %q is recorded twice", ErrUndecided, name)
		}
		n := &node{name: name, start: name == Start}
		if trigs != "" {
			n.triggers = strings.Split(trigs, ",")
		}
		g.nodes[name] = n
		g.nodeOrder = append(g.nodeOrder, name)
	}
	// __start__ first, as compiled graphs order it; the rest by name (the
	// declaration order is not recorded, and planning's answer does not
	// depend on it: tasks are named and ordered by name).
	slices.SortStableFunc(g.nodeOrder, func(a, b string) int {
		switch {
		case a == Start:
			return -1
		case b == Start:
			return 1
		}
		return strings.Compare(a, b)
	})
	if err := g.checkRecorded(); err != nil {
		return nil, err
	}
	g.indexTriggers()
	g.indexChannels()
	g.fingerprint = r.Fingerprint
	reads := map[string]bool{TasksChannel: true}
	for _, n := range g.nodes {
		for _, t := range n.triggers {
			reads[t] = true
		}
	}
	return &RecordedPlan{g: g, reads: reads}, nil
}

// keepLatest stands for a recorded reducer key's function, which the
// record does not keep (see PlanFromRecord).
func keepLatest(_, write any) (any, error) { return write, nil }

// checkRecorded checks that the recorded nodes and channels make a graph
// planning can run on: the channels it finds by name exist with their
// kinds, every trigger is a channel, and every join names its sources as
// nodes (a name with "+" in it would make that ambiguous).
func (g *Graph) checkRecorded() error {
	if g.channelSpec[TasksChannel].kind != KindTopic {
		return fmt.Errorf("%w: no %s topic channel", ErrUndecided, TasksChannel)
	}
	if g.channelSpec[Start].kind != KindEphemeral {
		return fmt.Errorf("%w: no %s channel", ErrUndecided, Start)
	}
	for _, name := range g.nodeOrder {
		for _, t := range g.nodes[name].triggers {
			if _, ok := g.channelSpec[t]; !ok {
				return fmt.Errorf("%w: node %q is triggered by %q, which is no recorded channel", ErrUndecided, name, t)
			}
		}
	}
	for _, c := range g.channelOrder {
		info := g.channelSpec[c]
		if info.kind != KindBarrier && info.kind != KindBarrierAfterFinish {
			continue
		}
		rest, ok := strings.CutPrefix(c, JoinPrefix)
		i := strings.LastIndex(rest, ":")
		if !ok || i < 0 {
			return fmt.Errorf("%w: barrier channel %q is not a join", ErrUndecided, c)
		}
		splits := g.nodeSplits(strings.Split(rest[:i], "+"), nil, 2)
		if len(splits) != 1 {
			// Node names with "+" in them can make two joins one
			// channel, whose sources are the last join's: not recorded.
			return fmt.Errorf("%w: the sources of join %q read %d ways as recorded nodes", ErrUndecided, c, len(splits))
		}
		info.sources = splits[0]
		g.channelSpec[c] = info
	}
	return nil
}

// nodeSplits lists the ways, at most limit of them, to read parts (a
// join's sources joined by "+", split at every "+") as recorded node
// names, each following prefix.
func (g *Graph) nodeSplits(parts, prefix []string, limit int) [][]string {
	if len(parts) == 0 {
		return [][]string{slices.Clone(prefix)}
	}
	var out [][]string
	for k := 1; k <= len(parts) && len(out) < limit; k++ {
		name := strings.Join(parts[:k], "+")
		if _, ok := g.nodes[name]; ok {
			out = append(out, g.nodeSplits(parts[k:], append(prefix, name), limit-len(out))...)
		}
	}
	return out
}

// recordedKinds are the channel kinds a recorded topology may name.
var recordedKinds = []string{KindLastValue, KindReducer, KindEphemeral, KindTopic, KindBarrier, KindLastValueAfterFinish, KindBarrierAfterFinish}

// parseChannelLine reads a topology line "channel NAME KIND" (Graph.Topology),
// KIND possibly followed by "(reducer name)".
func parseChannelLine(line string) (name, kind string, err error) {
	rest := strings.TrimPrefix(line, "channel ")
	found := 0
	for _, k := range recordedKinds {
		if n, ok := strings.CutSuffix(rest, " "+k); ok {
			name, kind = n, k
			found++
		} else if i := strings.Index(rest, " "+k+"("); i >= 0 && strings.HasSuffix(rest, ")") {
			name, kind = rest[:i], k
			found++
		}
	}
	switch {
	case found == 0:
		return "", "", fmt.Errorf("%w: topology line %q: a channel kind this build does not know", ErrUndecided, line)
	case found > 1 || name == "":
		return "", "", fmt.Errorf("%w: topology line %q reads more than one way", ErrUndecided, line)
	}
	return name, kind, nil
}

// Reads reports whether planning reads channel's value: it is a trigger
// of a node or the topic of pending Sends. A checkpoint for Planned and
// Status needs only those values (an Outliner's keep), with every
// channel's version and the pending writes.
func (p *RecordedPlan) Reads(channel string) bool { return p.reads[channel] }

// Planned names the tasks the graph plans from the stored root checkpoint
// t, sorted (a node's name once per task: a node Sends reach twice is
// there twice), as GetState's StateSnapshot.Tasks would list them:
// planned from t's channels after the null task's writes, whatever the
// other saved writes. Errors: ErrUndecided for a subgraph's checkpoint,
// or the error applying t's null writes gives (GetState's too).
func (p *RecordedPlan) Planned(t *CheckpointTuple) ([]string, error) {
	tasks, err := p.plan(t)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(tasks))
	for i, tk := range tasks {
		out[i] = tk.name
	}
	sort.Strings(out)
	return out, nil
}

// Status is what the stored root checkpoint t says of its thread's run,
// as StateSnapshot.Status says it: interrupted when a planned task waits
// for an answer, failed when a task saved an error, pending when tasks
// are planned, done otherwise.
//
// One case needs more than the record: a planned task that asked a
// question and has a plain resume value saved for it, not used yet. A
// plain node takes it and goes on (pending); a node that runs a
// subgraph may have passed it down and been asked again, which only the
// subgraph's checkpoints tell (GetState reads them; the record does not
// say which nodes run subgraphs). That is ErrUndecided. Errors:
// Planned's.
func (p *RecordedPlan) Status(t *CheckpointTuple) (CheckpointStatus, error) {
	tasks, err := p.plan(t)
	if err != nil {
		return 0, err
	}
	snap := StateSnapshot{PendingWrites: t.PendingWrites, Tasks: make([]SnapshotTask, len(tasks))}
	saved := ReadSavedWrites(t.PendingWrites)
	for i, tk := range tasks {
		snap.Tasks[i] = SnapshotTask{Name: tk.name}
		sv, ok := saved.Task(tk.id())
		if !ok {
			continue
		}
		// The record's nodes run no subgraph; waitingTask reads a
		// subgraph node's interrupts, raised in its subgraph's
		// namespace, as it reads those of a node that runs none.
		snap.Tasks[i].Waiting = saved.waitingTask(sv, tk)
		if !snap.Tasks[i].Waiting && !sv.Finished && len(sv.Interrupts) > 0 && len(sv.Answers) == 0 {
			return 0, fmt.Errorf("%w: task %s of node %q may wait in a subgraph", ErrUndecided, tk.id(), tk.name)
		}
	}
	return snap.Status(), nil
}

// plan is GetState's planning of t on the recorded graph.
func (p *RecordedPlan) plan(t *CheckpointTuple) ([]*task, error) {
	if t.Config.CheckpointNS != "" {
		return nil, fmt.Errorf("%w: checkpoint of subgraph namespace %q", ErrUndecided, t.Config.CheckpointNS)
	}
	_, tasks, err := p.g.plan(t)
	return tasks, err
}
