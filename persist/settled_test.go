package persist

// Settled reports whether every write made to s so far is committed:
// nothing is queued and no commit is running. The crash tests' helper
// process polls it to tell its parent when a point of interest is durable,
// instead of the parent guessing with a sleep.
func Settled(s *Store) bool {
	if s.w == nil {
		return true
	}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return len(s.w.queue) == 0 && !s.w.busy
}
