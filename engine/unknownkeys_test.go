package engine_test

import (
	"testing"

	"github.com/superstep/superstep/engine"
)

// An unknown key close to a state key says which one it likely meant;
// one close to none lists the state keys alone.
func TestUnknownKeysError_SaysTheLikelyKey(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{[]string{"lgo"}, "lgo is not a state key of graph g (did you mean log? state keys: log, total)"},
		{[]string{"lgo", "totl"}, "lgo, totl are not state keys of graph g (did you mean log for lgo, total for totl? state keys: log, total)"},
		{[]string{"lgo", "zzzzzz"}, "lgo, zzzzzz are not state keys of graph g (did you mean log for lgo? state keys: log, total)"},
		{[]string{"zzzzzz"}, "zzzzzz is not a state key of graph g (state keys: log, total)"},
	} {
		err := &engine.UnknownKeysError{Graph: "g", Keys: tc.keys, StateKeys: []string{"log", "total"}}
		if got := err.Error(); got != tc.want {
			t.Errorf("%v:\n got %s\nwant %s", tc.keys, got, tc.want)
		}
	}
}
