package engine

import (
	"fmt"
	"sort"
	"strings"
)

// ShortIDLen is the width of the short form of a time-ordered checkpoint id.
const ShortIDLen = 8

// ShortID is the one short form of a checkpoint id that every screen shows
// (the debugger, history, run's log): the part that tells a thread's
// checkpoints apart. Time-ordered ids (TimeIDs) share their leading clock
// digits for seconds at a time, so the short form is the fast-moving clock
// digits, the 8 hex digits after the first 8 (dashes dropped); CounterIDs
// ids are all zeros there, so theirs is the counter's last 6 digits. Any
// other id is returned whole. ResolveID accepts any prefix of it.
func ShortID(id string) string {
	s, ok := idDigits(id)
	if !ok {
		return id
	}
	if strings.Trim(s[:16], "0") == "" {
		return s[26:]
	}
	return s[8:16]
}

// SharedShortIDs returns the short forms (ShortID) that more than one of
// ids has, nil when none does: a screen that lists a thread's checkpoints
// shows those ids whole (ShortIDAmong), so that no two rows read the
// same. Time-ordered ids made by the engine differ there; ids a program
// chose or imported may not.
func SharedShortIDs(ids []string) map[string]bool {
	seen := make(map[shortKey]bool, len(ids))
	var shared map[string]bool
	for _, id := range ids {
		k := shortKeyOf(id)
		if seen[k] {
			if shared == nil {
				shared = map[string]bool{}
			}
			shared[ShortID(id)] = true
		}
		seen[k] = true
	}
	return shared
}

// shortKey stands for an id's short form (ShortID) as parts of the id
// itself, so that comparing the short forms of a long thread's ids
// makes no string: a time-ordered id's two groups of clock digits, a
// counter id's last digits (a empty), another id whole (b "\x00", which
// no digits are).
type shortKey struct{ a, b string }

func shortKeyOf(id string) shortKey {
	if !idLayout(id) {
		return shortKey{id, "\x00"}
	}
	if strings.Trim(id[:8], "0") == "" && strings.Trim(id[9:13], "0") == "" && strings.Trim(id[14:18], "0") == "" {
		return shortKey{"", id[30:]}
	}
	return shortKey{id[9:13], id[14:18]}
}

// ShortIDAmong is id's short form, or id whole when its short form is one
// that other ids of its list share (SharedShortIDs).
func ShortIDAmong(id string, shared map[string]bool) string {
	if s := ShortID(id); !shared[s] {
		return s
	}
	return id
}

// idDigits is id's 32 hex digits without dashes, when id has the layout
// engine ids have (8-4-4-4-12).
func idDigits(id string) (string, bool) {
	if !idLayout(id) {
		return "", false
	}
	return id[0:8] + id[9:13] + id[14:18] + id[19:23] + id[24:36], true
}

// idLayout reports whether id has the layout engine ids have.
func idLayout(id string) bool {
	return len(id) == 36 && id[8] == '-' && id[13] == '-' && id[18] == '-' && id[23] == '-'
}

// ResolveID finds the checkpoint id among ids that ref names: the whole id,
// a prefix of it (with or without its dashes), or a prefix of its short form
// (ShortID). An exact id wins over prefixes. ids is not modified.
//
// It returns an *IDError wrapping ErrNoCheckpoint when nothing matches and
// ErrAmbiguousID when several ids do (the error lists them, short form).
func ResolveID(ids []string, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", &IDError{Ref: ref, Err: ErrNoCheckpoint}
	}
	refDigits := strings.ToLower(strings.ReplaceAll(ref, "-", ""))
	var hits []string
	for _, id := range ids {
		if id == ref {
			return id, nil
		}
		if matchesID(id, ref, refDigits) {
			hits = append(hits, id)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", &IDError{Ref: ref, Err: ErrNoCheckpoint}
	}
	sort.Strings(hits)
	return "", &IDError{Ref: ref, Err: ErrAmbiguousID, Matches: hits}
}

func matchesID(id, ref, refDigits string) bool {
	if strings.HasPrefix(id, ref) {
		return true
	}
	digits, ok := idDigits(id)
	if !ok || refDigits == "" {
		return false
	}
	return strings.HasPrefix(digits, refDigits) || strings.HasPrefix(ShortID(id), refDigits)
}

// IDError is returned by ResolveID: which reference failed and why (Err is
// ErrNoCheckpoint or ErrAmbiguousID), with the ids an ambiguous one
// matched.
type IDError struct {
	Ref     string   // the id or prefix as given
	Err     error    // ErrNoCheckpoint or ErrAmbiguousID
	Matches []string // the checkpoint ids an ambiguous prefix matched
}

// Error says which reference failed and, for a prefix, what it matched.
func (e *IDError) Error() string {
	switch {
	case e.Ref == "":
		return "empty checkpoint id"
	case len(e.Matches) == 0:
		return fmt.Sprintf("no checkpoint %q", e.Ref)
	}
	shown := make([]string, 0, min(len(e.Matches), 5))
	for _, id := range e.Matches[:min(len(e.Matches), 5)] {
		shown = append(shown, ShortID(id))
	}
	more := ""
	if len(e.Matches) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(e.Matches)-len(shown))
	}
	return fmt.Sprintf("checkpoint prefix %q is ambiguous: it matches %s%s; give more characters", e.Ref, strings.Join(shown, ", "), more)
}

// Unwrap returns ErrNoCheckpoint or ErrAmbiguousID.
func (e *IDError) Unwrap() error { return e.Err }
