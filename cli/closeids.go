package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/superstep/superstep/engine"
)

// maxCloseThreads bounds how many close ids a message names.
const maxCloseThreads = 5

// closeThreadIDs are the ids among ids that thread may be a mistyping of,
// closest first, at most maxCloseThreads (engine.CloseNames says what
// is close).
func closeThreadIDs(ids []string, thread string) []string {
	return engine.CloseNames(ids, thread, maxCloseThreads)
}

// suspectedTypos are the close ids (closeThreadIDs) that a new thread
// id may be a mistyping of, for run's warning: those of its own numbered
// series are left out. Scripts number the threads they start (th-1,
// th-2, ...) and start them in parallel, in any order, so th-3 begun
// while th-6 exists is a sibling, not a typo of it; a difference in the
// letters (reserch-1 for research-1) still is one.
func suspectedTypos(ids []string, thread string) []string {
	var out []string
	for _, id := range closeThreadIDs(ids, thread) {
		if !sameSeries(id, thread) && !otherSeries(id, thread) {
			out = append(out, id)
		}
	}
	return out
}

// otherSeries reports whether ids a and b are numbered alike but their
// letters are not close (engine.CloseNames): m1 beside a1, t2 beside r2.
// An edit away as ids, such short names are still not typos of each
// other: a user names threads m1, a1 and r1 on purpose, and the warning
// then fired at each new one.
func otherSeries(a, b string) bool {
	sa, aNumbered := seriesName(a)
	sb, bNumbered := seriesName(b)
	la, lb := strings.ReplaceAll(sa, "#", ""), strings.ReplaceAll(sb, "#", "")
	return aNumbered && bNumbered && la != lb && len(engine.CloseNames([]string{la}, lb, 1)) == 0
}

// sameSeries reports whether ids a and b are numbers of one series:
// both have digits, and they are equal once each run of digits is read
// as one number, whichever (run-3, run-10 and run-03 are one series;
// run-3, run3 and Run-3 are not).
func sameSeries(a, b string) bool {
	sa, aNumbered := seriesName(a)
	sb, bNumbered := seriesName(b)
	return aNumbered && bNumbered && sa == sb
}

// seriesName is id with each run of digits replaced by '#' (run-#-step-#
// for run-12-step-3), and whether it had any digits.
func seriesName(id string) (name string, numbered bool) {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			b.WriteByte(id[i])
			continue
		}
		if i == 0 || id[i-1] < '0' || id[i-1] > '9' {
			b.WriteByte('#')
			numbered = true
		}
	}
	return b.String(), numbered
}

// closeThreads lists the threads of st whose ids are close to thread's
// (closeThreadIDs), for a message about a thread st does not have. It
// says nothing when the threads cannot be listed: the message is a hint.
func closeThreads(ctx context.Context, st Store, thread string) []string {
	return closeThreadIDs(threadIDs(ctx, st), thread)
}

// threadIDs are the ids of the threads st has, nil when they cannot be
// listed.
func threadIDs(ctx context.Context, st Store) []string {
	infos, err := st.Threads(ctx)
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(infos))
	for _, t := range infos {
		if t.Checkpoints > 0 || t.Namespaces > 0 {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// closeThreadsText names ids for a message: `"a", "b"`.
func closeThreadsText(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = shellWord(id)
	}
	return strings.Join(q, ", ")
}

// withCloseThreads adds to err, about a thread st does not have, the close
// ids st has; err keeps its exit code.
func withCloseThreads(ctx context.Context, st Store, thread string, err error) error {
	close := closeThreads(ctx, st, thread)
	if len(close) == 0 {
		return err
	}
	return &exitError{code: exitCode(err), err: fmt.Errorf("%w; close ids there: %s", err, closeThreadsText(close))}
}
