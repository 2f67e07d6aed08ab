package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// maxCloseThreads bounds how many close ids a message names.
const maxCloseThreads = 5

// closeThreadIDs are the ids among ids that thread may be a mistyping of,
// closest first, at most maxCloseThreads: the same id in another case, an
// id thread begins (cut short) or that begins thread, or one an edit away
// (a letter added, dropped, changed, or two swapped: 42 for 24), two for
// an id of 16 letters or more, three from 32: two edits of a short id
// reach its siblings (t-17 for t-42).
func closeThreadIDs(ids []string, thread string) []string {
	type near struct {
		id   string
		dist int
	}
	limit := min(1+len([]rune(thread))/16, 3) // a uuid's 36 letters: 3
	lower := strings.ToLower(thread)
	var found []near
	for _, id := range ids {
		if id == thread {
			continue
		}
		l := strings.ToLower(id)
		d := editDistance(lower, l)
		switch {
		case l == lower:
			d = 0
		case len(lower) >= 3 && (strings.HasPrefix(l, lower) || strings.HasPrefix(lower, l) && len(l) >= 3):
			d = min(d, limit)
		case d > limit:
			continue
		}
		found = append(found, near{id, d})
	}
	slices.SortFunc(found, func(a, b near) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.id, b.id)
	})
	out := make([]string, 0, min(len(found), maxCloseThreads))
	for _, n := range found[:min(len(found), maxCloseThreads)] {
		out = append(out, n.id)
	}
	return out
}

// editDistance is the optimal string alignment distance of a and b, in
// runes: insertions, deletions, substitutions and swaps of two neighbours.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// closeThreads lists the threads of st whose ids are close to thread's
// (closeThreadIDs), for a message about a thread st does not have. It
// says nothing when the threads cannot be listed: the message is a hint.
func closeThreads(ctx context.Context, st Store, thread string) []string {
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
	return closeThreadIDs(ids, thread)
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
