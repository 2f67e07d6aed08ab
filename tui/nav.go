package tui

// listNav is a cursor over n rows shown h at a time. The model keeps the
// offset up to date after every Update (follow), so View stays a pure read.
type listNav struct{ cur, off int }

func (l *listNav) move(d, n int) {
	l.cur = clamp(l.cur+d, 0, n-1)
}

// follow scrolls the least needed to keep the cursor in an h-row window.
func (l *listNav) follow(h, n int) {
	l.cur = clamp(l.cur, 0, n-1)
	if h < 1 {
		h = 1
	}
	if l.cur < l.off {
		l.off = l.cur
	}
	if l.cur >= l.off+h {
		l.off = l.cur - h + 1
	}
	l.off = clamp(l.off, 0, max(0, n-h))
}

// window returns the rows [from, to) to draw in h rows. A pane may draw
// more rows than it followed the cursor with (the versions_seen pane
// keeps room for its longest explanation): the window then starts no later
// than where the last row fills it, so no row is hidden above blank lines;
// the cursor, at or after the offset, stays in it.
func (l listNav) window(h, n int) (from, to int) {
	from = clamp(l.off, 0, max(0, n-max(h, 1)))
	return from, min(n, from+max(h, 0))
}

func clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}
