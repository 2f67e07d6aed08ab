package persist

import (
	"errors"

	bolt "go.etcd.io/bbolt"
)

// Check verifies the file's page structure (bbolt's consistency check).
func (s *Store) Check() error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.db.View(func(tx *bolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
}
