package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestEncodeValue_StringsMatchEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r", "\x00\x01\x1f", "中文 ✓ 🚀", "bad \xff utf8", "<html>&", "\u2028"} {
		got, err := EncodeValue(s)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q encodes to invalid JSON %s: %v", s, got, err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("%q round-trips to %q, encoding/json gives %q", s, back, wantBack)
		}
	}
}

func TestEncodeValue_RoundTrip(t *testing.T) {
	in := map[string]any{"a": []any{1.0, "x", nil, true, map[string]any{"k": 2.5}}, "s": Send{Node: "n", Arg: map[string]any{"q": "v"}}, "i": []Interruption{{ID: "id", Value: "why?"}}}
	b, err := EncodeValue(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeValue(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := EncodeValue(out)
	if string(b) != string(b2) {
		t.Fatalf("round trip changed the value:\n%s\n%s", b, b2)
	}
}

func FuzzEncodeString(f *testing.F) {
	f.Add("hello \"world\"\n")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		b, _ := EncodeValue(s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("invalid JSON for %q: %s", s, b)
		}
	})
}

// TestDecodeValue_ScalarsAsTheDecoder: the scalar fast path decodes what
// the JSON decoder decodes, and leaves the rest to it.
func TestDecodeValue_ScalarsAsTheDecoder(t *testing.T) {
	for _, in := range []string{"null", "true", "false", `""`, `"agent"`, `"ünï"`, `"a\"b"`, `"a\\nb"`, "\"\xff\"", "\"tab\t\"",
		"0", "-0", "7", "-42", "123456789012345", "9007199254740993", "-9223372036854775808", "18446744073709551615", "18446744073709551616",
		"01", "-", "1.5", "1e3", " 1", "nul", `"`, `"a`, "tru"} {
		fast, ok := decodeScalar([]byte(in))
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		var raw any
		err := dec.Decode(&raw)
		if ok {
			if err != nil || dec.More() || !reflect.DeepEqual(fast, FromJSON(raw)) || fmt.Sprintf("%#v", fast) != fmt.Sprintf("%#v", FromJSON(raw)) {
				t.Errorf("%q: fast path %#v, decoder %#v (%v)", in, fast, FromJSON(raw), err)
			}
		}
		got, gotErr := DecodeValue([]byte(in))
		if (gotErr == nil) != (err == nil && !dec.More()) || (gotErr == nil && !reflect.DeepEqual(got, FromJSON(raw))) {
			t.Errorf("%q: DecodeValue %#v, %v; decoder %#v, %v", in, got, gotErr, FromJSON(raw), err)
		}
	}
	if _, ok := decodeScalar([]byte(`"agent"`)); !ok {
		t.Error("a plain string is left to the decoder")
	}
}

func TestNumber_IntegersBeyondFloat64StayExact(t *testing.T) {
	cases := []struct {
		in   any
		want any
	}{
		{int64(1<<53 + 1), json.Number("9007199254740993")},
		{int64(1 << 53), float64(1 << 53)},
		{int64(1 << 62), float64(1 << 62)}, // a power of two is exact
		{uint64(math.MaxUint64), json.Number("18446744073709551615")},
		{int64(math.MinInt64), float64(math.MinInt64)},
		{json.Number("-9007199254740993"), json.Number("-9007199254740993")},
		{json.Number("2.5"), 2.5},
		{json.Number("7"), 7.0},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%T %v) = %T %v, want %T %v", c.in, c.in, got, got, c.want, c.want)
		}
	}
	v, err := DecodeValue([]byte(`{"id":9007199254740993,"n":3}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["id"] != json.Number("9007199254740993") || m["n"] != 3.0 {
		t.Errorf("decoded %#v", m)
	}
	if b := MustEncode(v); string(b) != `{"id":9007199254740993,"n":3}` {
		t.Errorf("re-encoded %s", b)
	}
	if Normalize(m) == nil || !reflect.DeepEqual(Normalize(m), m) {
		t.Errorf("a decoded value is already normal")
	}
}
