package engine

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// Only time.Now itself is the wall clock: a clock of the user's, even one
// that calls time.Now, may count its calls, so it is read as often as
// before.
func TestIsWallClock(t *testing.T) {
	var m struct{ at time.Time }
	for _, c := range []struct {
		name  string
		clock Clock
		want  bool
	}{
		{"time.Now", time.Now, true},
		{"SystemClock", SystemClock, true},
		{"nil", nil, false},
		{"closure over time.Now", func() time.Time { return time.Now() }, false},
		{"fixed", func() time.Time { return m.at }, false},
	} {
		if got := isWallClock(c.clock); got != c.want {
			t.Errorf("%s: isWallClock = %v, want %v", c.name, got, c.want)
		}
	}
	if !NewTimeIDs(nil).wall || NewTimeIDs(func() time.Time { return m.at }).wall {
		t.Error("TimeIDs.wall: want true on the default clock only")
	}
}

// nextAt on the clock's readings makes the ids next makes, bumps included.
func TestTimeIDs_NextAtIsNext(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return at }
	a, b := NewTimeIDs(clock), NewTimeIDs(clock)
	for i := range 40 {
		switch i % 7 {
		case 0:
			at = at.Add(time.Microsecond)
		case 3:
			at = at.Add(-time.Millisecond) // steps back: ids still increase
		}
		an, as := a.next()
		bn, bs := b.nextAt(clock())
		if an != bn || as != bs {
			t.Fatalf("id %d: next %d,%d; nextAt %d,%d", i, an, as, bn, bs)
		}
	}
}

// idClock is the time part of a TimeIDs id, in Unix nanoseconds.
func idClock(t *testing.T, id string) int64 {
	t.Helper()
	raw, err := hex.DecodeString(strings.ReplaceAll(id, "-", ""))
	if err != nil || len(raw) != 16 {
		t.Fatalf("id %q: not a TimeIDs id", id)
	}
	return int64(binary.BigEndian.Uint64(raw[:8]))
}

// With the default clock, one reading of time.Now makes a checkpoint's id
// and its timestamp: the timestamp is time.Now's (local, with its
// monotonic reading) and the id's time is the same instant, or one
// nanosecond past the id before it when the clock had not moved. With a
// clock of the user's, the clock is read once per checkpoint, for its
// timestamp, as before.
func TestCheckpointTS_OneReadingOfTheWallClock(t *testing.T) {
	ctx := context.Background()
	build := func(opts ...CompileOption) (*Graph, *MemorySaver) {
		s := NewMemorySaver()
		sg := NewStateGraph(LastValueKey("n"))
		sg.AddNode("inc", func(_ context.Context, in any) (any, error) {
			return Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
		})
		sg.AddEdge(Start, "inc")
		sg.AddConditionalEdges("inc", func(_ context.Context, st map[string]any) (any, error) {
			if st["n"].(float64) < 20 {
				return "inc", nil
			}
			return End, nil
		}, "inc", End)
		g, err := sg.Compile(append(opts, WithSaver(s))...)
		if err != nil {
			t.Fatal(err)
		}
		return g, s
	}
	list := func(s *MemorySaver) []*CheckpointTuple {
		tuples, err := s.List(ctx, Config{ThreadID: "t"}, ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tuples
	}

	g, s := build()
	if res, err := g.Invoke(ctx, map[string]any{"n": 0.0}, OnThread("t")); err != nil || res.Status != StatusDone {
		t.Fatalf("run: %v %v", err, res.Status)
	}
	tuples := list(s)
	if len(tuples) < 20 {
		t.Fatalf("%d checkpoints, want at least 20", len(tuples))
	}
	prev := int64(-1)
	for i := len(tuples) - 1; i >= 0; i-- { // oldest first
		cp := tuples[i].Checkpoint
		if cp.TS.Location() != time.Local || cp.TS == cp.TS.Round(0) {
			t.Errorf("checkpoint %s: ts %v is not time.Now's (local, monotonic)", cp.ID, cp.TS)
		}
		at, ts := idClock(t, cp.ID), cp.TS.UnixNano()
		if at != ts && at != prev+1 || at < ts {
			t.Errorf("checkpoint %s: id's time %d, ts %d, id before %d: want the ts's instant, or one past the id before", cp.ID, at, ts, prev)
		}
		prev = at
	}

	calls := 0
	g, s = build(WithClock(func() time.Time {
		calls++
		return time.Date(2026, 1, 1, 0, 0, calls, 0, time.UTC)
	}))
	if res, err := g.Invoke(ctx, map[string]any{"n": 0.0}, OnThread("t")); err != nil || res.Status != StatusDone {
		t.Fatalf("run: %v %v", err, res.Status)
	}
	tuples = list(s)
	if calls != len(tuples) {
		t.Errorf("user's clock read %d times for %d checkpoints", calls, len(tuples))
	}
	for i, tp := range tuples {
		if want := time.Date(2026, 1, 1, 0, 0, len(tuples)-i, 0, time.UTC); !tp.Checkpoint.TS.Equal(want) {
			t.Errorf("checkpoint %s: ts %v, want %v", tp.Checkpoint.ID, tp.Checkpoint.TS, want)
		}
	}
}
