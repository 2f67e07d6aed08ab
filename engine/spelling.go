package engine

// This file owns the one rule of what a mistyped name is close to: the
// node an edge, a route or a scenario misnames, the thread ids a --thread
// may be a typo of. Every message that says "did you mean" means the same
// by it.

import (
	"slices"
	"strconv"
	"strings"
)

// CloseNames returns the names among names that name may be a mistyping of,
// closest first, at most max (0: no bound): the same name in another case,
// a name that name begins (cut short) or that begins name, or one an edit
// away (a letter added, dropped, changed, or two swapped: 42 for 24); two
// edits for a name of 16 letters or more, three from 32, since two edits
// of a short name reach its siblings (t-17 for t-42). No edit replaces a
// name whole (b is not close to a), and name itself is not returned.
func CloseNames(names []string, name string, max int) []string {
	found := closest(names, name)
	if max > 0 && len(found) > max {
		found = found[:max]
	}
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.name
	}
	return out
}

// MeantName is the one name among names that name most likely meant, or ""
// when none is close (CloseNames) or two are equally close: a guess between
// two would mislead.
func MeantName(names []string, name string) string {
	found := closest(names, name)
	if len(found) == 0 || len(found) > 1 && found[1].dist == found[0].dist {
		return ""
	}
	return found[0].name
}

// nearName is a name close to the one looked up, dist edits away.
type nearName struct {
	name string
	dist int
}

// closest is CloseNames's names with their distances, closest first.
func closest(names []string, name string) []nearName {
	n := len([]rune(name))
	limit := min(1+n/16, 3) // a uuid's 36 letters: 3
	lower := strings.ToLower(name)
	var found []nearName
	for _, cand := range names {
		if cand == name {
			continue
		}
		l := strings.ToLower(cand)
		d := editDistance(lower, l)
		switch {
		case l == lower:
			d = 0
		case len(lower) >= 3 && (strings.HasPrefix(l, lower) || strings.HasPrefix(lower, l) && len(l) >= 3):
			d = min(d, limit)
		case d > limit || d >= n:
			continue
		}
		found = append(found, nearName{cand, d})
	}
	slices.SortFunc(found, func(a, b nearName) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.name, b.name)
	})
	return found
}

// DidYouMean is " (did you mean "x"?)" for the name MeantName finds, or "" for
// none: for the end of a message about an unknown name.
func DidYouMean(names []string, name string) string {
	return meantHint(MeantName(names, name))
}

// meantHint is " (did you mean "m"?)", or "" for no m: the one wording of
// the guess.
func meantHint(m string) string {
	if m == "" {
		return ""
	}
	return " (did you mean " + strconv.Quote(m) + "?)"
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
