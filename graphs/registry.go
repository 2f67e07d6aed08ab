package graphs

import (
	"fmt"
	"sort"
	"sync"

	"github.com/superstep/superstep/engine"
)

// Example is a graph the command line and the debugger can open by name.
type Example struct {
	Name        string // what the command line and the debugger call it
	Description string // one line for lists and help
	// Build compiles the graph with the given options (a saver, breakpoints).
	Build func(opts ...engine.CompileOption) (*engine.Graph, error)
	// Input is the example input of a new thread.
	Input map[string]any
	// Answers suggests replies to the graph's interrupts, for help texts.
	Answers []string
}

var (
	mu       sync.RWMutex
	registry = map[string]Example{}
)

// Register adds an example; it returns an error if the name is taken or the
// example is incomplete. Programs embedding superstep register their own
// graphs this way to open them in the debugger.
func Register(e Example) error {
	if e.Name == "" || e.Build == nil {
		return fmt.Errorf("graphs: an example needs a name and a Build function")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[e.Name]; dup {
		return fmt.Errorf("graphs: %q is already registered", e.Name)
	}
	registry[e.Name] = e
	return nil
}

func mustRegister(e Example) {
	if err := Register(e); err != nil {
		panic(err)
	}
}

// Get returns the example called name.
func Get(name string) (Example, bool) {
	mu.RLock()
	defer mu.RUnlock()
	e, ok := registry[name]
	return e, ok
}

// All lists the examples sorted by name.
func All() []Example {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Example, 0, len(registry))
	for _, e := range registry {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Default is the example the debugger opens with no arguments: it shows
// Send, an interrupt and a Command.
const Default = "research"
