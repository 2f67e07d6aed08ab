package jsonw

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
)

// Every function writes what json.Marshal writes, for plain and awkward
// strings, nil and empty values, and maps of more keys than the buffer.
func TestMatchesMarshal(t *testing.T) {
	odd := []string{"", "plain", "a\"b", `back\slash`, "<tag>&", "new\nline", "\x01", "é", "\u2028", "bad\xffutf8", "tab\t"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return odd[rng.IntN(len(odd))] + strconv.Itoa(rng.IntN(40)) }
	same := func(what string, got []byte, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
		}
	}
	for _, s := range odd {
		same("string", String(nil, s), s)
	}
	same("nil list", Strings(nil, nil), []string(nil))
	same("empty list", Strings(nil, []string{}), []string{})
	same("list", Strings(nil, odd), odd)
	ints := appendInt
	same("nil object", Object(nil, map[string]int64(nil), ints), map[string]int64(nil))
	for n := range 40 {
		m := map[string]int64{}
		for range n {
			m[pick()] = rng.Int64N(1000) - 500
		}
		same("object", Object(nil, m, ints), m)
		nested := map[string][]string{pick(): {pick()}, pick(): nil}
		same("nested", Object(nil, nested, Strings), nested)
	}
}

func TestIntObject(t *testing.T) {
	m := map[string]int64{"b": 2, "a": -1, "<c>": 3}
	want, _ := json.Marshal(m)
	if got := IntObject(nil, m); string(got) != string(want) {
		t.Fatalf("got %s, want %s", got, want)
	}
	if got := IntObject(nil, nil); string(got) != "null" {
		t.Fatalf("nil: got %s", got)
	}
}
