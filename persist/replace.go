package persist

import (
	"context"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
)

// Replacing a thread.
//
// Import with ImportOptions.Overwrite replaces a thread the store holds.
// The usual reason is a copy taken earlier and changed since (pull, fix,
// push), while the thread it replaces may have gone on meanwhile: a
// server's thread advanced by its service, a run still going. Replacing
// it then would silently drop that history, so Overwrite alone replaces
// only a thread whose every checkpoint and pending write the incoming
// copy also has, recorded with the same graph; ImportOptions.Discard says
// to drop the rest. Both stores check in the transaction that replaces
// the thread (CheckReplace is the rule they share).

// threadContent is what a replace compares: the checkpoints (with their
// steps, to name one), the pending writes by slot, and the recorded graph.
type threadContent struct {
	checkpoints map[nsKey]int
	writes      map[writeSlot]bool
	fingerprint string
}

type writeSlot struct {
	ns, cp, task string
	slot         int64
}

func newThreadContent(fp string) *threadContent {
	return &threadContent{checkpoints: map[nsKey]int{}, writes: map[writeSlot]bool{}, fingerprint: fp}
}

// docContent is the content of a ThreadDoc.
func docContent(doc *ThreadDoc) *threadContent {
	c := newThreadContent(doc.Fingerprint)
	for _, dc := range doc.Checkpoints {
		c.checkpoints[nsKey{dc.NS, dc.Checkpoint.ID}] = dc.Metadata.Step
		for _, w := range dc.Writes {
			c.writes[writeSlot{dc.NS, dc.Checkpoint.ID, w.Task, w.Slot}] = true
		}
	}
	for _, o := range doc.Orphans {
		for _, w := range o.Writes {
			c.writes[writeSlot{o.NS, o.Checkpoint, w.Task, w.Slot}] = true
		}
	}
	return c
}

// addCheckpoint adds an imported checkpoint and its writes.
func (c *threadContent) addCheckpoint(ns, id string, step int, writes []importWrite) {
	c.checkpoints[nsKey{ns, id}] = step
	c.addWrites(ns, id, writes)
}

// addWrites adds imported writes saved against checkpoint id.
func (c *threadContent) addWrites(ns, id string, writes []importWrite) {
	for _, w := range writes {
		c.writes[writeSlot{ns, id, w.task, w.slot}] = true
	}
}

// storedContent reads the content of thread bucket tb in tx: keys and
// each checkpoint's step, no values.
func storedContent(ctx context.Context, tb *bolt.Bucket, thread string) (*threadContent, error) {
	fp, err := threadKeys(tb, thread).Get(keyFingerprint)
	if err != nil {
		return nil, err
	}
	c := newThreadContent(string(fp))
	err = eachNamespace(tb, func(ns string) error {
		b, err := nsIn(tb, thread, ns, false)
		if b == nil || err != nil {
			return err
		}
		err = b.cps.ForEach(func(k, v []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			id, err := parseCheckpointKey(k)
			if err != nil {
				return corruptf("checkpoint key %x: %v", k, err)
			}
			h, err := decodeHead(v, nil)
			if err != nil {
				return err
			}
			c.checkpoints[nsKey{ns, id}] = h.Step
			return nil
		})
		if err != nil {
			return err
		}
		return b.writes.ForEach(func(k, _ []byte) error {
			cp, task, slot, err := parseWriteKey(k)
			if err != nil {
				return corruptf("write key %x: %v", k, err)
			}
			c.writes[writeSlot{ns, cp, task, slot}] = true
			return nil
		})
	})
	return c, err
}

// CheckReplace is the rule of ImportOptions.Overwrite for a store that
// holds thread as have and would replace it with incoming: nil when
// incoming has every checkpoint and pending write of have, recorded with
// the same graph (o.SameGraph), or o.Discard is set; otherwise a
// *ReplaceError saying what would be lost. A store calls it in the
// transaction that replaces the thread.
func CheckReplace(have, incoming *ThreadDoc, o ImportOptions) error {
	return o.checkReplace(have.Thread, docContent(have), docContent(incoming))
}

func (o ImportOptions) checkReplace(thread string, have, in *threadContent) error {
	if o.Discard {
		return nil
	}
	e := &ReplaceError{Thread: thread}
	for k, step := range have.checkpoints {
		if _, ok := in.checkpoints[k]; ok {
			continue
		}
		e.Checkpoints++
		// The newest: ids are time-ordered; the root namespace's first.
		newer := k.id > e.NewestID
		if (k.ns == "") != (e.NewestNS == "") {
			newer = k.ns == ""
		}
		if e.Checkpoints == 1 || newer {
			e.NewestNS, e.NewestID, e.NewestStep = k.ns, k.id, step
		}
	}
	for k := range have.writes {
		if !in.writes[k] {
			e.Writes++
		}
	}
	same := o.SameGraph
	if same == nil {
		same = func(a, b string) bool { return a == b }
	}
	e.GraphDiffers = have.fingerprint != "" && !same(have.fingerprint, in.fingerprint)
	if e.Checkpoints == 0 && e.Writes == 0 && !e.GraphDiffers {
		return nil
	}
	return e
}

// ReplaceError is returned by Import with ImportOptions.Overwrite (and
// not Discard) when replacing the thread would lose what it holds: the
// checkpoints and pending writes the import lacks, or the graph it was
// recorded with. It matches ErrWouldDiscard with errors.Is.
type ReplaceError struct {
	Thread      string // the thread Import would replace
	Checkpoints int    // the thread's checkpoints the import lacks
	Writes      int    // its pending writes the import lacks
	// NewestID names the newest of those checkpoints (the root
	// namespace's, if any is), in namespace NewestNS at step NewestStep.
	NewestID   string
	NewestNS   string // NewestID's namespace
	NewestStep int    // NewestID's step
	// GraphDiffers: the thread was recorded with another graph than the
	// import's.
	GraphDiffers bool
}

// Error says what would be lost.
func (e *ReplaceError) Error() string {
	return fmt.Sprintf("%v: thread %q has %s", ErrWouldDiscard, e.Thread, e.Loss())
}

// Loss says what the thread has that the import lacks: "2 checkpoints
// the import lacks (the newest 213c364b, step 2), 6 pending writes it
// lacks and another recorded graph".
func (e *ReplaceError) Loss() string {
	var what []string
	if e.Checkpoints > 0 {
		newest := fmt.Sprintf("%s, step %d", engine.ShortID(e.NewestID), e.NewestStep)
		if e.NewestNS != "" {
			newest += fmt.Sprintf(", namespace %q", e.NewestNS)
		}
		what = append(what, fmt.Sprintf("%s the import lacks (the newest %s)", plural(e.Checkpoints, "checkpoint"), newest))
	}
	if e.Writes > 0 {
		lacks := "it lacks"
		if e.Checkpoints == 0 {
			lacks = "the import lacks"
		}
		what = append(what, fmt.Sprintf("%s %s", plural(e.Writes, "pending write"), lacks))
	}
	if e.GraphDiffers {
		what = append(what, "another recorded graph")
	}
	if n := len(what); n > 1 {
		return strings.Join(what[:n-1], ", ") + " and " + what[n-1]
	}
	return what[0]
}

// Is reports whether target is ErrWouldDiscard.
func (e *ReplaceError) Is(target error) bool { return target == ErrWouldDiscard }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
