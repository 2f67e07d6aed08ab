package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// StoredVersions counts the stored values of a channel in a thread's root
// namespace, in rows of their own and in packs: all of them, the full
// copies among them, and those in packs.
func StoredVersions(ctx context.Context, s *Store, thread, channel string) (all, full, packed int, err error) {
	rows, err := s.pool.Query(ctx, "SELECT channel, version, data FROM "+pgx.Identifier{s.schema, "blobs"}.Sanitize()+" WHERE thread = $1 AND ns = '' AND channel IN ($2, '')", bs(thread), bs(channel))
	if err != nil {
		return 0, 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var ch, data []byte
		var ver int64
		if err := rows.Scan(&ch, &ver, &data); err != nil {
			return 0, 0, 0, err
		}
		if string(ch) == channel {
			all++
			if data[0] == blobFull {
				full++
			}
			continue
		}
		entries, _, err := decodePack(nil, ver, data, nil, nil)
		if err != nil {
			return 0, 0, 0, err
		}
		for _, e := range entries {
			if e.channel == channel {
				all, packed = all+1, packed+1
				if e.data[0] == blobFull {
					full++
				}
			}
		}
	}
	return all, full, packed, rows.Err()
}

// GroupsSent returns how many group commits s has sent and how many
// threads they held.
func GroupsSent(s *Store) (groups, threads int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent, s.sentMembers
}
