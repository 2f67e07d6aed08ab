package persist

import (
	"fmt"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestEncodePut_EveryChannelFound checks that the values Put encodes
// before queueing are found again by channel, whether they are few (a
// list searched in turn) or many (an index): each changed channel's whole
// encoding, a list's appended suffix, a versioned channel without a
// value, and an unchanged channel encoded only when asked for.
func TestEncodePut_EveryChannelFound(t *testing.T) {
	for _, n := range []int{2, preIndexed, preIndexed + 1, 40} {
		t.Run(fmt.Sprint("changed=", n), func(t *testing.T) {
			cp := &engine.Checkpoint{
				ChannelValues:   map[string]any{"same": "kept"},
				ChannelVersions: map[string]engine.Version{"same": 1},
				Appends:         map[string]engine.ListAppend{},
			}
			changed := map[string]engine.Version{}
			for i := range n {
				ch := fmt.Sprint("c", i)
				switch i % 3 {
				case 0: // a whole value
					cp.ChannelValues[ch] = float64(i)
				case 1: // a list that grew from version 1 by one element
					cp.ChannelValues[ch] = []any{"old", float64(i)}
					cp.Appends[ch] = engine.ListAppend{From: 1, Len: 1}
				case 2: // versioned, no value
				}
				cp.ChannelVersions[ch] = 2
				changed[ch] = 2
			}
			pv, err := encodePut(cp, changed)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := pv.preAt != nil, n > preIndexed; got != want {
				t.Errorf("indexed = %v, want %v", got, want)
			}
			for i := range n {
				ch := fmt.Sprint("c", i)
				enc, has, err := pv.full(ch)
				if err != nil {
					t.Fatal(err)
				}
				suffix, appended := pv.appended(ch, 1)
				switch i % 3 {
				case 0:
					if !has || string(enc) != fmt.Sprint(i) || appended || pv.accounted(ch) {
						t.Errorf("%s: full %q %v, appended %v", ch, enc, has, appended)
					}
				case 1:
					if !has || string(enc) != fmt.Sprintf(`["old",%d]`, i) {
						t.Errorf("%s: full %q %v", ch, enc, has)
					}
					if !appended || string(suffix) != fmt.Sprintf(",%d", i) || !pv.accounted(ch) {
						t.Errorf("%s: appended %q %v, accounted %v", ch, suffix, appended, pv.accounted(ch))
					}
					if _, ok := pv.appended(ch, 2); ok {
						t.Errorf("%s: appended to a version it did not grow from", ch)
					}
				case 2:
					if has || enc != nil || appended {
						t.Errorf("%s: full %q %v, appended %v", ch, enc, has, appended)
					}
				}
			}
			late := pv.late
			if enc, has, err := pv.full("same"); err != nil || !has || string(enc) != `"kept"` || pv.late-late != len(enc) {
				t.Errorf("unchanged: full %q %v %v, encoded late %d", enc, has, err, pv.late-late)
			}
			if _, has, _ := pv.full("absent"); has {
				t.Error("a channel with no value was found")
			}
			if pv.accounted("absent") {
				t.Error("a channel with no value was accounted")
			}
		})
	}
}
