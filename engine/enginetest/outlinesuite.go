package enginetest

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
)

// IDLister is a Saver that lists a namespace's checkpoint ids from a
// prefix without reading the checkpoints (both stores are): the command
// line resolves an id prefix with it.
type IDLister interface {
	CheckpointIDs(ctx context.Context, cfg engine.Config, prefix string, limit int) ([]string, error)
}

// OutlinerSuite checks a saver that reads checkpoints without their
// values (engine.Outliner, engine.HeadLister, IDLister) against its own
// List, on a thread with a fork, a subgraph namespace and pending writes
// of every kind, before and after reopen (nil: not reopened; as in
// SaverSuite):
//   - Outline lists what List lists, in its order and with its paging
//     (Before, Limit), each tuple List's with only the values of the
//     channels keep accepts, and each pending write List's with its value
//     when it is a control write, the input's (NullTaskID) or to a kept
//     channel, else its value or nil;
//   - Heads is List's tuples' heads (engine.HeadOf), newest first;
//   - CheckpointIDs lists the ids with a prefix, in order, bounded by its
//     limit.
//
// The saver must implement all three: the suite fails for one that does
// not, rather than checking less.
func OutlinerSuite(t *testing.T, newSaver func(t *testing.T) engine.Saver, reopen func(t *testing.T, s engine.Saver) engine.Saver) {
	t.Helper()
	h := &harness{t: t, s: newSaver(t), reopenFn: reopen, ctx: t.Context()}
	if _, ok := h.s.(engine.Outliner); !ok {
		t.Fatalf("%T is not an engine.Outliner", h.s)
	}
	if _, ok := h.s.(engine.HeadLister); !ok {
		t.Fatalf("%T is not an engine.HeadLister", h.s)
	}
	if _, ok := h.s.(IDLister); !ok {
		t.Fatalf("%T has no CheckpointIDs", h.s)
	}
	const th, sub = "t", "sub:9f3c"
	v := func(n engine.Version) map[string]engine.Version {
		return map[string]engine.Version{"big": n, "branch:to:b": n, "small": 1}
	}
	big := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"i": float64(i)}
		}
		return out
	}
	seen := map[string]map[string]engine.Version{"a": {"big": 1}}
	c1 := cp(1, map[string]any{"big": big(1), "branch:to:b": nil, "small": "s"}, v(1), seen, []string{"big"})
	c2 := cp(2, map[string]any{"big": big(2), "branch:to:b": nil, "small": "s"}, v(2), seen, []string{"big", "branch:to:b"})
	c3 := cp(3, map[string]any{"big": big(3), "branch:to:b": nil, "small": "s"}, v(3), seen, []string{"big"})
	fork := cp(4, map[string]any{"big": []any{"forked"}, "branch:to:b": nil, "small": "s"}, v(4), seen, nil)
	s5 := cp(5, map[string]any{"big": big(5), "branch:to:b": nil, "small": "s"}, v(1), nil, []string{"big"})
	h.put(th, "", nil, c1, engine.Metadata{Source: engine.SourceInput, Step: -1, Parents: map[string]string{}})
	h.put(th, "", c1, c2, loopMD(0))
	h.put(th, "", c2, c3, loopMD(1))
	h.put(th, "", c2, fork, engine.Metadata{Source: engine.SourceUpdate, Step: 2, Parents: map[string]string{}})
	h.put(th, sub, nil, s5, engine.Metadata{Source: engine.SourceInput, Step: -1, Parents: map[string]string{"": c3.ID}})
	h.putWrites(th, "", c3.ID, taskA, wr("big", big(4)), wr("branch:to:b", "a"), wr("small", "t"))
	h.putWrites(th, "", c3.ID, taskB, wr(engine.InterruptChannel, []any{map[string]any{"value": "ask?", "id": "i1"}}))
	h.putWrites(th, "", c3.ID, engine.NullTaskID, wr("big", []any{"input"}))
	h.putWrites(th, "", c3.ID, taskC, wr(engine.ErrorChannel, "boom"))
	h.putWrites(th, sub, s5.ID, taskA, wr("big", big(2)))
	keeps := map[string]func(string) bool{
		"none":     nil,
		"internal": func(ch string) bool { return ch == "branch:to:b" },
		"small":    func(ch string) bool { return ch == "small" },
	}
	h.checkAgain(func() {
		for _, ns := range []string{"", sub} {
			cfg := engine.Config{ThreadID: th, CheckpointNS: ns}
			full := h.list(cfg, engine.ListOptions{})
			for name, keep := range keeps {
				h.checkOutline(name, cfg, engine.ListOptions{}, keep, full)
			}
			if ns == "" {
				h.checkOutline("limit", cfg, engine.ListOptions{Limit: 2}, keeps["internal"], full[:2])
				h.checkOutline("before", cfg, engine.ListOptions{Before: c3.ID}, keeps["internal"], full[2:])
			}
			heads, err := h.s.(engine.HeadLister).Heads(h.ctx, cfg)
			if err != nil {
				t.Fatalf("Heads(%q): %v", ns, err)
			}
			want := make([]engine.CheckpointHead, len(full))
			for i, tup := range full {
				want[i] = engine.HeadOf(tup)
			}
			if !slices.Equal(heads, want) {
				t.Errorf("Heads(%q) = %+v, want List's %+v", ns, heads, want)
			}
		}
		h.checkIDs("", 0, ID(1), ID(2), ID(3), ID(4))
		h.checkIDs("", 2, ID(1), ID(2))
		h.checkIDs(ID(3), 0, ID(3))
		h.checkIDs(ID(1)[:31], 3, ID(1), ID(2), ID(3))
		h.checkIDs("f", 0)
		if heads, err := h.s.(engine.HeadLister).Heads(h.ctx, engine.Config{ThreadID: "none"}); err != nil || len(heads) != 0 {
			t.Errorf("Heads of a thread not stored: %v, %v", heads, err)
		}
	})
}

// checkOutline compares Outline(cfg, opt, keep) with List's tuples want.
func (h *harness) checkOutline(what string, cfg engine.Config, opt engine.ListOptions, keep func(string) bool, want []*engine.CheckpointTuple) {
	h.t.Helper()
	got, err := h.s.(engine.Outliner).Outline(h.ctx, cfg, opt, keep)
	if err != nil {
		h.t.Fatalf("Outline(%q, %s): %v", cfg.CheckpointNS, what, err)
	}
	h.wantIDs("Outline "+what, got, ids(want)...)
	kept := func(ch string) bool { return keep != nil && keep(ch) }
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		name := "Outline " + what + " " + shortIDs([]string{w.Config.CheckpointID})[0]
		if g.Config != w.Config || g.ParentID != w.ParentID {
			h.t.Errorf("%s: config %+v parent %q, want %+v %q", name, g.Config, g.ParentID, w.Config, w.ParentID)
		}
		checkMetadata(h.t, w.Config.CheckpointID, g.Metadata, w.Metadata)
		wcp := *w.Checkpoint.Materialize()
		wcp.ChannelValues = map[string]any{}
		for ch, val := range w.Checkpoint.Materialize().ChannelValues {
			if kept(ch) {
				wcp.ChannelValues[ch] = val
			}
		}
		checkCheckpoint(h.t, g.Checkpoint.Materialize(), &wcp)
		if len(g.PendingWrites) != len(w.PendingWrites) {
			h.t.Errorf("%s: pending writes\n got %s\nwant %s", name, fmtWrites(g.PendingWrites), fmtWrites(w.PendingWrites))
			continue
		}
		for j, gw := range g.PendingWrites {
			ww := w.PendingWrites[j]
			decoded := engine.IsControlWrite(ww.Channel) || ww.TaskID == engine.NullTaskID || kept(ww.Channel)
			same := gw.TaskID == ww.TaskID && gw.Channel == ww.Channel &&
				(reflect.DeepEqual(engine.Normalize(gw.Value), engine.Normalize(ww.Value)) || !decoded && gw.Value == nil)
			if !same {
				h.t.Errorf("%s: pending write %d {%s %s %s}, want {%s %s %s}", name, j,
					gw.TaskID, gw.Channel, engine.MustEncode(gw.Value), ww.TaskID, ww.Channel, engine.MustEncode(ww.Value))
			}
		}
	}
}

// checkIDs compares CheckpointIDs of thread "t"'s root with want.
func (h *harness) checkIDs(prefix string, limit int, want ...string) {
	h.t.Helper()
	got, err := h.s.(IDLister).CheckpointIDs(h.ctx, engine.Config{ThreadID: "t"}, prefix, limit)
	if err != nil {
		h.t.Fatalf("CheckpointIDs(%q, %d): %v", prefix, limit, err)
	}
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		h.t.Errorf("CheckpointIDs(%q, %d) = %v, want %v", prefix, limit, shortIDs(got), shortIDs(want))
	}
}
