package postgres

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestRecordJSON: the hand-written encodings are byte for byte what
// encoding/json writes, for plain and awkward names, nil and empty maps:
// a new checkpoint's record, full or a delta of its parent's state, and
// metadata.
func TestRecordJSON(t *testing.T) {
	odd := "a\"b\\c<d>&e\n\x01é\u2028\xff"
	meta, err := json.Marshal(metaRecord{Source: "loop", Step: 3})
	if err != nil {
		t.Fatal(err)
	}
	manyRefs, manySeen := map[string]ref{}, map[string]map[string]int64{}
	for i := range 20 { // more names than the encoder keeps on its stack
		manyRefs[fmt.Sprint("ch", i)] = ref{int64(i), int64(-i), 1}
		manySeen[fmt.Sprint("node", i)] = map[string]int64{"ch": int64(i)}
	}
	many := refState(manyRefs, manySeen)
	parent := refState(map[string]ref{"same": {1, 2, 1}, "moved": {1, 2, 1}, "gone": {1, 1, 1}, odd: {5, 5, 5}},
		map[string]map[string]int64{"same": {"a": 1}, "moved": {"a": 1}, "gone": {}, "nil": nil, "empty": {}, odd: {odd: 1}})
	parent.depth = 3
	child := refState(map[string]ref{"same": {1, 2, 1}, "moved": {2, -3, 1}, "new": {2, 4, 2}},
		map[string]map[string]int64{"same": {"a": 1}, "moved": {"a": 2}, "nil": {}, "empty": nil, "new": {odd: 2}})
	deep := *parent
	deep.depth = fullEvery - 1
	for i, c := range []struct {
		upd        []string
		meta       json.RawMessage
		st, parent *cpState
	}{
		{nil, nil, &cpState{}, nil},
		{[]string{}, meta, refState(map[string]ref{}, map[string]map[string]int64{}), nil},
		{[]string{"messages", odd}, meta, parent, nil},
		{[]string{"moved"}, meta, child, parent},
		{[]string{"moved"}, meta, child, &deep}, // the chain is long enough: a full image
		{nil, meta, parent, parent},             // nothing changed
		{nil, meta, &cpState{}, parent},         // everything dropped
		{nil, meta, many, nil},
		{nil, meta, many, parent},
	} {
		rec := wantRecord(4, int64(i)-5, c.upd, c.meta, c.st, c.parent)
		want, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		got, depth := encodeNewRecord(4, int64(i)-5, c.upd, c.meta, nil, c.st, c.parent)
		if got[0] != recordFormat || string(got[1:]) != string(want) || depth != rec.Depth {
			t.Errorf("record %d:\n got %q depth %d\nwant %q depth %d", i, got, depth, append([]byte{recordFormat}, want...), rec.Depth)
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
		md := engine.Metadata{Source: m.Source, Step: m.Step, Parents: m.Parents}
		got, err = encodeMeta(md)
		if err != nil || string(got) != string(want) {
			t.Errorf("encodeMeta of metadata %d:\n got %s %v\nwant %s", i, got, err, want)
		}
		// What Put stores: metadata without Extra written straight into
		// the record, as the record with its encoding holds it.
		st := refState(map[string]ref{"a": {1, 2, 3}}, nil)
		plain, _ := encodeNewRecord(4, 5, nil, nil, &md, st, nil)
		encoded, _ := encodeNewRecord(4, 5, nil, want, nil, st, nil)
		if string(plain) != string(encoded) {
			t.Errorf("record with metadata %d:\n got %s\nwant %s", i, plain, encoded)
		}
	}
}

// refState is a state with refs and seen, its refs sorted by channel as
// states keep them.
func refState(refs map[string]ref, seen map[string]map[string]int64) *cpState {
	st := &cpState{refs: []chanRef{}, seen: seen}
	for ch, r := range refs {
		st.refs = append(st.refs, chanRef{ch, r})
	}
	slices.SortFunc(st.refs, byChannel)
	return st
}

// refMap is st's refs as a map.
func refMap(st *cpState) map[string]ref {
	m := map[string]ref{}
	for _, c := range st.refs {
		m[c.channel] = c.ref
	}
	return m
}

// wantRecord is the record encodeNewRecord's doc describes, built as a
// cpRecord.
func wantRecord(v int, ts int64, upd []string, meta json.RawMessage, st, parent *cpState) *cpRecord {
	rec := &cpRecord{V: v, TS: ts, Updated: upd, Meta: meta, Refs: map[string][3]int64{}, Seen: map[string]map[string]int64{}}
	refs := refMap(st)
	if parent == nil || parent.depth+1 >= fullEvery {
		for ch, r := range refs {
			rec.Refs[ch] = [3]int64{r.Version, r.Hash, r.Root}
		}
		maps.Copy(rec.Seen, st.seen)
		return rec
	}
	rec.Depth = parent.depth + 1
	prevRefs := refMap(parent)
	for ch, r := range refs {
		if p, ok := prevRefs[ch]; !ok || p != r {
			rec.Refs[ch] = [3]int64{r.Version, r.Hash, r.Root}
		}
	}
	for ch := range prevRefs {
		if _, ok := refs[ch]; !ok {
			rec.Del = append(rec.Del, ch)
		}
	}
	for n, m := range st.seen {
		if p, ok := parent.seen[n]; !ok || !seenEqual(p, m) {
			rec.Seen[n] = m
		}
	}
	for n := range parent.seen {
		if _, ok := st.seen[n]; !ok {
			rec.SeenDel = append(rec.SeenDel, n)
		}
	}
	slices.Sort(rec.Del)
	slices.Sort(rec.SeenDel)
	return rec
}
