package typed

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

// The fast Send-argument decoder is built by structCodec; codecFor must
// hand it on (it once copied only enc and dec, and every Send argument
// took the reflect path).
func TestCodecFor_KeepsTheFastArgumentDecoder(t *testing.T) {
	type Arg struct {
		N int    `json:"n"`
		S string `json:"s"`
	}
	c := codecFor(reflect.TypeFor[Arg]())
	if c.scalars == nil {
		t.Fatal("codecFor dropped the direct path")
	}
	var got Arg
	if !c.scalars.decAt(unsafe.Pointer(&got), map[string]any{"n": 3.0, "s": "x"}) || got != (Arg{3, "x"}) {
		t.Fatalf("decAt: %+v", got)
	}
}

// The direct encoder of a Send argument makes what the reflect encoder
// makes, and leaves to it what it cannot word (a NaN).
func TestStructCodec_DirectEncodeMatchesReflect(t *testing.T) {
	type Arg struct {
		I   int     `json:"i"`
		Big int64   `json:"big"`
		I32 int32   `json:"i32"`
		F   float64 `json:"f"`
		S   string  `json:"s,omitempty"`
		B   bool    `json:"b"`
		Z   int     `json:"z,omitempty"`
	}
	c := codecFor(reflect.TypeFor[Arg]())
	if c.scalars == nil {
		t.Fatal("no direct encoder for a struct of scalars")
	}
	for _, a := range []Arg{{}, {I: -3, Big: 1<<62 + 1, I32: 7, F: 0.5, S: "x", B: true, Z: 2}} {
		want, err := c.enc(reflect.ValueOf(a), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := c.scalars.encAt(unsafe.Pointer(&a))
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: direct %#v, reflect %#v", a, got, want)
		}
	}
	nan := Arg{F: math.NaN()}
	if _, ok := c.scalars.encAt(unsafe.Pointer(&nan)); ok {
		t.Error("a NaN was encoded directly; the codec must word its error")
	}
}

// A list of whole numbers decodes in one loop up to the first element the
// loop cannot take; the rest go element by element, and errors name the
// index.
func TestSliceCodec_IntsFastThenSlow(t *testing.T) {
	got, err := Decode[[]int]([]any{1.0, 2.0, int64(3), 4.0})
	if err != nil || !reflect.DeepEqual(got, []int{1, 2, 3, 4}) {
		t.Fatalf("got %v, %v", got, err)
	}
	_, err = Decode[[]int]([]any{1.0, 2.5})
	if de, ok := err.(*DecodeError); !ok || de.Path != "[1]" {
		t.Fatalf("error %v, want one at [1]", err)
	}
}

// Updates are values: adding gotos to one, or to a copy, never shows in
// another, whether its change is inline (one) or not.
func TestUpdate_GotoLeavesOtherCopiesAlone(t *testing.T) {
	type S struct {
		A, B, C int
	}
	sc, err := schemaOf(reflect.TypeFor[S]())
	if err != nil {
		t.Fatal(err)
	}
	var s S
	for n, u := range map[int]Update[S]{
		1: Write(&s, Set(&s.A, 1)),
		3: Write(&s, Set(&s.A, 1), Set(&s.B, 2), Set(&s.C, 3)),
	} {
		a := u.Goto("a")
		b := a.Goto("b")
		c := a.Goto("c")
		for _, x := range []struct {
			u    Update[S]
			want []any
		}{{u, nil}, {a, []any{"a"}}, {b, []any{"a", "b"}}, {c, []any{"a", "c"}}} {
			if got := x.u.gotos(); !reflect.DeepEqual(got, x.want) {
				t.Errorf("gotos %v, want %v", got, x.want)
			}
			pairs, err := x.u.pairs(sc)
			if err != nil || len(pairs) != n || pairs[0].Key != "A" || pairs[0].Value != 1.0 {
				t.Errorf("pairs %v, %v", pairs, err)
			}
		}
	}
}

// A Change does not record whether Set encoded its value: the value's type
// says it (field.encoded). Whatever Set did, each field's write is what
// the field's codec makes of the value, and what the codec refuses (a
// NaN) is still refused, with one change or several.
func TestSet_WritesWhatTheCodecMakes(t *testing.T) {
	type Name string
	type S struct {
		I   int            `json:"i"`
		Big int            `json:"big"`
		F   float64        `json:"f"`
		Str string         `json:"str"`
		B   bool           `json:"b"`
		N   Name           `json:"n"`
		L   []int          `json:"l"`
		LS  []string       `json:"ls"`
		Nil []string       `json:"nil"`
		Any any            `json:"any"`
		M   map[string]int `json:"m"`
		P   *int           `json:"p"`
	}
	sc, err := schemaOf(reflect.TypeFor[S]())
	if err != nil {
		t.Fatal(err)
	}
	seven := 7
	var s S
	changes := []Change{
		Set(&s.I, 3), Set(&s.Big, 1<<60), Set(&s.F, 2.5), Set(&s.Str, "x"), Set(&s.B, true),
		Set(&s.N, Name("n")), Set(&s.L, []int{1, 2}), Set(&s.LS, []string{"a"}), Set(&s.Nil, nil),
		Set[any](&s.Any, 4), Set[any](&s.Any, map[string]int{"k": 1}), Set(&s.M, map[string]int{"k": 2}), Set(&s.P, &seven),
		Set(&s.L, []int{1, 2, 3, 4, 5}), Set(&s.L, []int{1, 1 << 60}), Set(&s.LS, []string{"a", "b", "c", "d", "e"}), Set(&s.L, []int{}),
		Set(&s.L, []int{7}), Set(&s.L, []int{1 << 60}),
	}
	values := []any{3, 1 << 60, 2.5, "x", true, Name("n"), []int{1, 2}, []string{"a"}, []string(nil), 4, map[string]int{"k": 1}, map[string]int{"k": 2}, &seven,
		[]int{1, 2, 3, 4, 5}, []int{1, 1 << 60}, []string{"a", "b", "c", "d", "e"}, []int{},
		[]int{7}, []int{1 << 60}}
	for i, c := range changes {
		want, err := Encode(values[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []Update[S]{Write(&s, c), Write(&s, c, c)} {
			got, err := u.pairs(sc)
			if err != nil || len(got) == 0 || !reflect.DeepEqual(got[0].Value, want) {
				t.Errorf("change %d: got %#v, %v; want %#v", i, got, err, want)
			}
		}
	}
	for _, u := range []Update[S]{Write(&s, Set(&s.F, math.NaN())), Write(&s, Set(&s.I, 1), Set(&s.F, math.Inf(1)))} {
		if _, err := u.pairs(sc); err == nil {
			t.Error("a NaN or an infinity was written")
		}
	}
}

// A state struct too large for the offset table (schema.atOffset) finds
// its fields by search: each field, out of order and after one the table
// would have held, resolves to its own key.
func TestFieldFor_StructPastTheOffsetTable(t *testing.T) {
	type S struct {
		A   int                       `json:"a"`
		Pad [maxIndexedSize / 8]int64 `json:"pad"`
		B   string                    `json:"b"`
		C   float64                   `json:"c"`
		D   bool                      `json:"d"`
	}
	sc, err := schemaOf(reflect.TypeFor[S]())
	if err != nil {
		t.Fatal(err)
	}
	if sc.atOffset != nil {
		t.Fatalf("a %d-byte struct has an offset table", reflect.TypeFor[S]().Size())
	}
	var s S
	for _, u := range []Update[S]{
		Write(&s, Set(&s.D, true), Set(&s.B, "x"), Set(&s.A, 1), Set(&s.C, 2.5)),
		Write(&s, Set(&s.C, 2.5)),
	} {
		got, err := u.pairs(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range got {
			want := map[string]any{"a": 1.0, "b": "x", "c": 2.5, "d": true}[kv.Key]
			if kv.Value != want {
				t.Errorf("write %v, want %v", kv, want)
			}
		}
		if n := len(got); n != 4 && n != 1 {
			t.Errorf("writes %v", got)
		}
	}
	var other int64
	bad := Write(&s, Set(&other, 1))
	if _, err := bad.pairs(sc); err == nil {
		t.Error("an address outside the struct resolved")
	}
}

// A long list decoded again with the same elements is copied from the
// field's last decode (listMemo): each decode is a slice of its own, a
// task changing its copy changes no other, and a list of the same length
// with another element decodes afresh.
func TestListMemo_CopiesOnlyTheSameElements(t *testing.T) {
	type S struct {
		L []int `json:"l"`
	}
	sc, err := schemaOf(reflect.TypeFor[S]())
	if err != nil {
		t.Fatal(err)
	}
	if sc.fields[0].lists == nil {
		t.Fatal("an []int field keeps no memo")
	}
	list := make([]any, memoFromLen+4)
	for i := range list {
		list[i] = float64(i)
	}
	var a, b, c S
	for _, dst := range []*S{&a, &b} {
		if err := sc.decodeAt(map[string]any{"l": list}, unsafe.Pointer(dst)); err != nil {
			t.Fatal(err)
		}
	}
	if unsafe.SliceData(a.L) == unsafe.SliceData(b.L) {
		t.Fatal("two decodes share a slice")
	}
	a.L[3] = -1
	if b.L[3] != 3 {
		t.Fatalf("a task's change shows in another's list: %v", b.L)
	}
	changed := slices.Clone(list)
	changed[5] = 99.0
	if err := sc.decodeAt(map[string]any{"l": changed}, unsafe.Pointer(&c)); err != nil {
		t.Fatal(err)
	}
	if c.L[5] != 99 || c.L[3] != 3 {
		t.Fatalf("a list with another element decoded as %v", c.L)
	}
	var d S
	if err := sc.decodeAt(map[string]any{"l": list}, unsafe.Pointer(&d)); err != nil {
		t.Fatal(err)
	}
	if d.L[5] != 5 || d.L[3] != 3 || len(d.L) != len(list) {
		t.Fatalf("the first list decoded as %v after another", d.L)
	}
	bad := slices.Clone(list)
	bad[7] = "x"
	if err := sc.decodeAt(map[string]any{"l": bad}, unsafe.Pointer(&d)); err == nil {
		t.Fatal("a string decoded into an int list")
	}
}
