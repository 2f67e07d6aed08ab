package persist

import (
	"context"

	bolt "go.etcd.io/bbolt"
)

// bucketSettings holds small documents by key for tools that keep state
// next to the threads (the debugger's breakpoints and watches per graph).
// It is created by the first PutSetting, so older files need no upgrade.
var bucketSettings = []byte("settings")

// maxSettingKey bounds a setting's key.
const maxSettingKey = 512

// Setting returns the document stored under key, or nil and no error when
// there is none. The returned bytes are the caller's. Errors: ErrClosed or
// the context's error.
func (s *Store) Setting(ctx context.Context, key string) ([]byte, error) {
	if err := CheckName("setting key", key, maxSettingKey, false); err != nil {
		return nil, err
	}
	var out []byte
	err := s.view(ctx, func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketSettings); b != nil {
			v, err := settingRecords(b).Get([]byte(key))
			if err != nil {
				return err
			}
			if v != nil {
				out = append([]byte{}, v...)
			}
		}
		return nil
	})
	return out, err
}

// PutSetting stores doc under key, replacing what was there, in one write
// transaction. Errors: ErrClosed, ErrReadOnly or the context's error.
func (s *Store) PutSetting(ctx context.Context, key string, doc []byte) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	if err := CheckName("setting key", key, maxSettingKey, false); err != nil {
		return err
	}
	doc = append([]byte{}, doc...)
	return s.w.submit(opOther, 0, func(tx *bolt.Tx, _ *cache) error {
		b, err := tx.CreateBucketIfNotExists(bucketSettings)
		if err != nil {
			return err
		}
		return settingRecords(b).Put([]byte(key), doc)
	})
}

// settingRecords returns the records of the settings bucket b.
func settingRecords(b *bolt.Bucket) *records {
	r := newRecords(b, kindSetting, "", "", sealedTx(b.Tx()))
	return &r
}
