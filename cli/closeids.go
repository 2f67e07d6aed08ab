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

// continuesSeries reports whether thread is the next of a numbered series
// of ids: among ids, some have thread's letters with other numbers in
// place of its digits (run-1, run-2 for run-3), and thread's last number
// is above all of theirs. Such an id is a new thread started in order,
// not a typo of its siblings (run-24 beside run-42 still is one).
func continuesSeries(ids []string, thread string) bool {
	skel, last, ok := numberedID(thread)
	if !ok {
		return false
	}
	siblings := 0
	for _, id := range ids {
		s, n, ok := numberedID(id)
		if !ok || s != skel || id == thread {
			continue
		}
		if n >= last {
			return false
		}
		siblings++
	}
	return siblings > 0
}

// numberedID splits id into its letters, each run of digits replaced by
// '#', and the value of its last run of digits; ok is false when it has
// none, or a number too long to compare.
func numberedID(id string) (skel string, last uint64, ok bool) {
	var b strings.Builder
	for i := 0; i < len(id); {
		if id[i] < '0' || id[i] > '9' {
			b.WriteByte(id[i])
			i++
			continue
		}
		j := i
		for j < len(id) && id[j] >= '0' && id[j] <= '9' {
			j++
		}
		if j-i > 18 {
			return "", 0, false
		}
		last, ok = 0, true
		for _, c := range id[i:j] {
			last = last*10 + uint64(c-'0')
		}
		b.WriteByte('#')
		i = j
	}
	return b.String(), last, ok
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
