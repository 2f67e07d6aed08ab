package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestPlanFromRecord_Lines: a topology whose fingerprint matches it but
// that has a line or a channel kind this build does not know, or a trigger
// that is no channel, decides nothing; a channel kind with a reducer's
// name after it reads.
func TestPlanFromRecord_Lines(t *testing.T) {
	base := []string{
		"channel __pregel_tasks Topic",
		"channel __start__ EphemeralValue",
		"channel branch:to:a EphemeralValue",
		"channel log BinaryOperatorAggregate(add messages)",
		"edge __start__ -> a",
		"node __start__ triggers __start__",
		"node a triggers branch:to:a",
	}
	record := func(lines ...string) GraphRecord {
		slices.Sort(lines) // as Topology lists them
		return GraphRecord{Graph: "g", Fingerprint: fingerprintOf(lines), Topology: lines}
	}
	p, err := PlanFromRecord(record(base...))
	if err != nil {
		t.Fatal(err)
	}
	if kind := p.g.channelSpec["log"].kind; kind != KindReducer {
		t.Errorf("log is a %s", kind)
	}
	for name, lines := range map[string][]string{
		"unknown kind":       append(base[:3:3], "channel log DeltaChannel"),
		"unknown line":       append(base[:3:3], "node a triggers branch:to:a", "node __start__ triggers __start__", "subgraph a -> sub"),
		"trigger no channel": {base[0], base[1], "node __start__ triggers __start__", "node a triggers branch:to:a"},
		"no tasks channel":   base[1:],
	} {
		_, err := PlanFromRecord(record(lines...))
		if !errors.Is(err, ErrUndecided) || strings.Contains(err.Error(), "fingerprint") {
			t.Errorf("%s: %v, want ErrUndecided", name, err)
		}
	}
}
