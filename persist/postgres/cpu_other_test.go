//go:build !linux

package postgres_test

import (
	"time"

	"github.com/jackc/pgx/v5"
)

// cpuMeter knows CPU times only on Linux.
type cpuMeter struct{}

func newCPUMeter(*pgx.Conn) *cpuMeter { return &cpuMeter{} }

func (*cpuMeter) sample() (client, server time.Duration) { return -1, -1 }

func (*cpuMeter) backends(*pgx.Conn, string) map[int]time.Duration { return nil }
