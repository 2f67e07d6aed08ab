package postgres_test

import (
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist/postgres"
)

// TestStore_GroupStatementStoresNothingUnclaimed: the group statement's
// parts do not filter their rows by the threads claimed; a group with a
// thread whose claim is refused (another writer advanced it) must fail
// whole and store nothing, of that thread or of its group-mates, new
// threads' rows included (the store then sends each thread alone).
func TestStore_GroupStatementStoresNothingUnclaimed(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	a := open(t, u, postgres.Options{Writer: "host-a"})
	b := open(t, u, postgres.Options{Writer: "host-b"})
	md := engine.Metadata{Source: engine.SourceLoop}
	for _, th := range []string{"mate", "taken"} {
		if _, err := a.Put(ctx, engine.Config{ThreadID: th}, checkpoint(1, 1), md, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Rows of the three threads in writes, blobs and checkpoints.
	rows := func() (all [3]int) {
		for _, th := range []string{"mate", "taken", "fresh"} {
			n, err := postgres.RowCounts(ctx, b, th)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				all[i] += n[i]
			}
		}
		return all
	}
	before := rows()
	// mate: b saw its sequence now (a's one commit), so its claim
	// passes; taken: b saw 0 (no such thread yet), long gone, so its
	// claim is refused; fresh: new.
	mate, err := postgres.ThreadSeq(ctx, b, "mate")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		threads  []string
		observed []int64
		create   bool
	}{
		{[]string{"mate", "taken"}, []int64{mate, 0}, false},
		{[]string{"fresh", "mate", "taken"}, []int64{-1, mate, 0}, true},
	} {
		if err := postgres.RunGroup(ctx, b, c.threads, c.observed, c.create); err == nil {
			t.Errorf("group %v (create %v): no error with a claim refused", c.threads, c.create)
		}
		if n := rows(); n != before {
			t.Errorf("group %v (create %v): rows (writes, blobs, checkpoints) %v, want %v", c.threads, c.create, n, before)
		}
	}
	// Without the refused thread the same statement stores its rows.
	if err := postgres.RunGroup(ctx, b, []string{"fresh", "mate"}, []int64{-1, mate}, true); err != nil {
		t.Fatal(err)
	}
	want := before
	want[1] += 2
	want[2] += 2
	if n := rows(); n != want {
		t.Errorf("group of claimable threads: rows %v, want %v", n, want)
	}
}
