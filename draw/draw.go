package draw

import (
	"sort"
	"strings"

	"github.com/superstep/superstep/engine"
)

// EdgeKind is how an edge is drawn.
type EdgeKind int

const (
	// Solid is a plain edge (and each branch of a join).
	Solid EdgeKind = iota
	// Dashed is a conditional edge, a Send target or a Command goto.
	Dashed
)

// Edge is one arrow of the drawing.
type Edge struct {
	From, To string
	Kind     EdgeKind
}

// Graph is what Draw draws: nodes in declaration order and edges.
type Graph struct {
	Nodes []string
	Edges []Edge
}

// FromInfo is the drawing's view of a compiled graph: __start__, the
// nodes, __end__ when an edge reaches it; edges, conditional edges (any
// destination "*" is left out: it names no node), joins and declared
// Command gotos.
func FromInfo(info engine.GraphInfo) Graph {
	g := Graph{Nodes: []string{engine.Start}}
	known := map[string]bool{engine.Start: true}
	for _, n := range info.Nodes {
		g.Nodes = append(g.Nodes, n.Name)
		known[n.Name] = true
	}
	add := func(from, to string, k EdgeKind) {
		if to == engine.End && !known[engine.End] {
			g.Nodes = append(g.Nodes, engine.End)
			known[engine.End] = true
		}
		if known[from] && known[to] {
			g.Edges = append(g.Edges, Edge{From: from, To: to, Kind: k})
		}
	}
	for _, e := range info.Edges {
		k := Solid
		if e.Conditional {
			k = Dashed
		}
		for _, f := range e.From {
			add(f, e.To, k)
		}
	}
	for _, n := range info.Nodes {
		for _, to := range n.Ends {
			add(n.Name, to, Dashed)
		}
	}
	return g
}

// Rect is where a node's box is drawn, in cells.
type Rect struct{ X, Y, W, H int }

// Drawing is a drawn graph. Lines are plain text of equal width (in
// runes); Boxes says where each node's box is, for callers that color
// them.
type Drawing struct {
	Lines  []string
	Width  int
	Boxes  map[string]Rect
	Layers int
}

// String is the drawing as one text, lines ending in newlines, trailing
// spaces trimmed.
func (d *Drawing) String() string {
	var b strings.Builder
	for _, l := range d.Lines {
		b.WriteString(strings.TrimRight(l, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

const (
	boxH   = 3 // top border, name, bottom border
	gapH   = 3 // rows between layers: leave, track, arrow
	gapW   = 3 // columns between neighbours in a layer
	labelW = 1 // space between a box and its back-edge label
)

// item is one slot of a layer: a node's box or a placeholder column of an
// edge that skips the layer.
type item struct {
	name  string // node name, or "" for a placeholder
	label string // "⟲ a, b": edges back to earlier layers
	w     int    // box width (placeholders: 1)
	x     int    // left column
	pos   float64
	kind  EdgeKind // a placeholder's: how the edge through it is drawn
	up    []*item  // items in the layer above linked to this one
	down  []*item
	kinds map[*item]EdgeKind // kind of the link to each item below
}

func (it *item) center() int {
	if it.name == "" {
		return it.x
	}
	return it.x + it.w/2
}

// Draw lays g out and draws it. It never fails: edges naming unknown nodes
// are ignored.
func Draw(g Graph) *Drawing {
	index := map[string]int{}
	for i, n := range g.Nodes {
		index[n] = i
	}
	out := map[string][]Edge{}
	for _, e := range g.Edges {
		if _, ok := index[e.From]; !ok {
			continue
		}
		if _, ok := index[e.To]; !ok {
			continue
		}
		out[e.From] = append(out[e.From], e)
	}
	forward, back := splitBackEdges(g.Nodes, out)
	layer := assignLayers(g.Nodes, forward)
	layers, items := buildLayers(g.Nodes, layer, forward, back)
	orderLayers(layers)
	placeLayers(layers)
	return render(layers, items)
}

// splitBackEdges walks the graph depth first from __start__ (then from
// any node not reached, in declaration order); an edge to a node still on
// the walk's stack closes a cycle and is set aside.
func splitBackEdges(nodes []string, out map[string][]Edge) (forward, back []Edge) {
	const (
		unseen = iota
		onStack
		done
	)
	state := map[string]int{}
	var visit func(n string)
	visit = func(n string) {
		state[n] = onStack
		for _, e := range out[n] {
			switch state[e.To] {
			case onStack:
				back = append(back, e)
			case unseen:
				forward = append(forward, e)
				visit(e.To)
			default:
				forward = append(forward, e)
			}
		}
		state[n] = done
	}
	for _, n := range nodes {
		if state[n] == unseen {
			visit(n)
		}
	}
	return forward, back
}

// assignLayers gives each node the length of its longest forward path
// from a source; __end__ goes below everything.
func assignLayers(nodes []string, forward []Edge) map[string]int {
	indeg := map[string]int{}
	succ := map[string][]string{}
	for _, e := range forward {
		indeg[e.To]++
		succ[e.From] = append(succ[e.From], e.To)
	}
	layer := map[string]int{}
	var queue []string
	for _, n := range nodes {
		if indeg[n] == 0 {
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, s := range succ[n] {
			layer[s] = max(layer[s], layer[n]+1)
			if indeg[s]--; indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	if _, ok := layer[engine.End]; ok || contains(nodes, engine.End) {
		deepest := 0
		for n, l := range layer {
			if n != engine.End {
				deepest = max(deepest, l)
			}
		}
		layer[engine.End] = deepest + 1
	}
	return layer
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// buildLayers makes the items: a box per node in its layer, placeholders
// along edges that skip layers, and back-edge labels.
func buildLayers(nodes []string, layer map[string]int, forward, back []Edge) ([][]*item, map[string]*item) {
	depth := 0
	for _, n := range nodes {
		depth = max(depth, layer[n]+1)
	}
	layers := make([][]*item, depth)
	items := map[string]*item{}
	for _, n := range nodes {
		it := &item{name: n, w: len([]rune(n)) + 4, kinds: map[*item]EdgeKind{}}
		items[n] = it
		layers[layer[n]] = append(layers[layer[n]], it)
	}
	backTo := map[string][]string{}
	for _, e := range back {
		backTo[e.From] = append(backTo[e.From], e.To)
	}
	for n, tos := range backTo {
		items[n].label = "⟲ " + strings.Join(dedupe(tos), ", ")
	}
	link := func(a, b *item, k EdgeKind) {
		if _, ok := a.kinds[b]; ok {
			if k == Solid {
				a.kinds[b] = Solid
			}
			return
		}
		a.down = append(a.down, b)
		b.up = append(b.up, a)
		a.kinds[b] = k
	}
	for _, e := range forward {
		from, to := items[e.From], items[e.To]
		prev := from
		for l := layer[e.From] + 1; l < layer[e.To]; l++ {
			ph := &item{w: 1, kind: e.Kind, kinds: map[*item]EdgeKind{}}
			layers[l] = append(layers[l], ph)
			link(prev, ph, e.Kind)
			prev = ph
		}
		link(prev, to, e.Kind)
	}
	return layers, items
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// orderLayers reduces crossings: items start in creation order, then
// sweeps down and up sort each layer by the mean position of its
// neighbours in the layer just fixed.
func orderLayers(layers [][]*item) {
	renumber := func(l []*item) {
		for i, it := range l {
			it.pos = float64(i)
		}
	}
	for _, l := range layers {
		renumber(l)
	}
	bary := func(l []*item, nb func(*item) []*item) {
		for _, it := range l {
			ns := nb(it)
			if len(ns) == 0 {
				continue
			}
			sum := 0.0
			for _, n := range ns {
				sum += n.pos
			}
			it.pos = sum / float64(len(ns))
		}
		sort.SliceStable(l, func(i, j int) bool { return l[i].pos < l[j].pos })
		renumber(l)
	}
	for sweep := 0; sweep < 4; sweep++ {
		for i := 1; i < len(layers); i++ {
			bary(layers[i], func(it *item) []*item { return it.up })
		}
		for i := len(layers) - 2; i >= 0; i-- {
			bary(layers[i], func(it *item) []*item { return it.down })
		}
	}
}

// span is the columns an item takes: its box and its label.
func (it *item) span() int {
	if it.label == "" {
		return it.w
	}
	return it.w + labelW + len([]rune(it.label))
}

// placeLayers gives each item a column: under the mean center of its
// parents where it can, never overlapping its left neighbour; then the
// whole drawing shifts right so nothing is left of column 0.
func placeLayers(layers [][]*item) {
	for li, l := range layers {
		next := -1 << 30 // the first item may go left of 0; all shift below
		for _, it := range l {
			want := max(next, 0)
			if li > 0 && len(it.up) > 0 {
				sum := 0
				for _, p := range it.up {
					sum += p.center()
				}
				c := sum / len(it.up)
				if it.name == "" {
					want = c
				} else {
					want = c - it.w/2
				}
			}
			it.x = max(want, next)
			next = it.x + it.span() + gapW
		}
	}
	minX := 1 << 30
	for _, l := range layers {
		for _, it := range l {
			minX = min(minX, it.x)
		}
	}
	for _, l := range layers {
		for _, it := range l {
			it.x -= minX
		}
	}
}

// Direction bits of a cell's line segments.
const (
	up = 1 << iota
	down
	left
	right
)

// canvas is a grid of cells: line segments (merged into box-drawing
// runes) or text.
type canvas struct {
	w, h   int
	lines  []uint8 // direction bits per cell
	dashed []bool  // every segment of the cell is dashed
	text   []rune  // text or a fixed rune, 0 when none
}

func newCanvas(w, h int) *canvas {
	return &canvas{w: w, h: h, lines: make([]uint8, w*h), dashed: make([]bool, w*h), text: make([]rune, w*h)}
}

func (c *canvas) seg(x, y int, bits uint8, dashed bool) {
	if x < 0 || y < 0 || x >= c.w || y >= c.h {
		return
	}
	i := y*c.w + x
	if c.lines[i] == 0 {
		c.dashed[i] = dashed
	} else if !dashed {
		c.dashed[i] = false
	}
	c.lines[i] |= bits
}

func (c *canvas) put(x, y int, r rune) {
	if x >= 0 && y >= 0 && x < c.w && y < c.h {
		c.text[y*c.w+x] = r
	}
}

func (c *canvas) write(x, y int, s string) {
	for _, r := range s {
		c.put(x, y, r)
		x++
	}
}

// vline draws from (x, y0) down to (x, y1).
func (c *canvas) vline(x, y0, y1 int, dashed bool) {
	for y := y0; y <= y1; y++ {
		var b uint8
		if y > y0 {
			b |= up
		}
		if y < y1 {
			b |= down
		}
		c.seg(x, y, b, dashed)
	}
}

// hline draws from (x0, y) to (x1, y), either way.
func (c *canvas) hline(x0, x1, y int, dashed bool) {
	if x0 > x1 {
		x0, x1 = x1, x0
	}
	for x := x0; x <= x1; x++ {
		var b uint8
		if x > x0 {
			b |= left
		}
		if x < x1 {
			b |= right
		}
		c.seg(x, y, b, dashed)
	}
}

var solidRunes = [16]rune{
	0: ' ', up: '│', down: '│', up | down: '│', left: '─', right: '─', left | right: '─',
	down | right: '┌', down | left: '┐', up | right: '└', up | left: '┘',
	up | down | right: '├', up | down | left: '┤', down | left | right: '┬', up | left | right: '┴',
	up | down | left | right: '┼',
}

func (c *canvas) rune(i int) rune {
	if c.text[i] != 0 {
		return c.text[i]
	}
	b := c.lines[i]
	if c.dashed[i] {
		switch b {
		case up, down, up | down:
			return '╎'
		case left, right, left | right:
			return '╌'
		}
	}
	return solidRunes[b]
}

func render(layers [][]*item, items map[string]*item) *Drawing {
	w := 1
	for _, l := range layers {
		for _, it := range l {
			w = max(w, it.x+it.span())
		}
	}
	h := len(layers)*boxH + max(0, len(layers)-1)*gapH
	c := newCanvas(w, h)
	d := &Drawing{Width: w, Boxes: map[string]Rect{}, Layers: len(layers)}
	top := func(li int) int { return li * (boxH + gapH) }
	for li, l := range layers {
		y := top(li)
		for _, it := range l {
			if it.name == "" {
				c.vline(it.x, y, y+boxH-1, it.kind == Dashed)
				continue
			}
			drawBox(c, it, y)
			d.Boxes[it.name] = Rect{X: it.x, Y: y, W: it.w, H: boxH}
		}
	}
	// Edges between adjacent layers: down from the source's bottom, along
	// the track row, down into the target with an arrow (a placeholder
	// just continues).
	for li, l := range layers {
		if li+1 >= len(layers) {
			break
		}
		y0 := top(li) + boxH // first gap row
		track := y0 + 1
		y1 := top(li+1) - 1 // the row above the next layer
		for _, it := range l {
			sx := it.center()
			for _, to := range it.down {
				dashed := it.kinds[to] == Dashed
				tx := to.center()
				c.vline(sx, y0, track, dashed)
				c.hline(sx, tx, track, dashed)
				c.vline(tx, track, y1, dashed)
				if to.name != "" {
					c.put(tx, y1, '▼')
				} else {
					c.seg(tx, y1, down, dashed)
				}
			}
		}
	}
	for y := 0; y < h; y++ {
		row := make([]rune, w)
		for x := 0; x < w; x++ {
			row[x] = c.rune(y*w + x)
		}
		d.Lines = append(d.Lines, string(row))
	}
	return d
}

func drawBox(c *canvas, it *item, y int) {
	x0, x1 := it.x, it.x+it.w-1
	for x := x0; x <= x1; x++ {
		c.put(x, y, '─')
		c.put(x, y+2, '─')
	}
	c.put(x0, y, '┌')
	c.put(x1, y, '┐')
	c.put(x0, y+2, '└')
	c.put(x1, y+2, '┘')
	c.put(x0, y+1, '│')
	c.put(x1, y+1, '│')
	c.write(x0+2, y+1, it.name)
	c.put(x0+1, y+1, ' ')
	c.put(x1-1, y+1, ' ')
	if len(it.down) > 0 {
		c.put(it.center(), y+2, '┬')
	}
	if it.label != "" {
		c.write(x1+1+labelW, y+1, it.label)
	}
}
