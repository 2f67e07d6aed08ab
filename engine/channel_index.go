package engine

import (
	"slices"
	"strings"
	"sync"
)

// chanID numbers a channel of a compiled graph: its place in
// Graph.channelOrder. The superstep's hot path (applyWrites, planning)
// finds channels, their versions and what they are by it instead of by
// name; names stay where checkpoints, events and savers need them.
type chanID int32

// chanMeta is what applyWrites needs to know of a channel once it changed.
type chanMeta struct {
	// key is the channel's state key index (Graph.keys), or -1.
	key int
	// clears: an ephemeral or topic channel, which a superstep that did not
	// write it clears (so the state lists it while it holds a value).
	clears bool
}

// indexChannels numbers the compiled graph's channels and its nodes'
// triggers. Called once, when the graph's channels are final.
func (g *Graph) indexChannels() {
	g.chanIDs = make(map[string]chanID, len(g.channelOrder))
	g.chanMeta = make([]chanMeta, len(g.channelOrder))
	g.chanInfo = make([]channelInfo, len(g.channelOrder))
	g.scratchPool = &sync.Pool{} // sized for these channels
	for i, name := range g.channelOrder {
		g.chanIDs[name] = chanID(i)
		g.chanInfo[i] = g.channelSpec[name]
		m := chanMeta{key: -1}
		if k, ok := g.keyIndex[name]; ok {
			m.key = k
		}
		switch g.channelSpec[name].kind {
		case KindEphemeral, KindTopic:
			m.clears = true
		}
		g.chanMeta[i] = m
	}
	byName := make([]chanID, len(g.channelOrder))
	for i := range byName {
		byName[i] = chanID(i)
	}
	slices.SortFunc(byName, func(a, b chanID) int { return strings.Compare(g.channelOrder[a], g.channelOrder[b]) })
	g.nameRank = make([]int32, len(g.channelOrder))
	for rank, id := range byName {
		g.nameRank[id] = int32(rank)
	}
	g.keysByName = g.keysByName[:0]
	for _, id := range byName {
		if g.chanMeta[id].key >= 0 {
			g.keysByName = append(g.keysByName, g.channelOrder[id])
		}
	}
	none := make([]any, len(g.channelOrder))
	for id := range none {
		none[id] = absent
	}
	noValues := denseBase(none)
	g.noValues = &noValues
	g.trigNodes = make([][]*node, len(g.channelOrder))
	for name, nodes := range g.triggerToNodes {
		if id, ok := g.chanIDs[name]; ok {
			for _, n := range nodes { // sorted by name
				g.trigNodes[id] = append(g.trigNodes[id], g.nodes[n])
			}
		}
	}
	g.nodeList = make([]*node, len(g.nodeOrder))
	for i, name := range g.nodeOrder {
		g.nodeList[i] = g.nodes[name]
	}
	g.tasksID = g.chanIDs[TasksChannel]
	g.startID = g.chanIDs[Start]
	for i, name := range g.nodeOrder {
		n := g.nodes[name]
		n.ord, n.seenAt = i, g.seenSlots+1
		g.seenSlots += len(n.triggers)
		n.trigIDs = make([]chanID, len(n.triggers))
		for i, t := range n.triggers {
			id, ok := g.chanIDs[t]
			if !ok {
				id = -1 // not a channel: never available
			}
			n.trigIDs[i] = id
		}
	}
	noVersions := denseBase(make([]Version, len(g.channelOrder)+g.seenSlots+len(g.nodeOrder)))
	g.noVersions = &noVersions
}
