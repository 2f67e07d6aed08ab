package main

import (
	"fmt"
	"reflect"
)

// The four workloads of testdata/perf (see gen_perf.py there), with the
// final state every system must reach. Supersteps count LangGraph's, the
// hidden __start__ one included, so allocations per superstep compare
// across systems on the same denominator.
const (
	chainNodes = 1000
	fanoutN    = 1000
	loopSteps  = 5000
	loopRounds = loopSteps / 2
	wideKeys   = 200
	wideNodes  = 100
	widePer    = 10
)

// workload names one of the four and says how many supersteps it has.
type workload struct {
	name       string
	supersteps int
}

var workloads = []workload{
	{"chain_1000", chainNodes + 1},
	{"fanout_1000", 4},
	{"loop_5000", loopSteps + 1},
	{"wide_state", wideNodes + 1},
}

// wideKey is the state key that node i writes as its j-th update.
func wideKey(i, j int) int { return (i*widePer + j) % wideKeys }

// wideExpected is key k's final value: the sum of i+1 over the nodes i
// that write it (computed by replaying the writes, not by a formula).
func wideExpected() [wideKeys]int {
	var out [wideKeys]int
	for i := 0; i < wideNodes; i++ {
		for j := 0; j < widePer; j++ {
			out[wideKey(i, j)] += i + 1
		}
	}
	return out
}

// fanoutExpected is results after the fan-out: item x doubled, in Send order.
func fanoutExpected() []int {
	out := make([]int, fanoutN)
	for i := range out {
		out[i] = 2 * i
	}
	return out
}

// asInt reads a number that a runtime may have kept as int or turned into
// float64 (JSON round trips).
func asInt(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case float64:
		if x != float64(int(x)) {
			return 0, fmt.Errorf("%v is not an integer", x)
		}
		return int(x), nil
	default:
		return 0, fmt.Errorf("%v (%T) is not a number", v, v)
	}
}

// checkInt asserts that state[key] is want.
func checkInt(state map[string]any, key string, want int) error {
	got, err := asInt(state[key])
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if got != want {
		return fmt.Errorf("%s = %d, want %d", key, got, want)
	}
	return nil
}

// checkIntList asserts that state[key] is the list want (any list of numbers).
func checkIntList(state map[string]any, key string, want []int) error {
	rv := reflect.ValueOf(state[key])
	if rv.Kind() != reflect.Slice {
		return fmt.Errorf("%s is %T, not a list", key, state[key])
	}
	if rv.Len() != len(want) {
		return fmt.Errorf("%s has %d items, want %d", key, rv.Len(), len(want))
	}
	for i, w := range want {
		got, err := asInt(rv.Index(i).Interface())
		if err != nil {
			return fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		if got != w {
			return fmt.Errorf("%s[%d] = %d, want %d", key, i, got, w)
		}
	}
	return nil
}

// checkFinal asserts a map state's final values for a workload.
func checkFinal(wl string, state map[string]any) error {
	switch wl {
	case "chain_1000":
		return checkInt(state, "n", chainNodes)
	case "fanout_1000":
		if err := checkIntList(state, "results", fanoutExpected()); err != nil {
			return err
		}
		return checkInt(state, "total", fanoutN)
	case "loop_5000":
		if err := checkInt(state, "n", loopRounds); err != nil {
			return err
		}
		return checkInt(state, "m", loopRounds)
	case "wide_state":
		for k, want := range wideExpected() {
			if err := checkInt(state, wideName(k), want); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown workload %q", wl)
}

var wideNames = func() [wideKeys]string {
	var out [wideKeys]string
	for k := range out {
		out[k] = fmt.Sprint("k", k)
	}
	return out
}()

func wideName(k int) string { return wideNames[k] }
