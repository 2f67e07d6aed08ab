package draw_test

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/draw"
	"github.com/superstep/superstep/graphs"
)

var update = flag.Bool("update", false, "rewrite the golden drawings under testdata/")

// TestDraw_BuiltinGraphs compares the drawing of each built-in graph with
// its golden file (regenerate with -update and review).
func TestDraw_BuiltinGraphs(t *testing.T) {
	for _, ex := range graphs.All() {
		t.Run(ex.Name, func(t *testing.T) {
			g, err := ex.Build()
			if err != nil {
				t.Fatal(err)
			}
			got := draw.Draw(draw.FromInfo(g.Describe())).String()
			path := filepath.Join("testdata", ex.Name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Fatalf("drawing differs:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// randomGraph is a DAG-ish graph of n nodes with forward and a few back
// edges, some dashed.
func randomGraph(rng *rand.Rand, n int) draw.Graph {
	g := draw.Graph{Nodes: []string{"__start__"}}
	for i := 0; i < n; i++ {
		g.Nodes = append(g.Nodes, fmt.Sprintf("node_%02d", i))
	}
	g.Nodes = append(g.Nodes, "__end__")
	g.Edges = append(g.Edges, draw.Edge{From: "__start__", To: "node_00"})
	for i := 0; i < n; i++ {
		from := fmt.Sprintf("node_%02d", i)
		for k := 0; k < 1+rng.Intn(2); k++ {
			to := "__end__"
			if j := i + 1 + rng.Intn(4); j < n {
				to = fmt.Sprintf("node_%02d", j)
			}
			g.Edges = append(g.Edges, draw.Edge{From: from, To: to, Kind: draw.EdgeKind(rng.Intn(2))})
		}
		if rng.Intn(8) == 0 && i > 2 {
			g.Edges = append(g.Edges, draw.Edge{From: from, To: fmt.Sprintf("node_%02d", rng.Intn(i)), Kind: draw.Dashed})
		}
	}
	return g
}

// Boxes never overlap, every node is drawn with its name, every line has
// the drawing's width, and the same graph draws the same text.
func TestDraw_RandomGraphs_Invariants(t *testing.T) {
	seed := int64(1)
	for s := seed; s < seed+30; s++ {
		rng := rand.New(rand.NewSource(s))
		g := randomGraph(rng, 5+rng.Intn(45))
		d := draw.Draw(g)
		if d2 := draw.Draw(g); d2.String() != d.String() {
			t.Fatalf("seed %d: two drawings of one graph differ", s)
		}
		for _, n := range g.Nodes {
			b, ok := d.Boxes[n]
			if !ok {
				t.Fatalf("seed %d: %s has no box", s, n)
			}
			if !strings.Contains(string([]rune(d.Lines[b.Y+1])[b.X:b.X+b.W]), n) {
				t.Fatalf("seed %d: %s is not written in its box:\n%s", s, n, d)
			}
			for m, o := range d.Boxes {
				if m != n && b.X < o.X+o.W && o.X < b.X+b.W && b.Y < o.Y+o.H && o.Y < b.Y+b.H {
					t.Fatalf("seed %d: boxes %s and %s overlap", s, n, m)
				}
			}
		}
		for i, l := range d.Lines {
			if len([]rune(l)) != d.Width {
				t.Fatalf("seed %d: line %d is %d runes, width %d", s, i, len([]rune(l)), d.Width)
			}
		}
	}
}

// BenchmarkDraw_50Nodes is the target: a 50-node graph drawn in
// under 20 ms.
func BenchmarkDraw_50Nodes(b *testing.B) {
	g := randomGraph(rand.New(rand.NewSource(7)), 50)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		draw.Draw(g)
	}
}

func TestDraw_Print50(t *testing.T) {
	if os.Getenv("DRAW_PRINT") == "" {
		t.Skip("set DRAW_PRINT=1 to print a 50-node drawing")
	}
	fmt.Print(draw.Draw(randomGraph(rand.New(rand.NewSource(7)), 12)).String())
}
