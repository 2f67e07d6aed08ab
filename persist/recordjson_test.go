package persist

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// sampleRecords are records the store writes: the first three the fast
// reader must take (a full image, a delta with every field, an update),
// then ones it leaves to the fallback (metadata extras, escapes) or takes
// at the edges (non-ASCII, the largest numbers).
func sampleRecords() []*cpRecord {
	ts := time.Date(2026, 11, 30, 13, 52, 24, 129684133, time.UTC)
	return []*cpRecord{
		{V: 4, TS: ts, Versions: map[string]int64{"__start__": 1}, Seen: map[string]map[string]int64{"__input__": {}}, Meta: mdRecord{Source: "input", Step: -1, Parents: map[string]string{}}},
		{V: 4, TS: ts, Parent: "18ecd6ff-77df-56e4-0000-000000000002", Delta: true, Depth: 2, Versions: map[string]int64{"branch:to:agent": 3, "last": 3, "step": 3},
			Seqs: map[string]uint64{"last": 1 << 40}, Dropped: []string{"old"}, Seen: map[string]map[string]int64{"agent": {"branch:to:agent": 2}, "gone": nil},
			SeenDropped: []string{"x", "y"}, Updated: []string{"branch:to:agent", "last", "step"}, Meta: mdRecord{Source: "loop", Step: 1, Parents: map[string]string{"": "p1", "sub:1": "p2"}}},
		{V: 4, TS: ts, Updated: []string{}, Meta: mdRecord{Source: "update", Step: 7}},
		{V: 4, TS: ts.Add(-time.Hour).In(time.FixedZone("x", 3600)), Meta: mdRecord{Source: "fork", Step: 0, Extra: map[string]json.RawMessage{"edited": json.RawMessage(`"a"`)}}},
		{V: 4, TS: ts, Versions: map[string]int64{"quote\"d": 1, "tab\t": -9223372036854775808, "ünï": 9223372036854775807}, Meta: mdRecord{Source: "loop\n", Step: 2}},
		{V: 4, TS: ts, Parent: "<html>&", Meta: mdRecord{Source: "\u2028", Step: 3}},
	}
}

// TestParseRecord_MatchesEncodingJSON: the fast reader of checkpoint
// records either gives up or reads exactly what encoding/json reads, on
// the records the store writes and on every damaged variant of them.
func TestParseRecord_MatchesEncodingJSON(t *testing.T) {
	fast := 0
	for i, r := range sampleRecords() {
		enc, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		data := enc[1:]
		if agree(t, data) {
			fast++
		} else if i < 3 {
			t.Errorf("record %d (%s) went to the fallback; the fast reader must read what the store writes", i, data)
		}
		// Damage: every byte changed to each of a few troublesome bytes,
		// bytes dropped and inserted, at random.
		rng := rand.New(rand.NewPCG(uint64(i), 17))
		for range 3000 {
			d := append([]byte(nil), data...)
			pos := rng.IntN(len(d))
			switch rng.IntN(3) {
			case 0:
				d[pos] = "\"{}[],:09.eEtfnul\\ \x00\xff"[rng.IntN(21)]
			case 1:
				d = append(d[:pos], d[pos+1:]...)
			default:
				d = append(d[:pos], append([]byte{"\"{}[],:09-.e \\"[rng.IntN(14)]}, d[pos:]...)...)
			}
			agree(t, d)
		}
	}
	if fast < 3 {
		t.Errorf("only %d sample records read fast", fast)
	}
}

// agree checks parseRecord against encoding/json on data and reports
// whether the fast reader took it.
func agree(t *testing.T, data []byte) bool {
	t.Helper()
	var got cpRecord
	if !parseRecord(data, &got, map[string]string{}) {
		return false
	}
	var want cpRecord
	if err := decodeRecordJSON(data, &want); err != nil {
		t.Fatalf("fast reader accepted %q, encoding/json refuses it: %v", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nfast %+v\njson %+v", data, got, want)
	}
	return true
}

// TestParseRecord_Allocations: a delta record with three versions and a
// node's versions_seen costs a bounded number of allocations once its
// names are interned (the maps and the parent id), not a copy of every
// name.
func TestParseRecord_Allocations(t *testing.T) {
	enc, err := encodeRecord(sampleRecords()[1])
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	var r cpRecord
	parseRecord(enc[1:], &r, names)
	allocs := testing.AllocsPerRun(100, func() {
		r = cpRecord{}
		if !parseRecord(enc[1:], &r, names) {
			t.Fatal("fallback")
		}
	})
	// Maps: cv, cs, vs and its two inner ones, parents; slices: cvx, vsx,
	// upd; strings: parent and the parents' two ids; the time's zone. The
	// names are shared.
	// 16 of them; the race detector adds a few. Copying the names would
	// add 14.
	if allocs > 20 {
		t.Errorf("%v allocations per record, want at most 20", allocs)
	}
}

// TestAppendRecordJSON_MatchesMarshal: the record writer either gives up
// or writes exactly json.Marshal's bytes, on the sample records and on
// random ones with awkward names, ids, numbers and timestamps.
func TestAppendRecordJSON_MatchesMarshal(t *testing.T) {
	plain := []string{"", "a", "branch:to:agent", "__start__", "~ok", "1f0c-2"}
	awkward := []string{"quote\"d", "tab\t", "ünï", "<b>", "a&b", "\u2028", "x\\y", "\x7f"}
	zones := []*time.Location{time.UTC, time.UTC, time.UTC, time.FixedZone("p", 5*3600+30*60), time.FixedZone("m", -8*3600), time.FixedZone("s", 61), time.FixedZone("d", 24*3600)}
	rng := rand.New(rand.NewPCG(3, 9))
	pick := func() string {
		if rng.IntN(200) == 0 {
			return awkward[rng.IntN(len(awkward))]
		}
		return plain[rng.IntN(len(plain))]
	}
	ints := func() map[string]int64 {
		if rng.IntN(4) == 0 {
			return nil
		}
		m := map[string]int64{}
		for range rng.IntN(20) {
			m[pick()+strconv.Itoa(rng.IntN(30))] = rng.Int64() - rng.Int64()
		}
		return m
	}
	strs := func() []string {
		switch rng.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		var s []string
		for range 1 + rng.IntN(4) {
			s = append(s, pick())
		}
		return s
	}
	records := sampleRecords()
	for range 3000 {
		r := &cpRecord{V: rng.IntN(6), Parent: pick(), Delta: rng.IntN(2) == 0, Depth: rng.IntN(70), Versions: ints(), Dropped: strs(), SeenDropped: strs(), Updated: strs()}
		r.TS = time.Unix(rng.Int64N(1<<37)-1<<35, rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))])
		if rng.IntN(3) == 0 {
			r.Seqs = map[string]uint64{pick(): rng.Uint64()}
		}
		if rng.IntN(2) == 0 {
			r.Seen = map[string]map[string]int64{pick(): ints(), pick(): ints()}
		}
		r.Meta = mdRecord{Source: pick(), Step: rng.IntN(100) - 1}
		if rng.IntN(2) == 0 {
			r.Meta.Parents = map[string]string{pick(): pick()}
		}
		switch rng.IntN(8) {
		case 0:
			r.Meta.Extra = map[string]json.RawMessage{}
		case 1:
			r.Meta.Extra = map[string]json.RawMessage{pick(): json.RawMessage(`{"a": 1}`)}
		}
		records = append(records, r)
	}
	fast := 0
	for i, r := range records {
		want, werr := json.Marshal(r)
		got, ok := appendRecordJSON(nil, r)
		if !ok {
			continue
		}
		fast++
		if werr != nil {
			t.Fatalf("record %d: written as %s, json.Marshal refuses it: %v", i, got, werr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, got, want)
		}
	}
	if fast < len(records)/2 {
		t.Errorf("only %d of %d records written fast", fast, len(records))
	}
	for i, r := range sampleRecords()[:3] {
		if _, ok := appendRecordJSON(nil, r); !ok {
			t.Errorf("sample record %d went to encoding/json; the writer must write the store's common records", i)
		}
	}
}
