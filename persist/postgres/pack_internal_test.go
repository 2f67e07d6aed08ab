package postgres

import (
	"reflect"
	"testing"
)

// TestPack_RoundTrip: a pack reads back as the values put in it, sorted
// by channel, whatever their order; every truncation of it is reported
// as damage, not misread.
func TestPack_RoundTrip(t *testing.T) {
	vals := []blob{
		{channel: "step", ref: ref{Version: 7, Root: 7}, has: true, kind: blobFull, payload: []byte("7")},
		{channel: "msgs", ref: ref{Version: 7, Root: 3}, base: ref{Version: 6, Hash: -5, Root: 3}, depth: 4, has: true, kind: blobAppend, payload: []byte(`"x"`)},
		{channel: "none", ref: ref{Version: 7, Root: 7}, kind: blobFull},
		{channel: "big", ref: ref{Version: 7, Root: 7}, has: true, kind: blobFull, payload: make([]byte, packMax)},
		{channel: "other", ref: ref{Version: 8, Root: 8}, has: true, kind: blobFull, payload: []byte("1")},
	}
	refs := map[string]ref{}
	for _, v := range vals {
		refs[v.channel] = v.ref
	}
	st := refState(refs, nil)
	out, _ := packBlobs(append([]blob(nil), vals...), st, nil)
	refs = refMap(st)
	if len(out) != 3 {
		t.Fatalf("%d rows, want 3: the big value, the one of version 8, the pack of version 7", len(out))
	}
	var pk blob
	for _, b := range out {
		if b.channel == packChannel {
			pk = b
		}
	}
	if pk.ref.Version != 7 || pk.ref.Hash < 0 {
		t.Fatalf("pack ref %+v", pk.ref)
	}
	for _, ch := range []string{"step", "msgs", "none"} {
		if r := refs[ch]; !r.packed() || r.Hash != ^pk.ref.Hash || r.Version != 7 {
			t.Errorf("ref of %s: %+v, want packed in %+v", ch, r, pk.ref)
		}
	}
	// The others are rows of their own, as schema 3 stored them.
	for _, b := range out {
		if b.channel == packChannel {
			continue
		}
		want := append([]byte{b.kind}, b.payload...)
		if !reflect.DeepEqual(b.data, want) || b.ref.Hash != hashBlob(want, true) || refs[b.channel] != b.ref || b.ref.packed() {
			t.Errorf("%s: row %q, ref %+v (in refs %+v)", b.channel, b.data, b.ref, refs[b.channel])
		}
	}
	got, _, err := decodePack(nil, 7, pk.data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []packEntry{
		{channel: "msgs", root: 3, base: &ref{Version: 6, Hash: -5, Root: 3}, depth: 4, has: true, data: []byte("\x02\"x\"")},
		{channel: "none", root: 7, data: []byte{blobFull}},
		{channel: "step", root: 7, has: true, data: []byte("\x017")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
	// Only the channels asked for, after those in dst.
	got, _, err = decodePack(want[:1:1], 7, pk.data, map[string]packWant{"step": {"step", 7, 7}, "none": {"none", 1, 6}, "absent": {"absent", 7, 7}}, nil)
	if err != nil || !reflect.DeepEqual(got, []packEntry{want[0], want[2]}) {
		t.Errorf("decoded step alone: %+v, %v", got, err)
	}
	// The same values in another order make the same pack.
	again, _ := packBlobs([]blob{vals[2], vals[0], vals[1]}, refState(refs, nil), nil)
	if len(again) != 1 || !reflect.DeepEqual(again[0], pk) {
		t.Errorf("pack depends on order: %+v, want %+v", again, pk)
	}
	for n := 0; n < len(pk.data); n++ {
		if _, _, err := decodePack(nil, 7, pk.data[:n], nil, nil); err == nil {
			t.Errorf("pack cut to %d bytes decodes", n)
		}
	}
	if _, _, err := decodePack(nil, 7, append(pk.data, 0), nil, nil); err == nil {
		t.Errorf("pack with a byte more decodes")
	}
}

// TestPack_Writes: a pack holding a task's writes reads them back with its
// values, in the pack of the lowest version in the fold's range (a lone
// small value becomes a pack for them); no small value in the range holds
// none; every truncation is damage.
func TestPack_Writes(t *testing.T) {
	vals := []blob{
		{channel: "step", ref: ref{Version: 9, Root: 9}, has: true, kind: blobFull, payload: []byte("9")},
		{channel: "msgs", ref: ref{Version: 8, Root: 3}, base: ref{Version: 6, Hash: -5, Root: 3}, depth: 4, has: true, kind: blobAppend, payload: []byte(`"x"`)},
		{channel: "big", ref: ref{Version: 8, Root: 8}, has: true, kind: blobFull, payload: make([]byte, packMax)},
	}
	ws := []taskWrite{{0, "msgs", []byte(`"m"`)}, {1, "step", []byte("3")}}
	fold := &packWrites{checkpoint: "cp", task: "task", writes: ws, lo: 7, hi: 9}
	refs := map[string]ref{}
	for _, v := range vals {
		refs[v.channel] = v.ref
	}
	st := refState(refs, nil)
	out, folded := packBlobs(append([]blob(nil), vals...), st, fold)
	if !folded || len(out) != 3 {
		t.Fatalf("folded %v into %d rows, want a pack of version 8 (msgs alone) with the writes, step's row and big's", folded, len(out))
	}
	pk := out[0]
	if pk.channel != packChannel || pk.ref.Version != 8 || pk.data[0] != blobPackWrites {
		t.Fatalf("first row %+v, want the pack of version 8 with writes", pk)
	}
	if r := refMap(st)["msgs"]; !r.packed() || r.Hash != ^pk.ref.Hash {
		t.Errorf("ref of msgs %+v, want in the pack %+v", r, pk.ref)
	}
	if out[1].channel != "step" || out[1].ref.packed() {
		t.Errorf("step: %+v, want a row of its own", out[1])
	}
	entries, pw, err := decodePack(nil, 8, pk.data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].channel != "msgs" {
		t.Errorf("values %+v, want msgs", entries)
	}
	if pw == nil || pw.checkpoint != "cp" || pw.task != "task" || !reflect.DeepEqual(pw.writes, ws) {
		t.Errorf("writes %+v, want %+v", pw, fold)
	}
	// Only for a checkpoint asked for, in its range.
	for _, folds := range []map[string]span{{"other": {7, 9}}, {"cp": {8, 10}}, {"cp": {5, 7}}} {
		if _, pw, err := decodePack(nil, 8, pk.data, nil, folds); err != nil || pw != nil {
			t.Errorf("writes for %v: %+v, %v; want none", folds, pw, err)
		}
	}
	if _, pw, err := decodePack(nil, 8, pk.data, nil, map[string]span{"cp": {7, 9}}); err != nil || pw == nil || !reflect.DeepEqual(pw.writes, ws) {
		t.Errorf("writes for cp in (7, 9]: %+v, %v", pw, err)
	}
	for n := 0; n < len(pk.data); n++ {
		if _, _, err := decodePack(nil, 8, pk.data[:n], nil, nil); err == nil {
			t.Errorf("pack cut to %d bytes decodes", n)
		}
	}
	// No small value at versions 10 to 11: no pack holds them.
	out, folded = packBlobs(append([]blob(nil), vals...), refState(refs, nil), &packWrites{checkpoint: "cp", task: "task", writes: ws, lo: 9, hi: 11})
	if folded || len(out) != 3 {
		t.Errorf("folded %v into %d rows, want no fold and three rows", folded, len(out))
	}
	for _, b := range out {
		if b.channel == packChannel {
			t.Errorf("a pack %+v without writes to hold", b)
		}
	}
}

// TestPack_MalformedFieldsAreDamage: a pack whose every byte is there but
// whose fields cannot be right — a write's negative slot or empty
// channel, a value's empty channel or impossible depth — is reported as
// damage, not misread.
func TestPack_MalformedFieldsAreDamage(t *testing.T) {
	val := blob{channel: "step", ref: ref{Version: 8, Root: 8}, has: true, kind: blobFull, payload: []byte("1")}
	with := func(w taskWrite) *packWrites {
		return &packWrites{checkpoint: "cp", task: "task", writes: []taskWrite{w}}
	}
	emptyChannel, deep := val, val
	emptyChannel.channel = ""
	deep.depth, deep.base = 1<<30+1, ref{Version: 7, Hash: 1, Root: 8}
	for name, pk := range map[string]blob{
		"negative slot":       newPack([]blob{val}, with(taskWrite{-1, "step", []byte("1")})),
		"write to no channel": newPack([]blob{val}, with(taskWrite{0, "", []byte("1")})),
		"value of no channel": newPack([]blob{emptyChannel}, nil),
		"too deep":            newPack([]blob{deep}, nil),
	} {
		if _, _, err := decodePack(nil, 8, pk.data, nil, nil); err == nil {
			t.Errorf("%s: decodes", name)
		}
	}
	if _, _, err := decodePack(nil, 8, newPack([]blob{val}, with(taskWrite{0, "step", []byte("1")})).data, nil, nil); err != nil {
		t.Errorf("the well-formed pack: %v", err)
	}
}
