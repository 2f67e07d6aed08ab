package postgres

import (
	"encoding/json"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestRecordJSON: the hand-written encodings are byte for byte what
// encoding/json writes, for plain and awkward names, nil and empty maps.
func TestRecordJSON(t *testing.T) {
	odd := "a\"b\\c<d>&e\n\x01é\u2028\xff"
	meta, err := json.Marshal(metaRecord{Source: "loop", Step: 3})
	if err != nil {
		t.Fatal(err)
	}
	recs := []*cpRecord{
		{},
		{V: 4, TS: -5, Updated: []string{}, Meta: meta, Refs: map[string][3]int64{}, Seen: map[string]map[string]int64{}},
		{V: 4, TS: 1764500000000000000, Updated: []string{"messages", odd}, Meta: meta, Depth: 7,
			Refs:    map[string][3]int64{"b": {1, -2, 3}, "a": {4, 5, 6}, odd: {7, 8, 9}},
			Del:     []string{"x", odd},
			Seen:    map[string]map[string]int64{"node": {"z": 1, "a": 2}, "nil": nil, "empty": {}, odd: {odd: 3}},
			SeenDel: []string{odd, "y"}},
	}
	for i, rec := range recs {
		want, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendRecordJSON(nil, rec); string(got) != string(want) {
			t.Errorf("record %d:\n got %s\nwant %s", i, got, want)
		}
	}
	metas := []*metaRecord{
		{},
		{Source: "input", Step: -1, Parents: map[string]string{}},
		{Source: odd, Step: 12, Parents: map[string]string{"": "1ef", "sub:" + odd: odd, "a": "b"}},
		{Source: "loop", Extra: map[string]json.RawMessage{"run": json.RawMessage(`{ "b" : 1 }`)}},
	}
	for i, m := range metas {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendMetaJSON(nil, m)
		if err != nil || string(got) != string(want) {
			t.Errorf("metadata %d:\n got %s %v\nwant %s", i, got, err, want)
		}
		if m.Extra != nil {
			continue
		}
		// What Put stores.
		got, err = encodeMeta(engine.Metadata{Source: m.Source, Step: m.Step, Parents: m.Parents})
		if err != nil || string(got) != string(want) {
			t.Errorf("encodeMeta of metadata %d:\n got %s %v\nwant %s", i, got, err, want)
		}
	}
}
