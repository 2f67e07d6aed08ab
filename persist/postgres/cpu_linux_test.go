//go:build linux

package postgres_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// cpuMeter measures the CPU time this process and the PostgreSQL server
// spend, so a benchmark can report CPU per superstep on each side and
// the throughput the machine's cores allow. The server's time is that of
// its postmaster and every process it started (ended ones are counted
// in the postmaster's children times); it is known only when the server
// runs on this machine and the test user may read its data directory
// setting, as with .ci/pg.sh.
type cpuMeter struct {
	postmaster int // 0: the server's time is unknown
}

// tick is /proc's clock tick (USER_HZ, 100 on Linux).
const tick = 10 * time.Millisecond

func newCPUMeter(conn *pgx.Conn) *cpuMeter {
	var dir string
	if err := conn.QueryRow(ctx, "SHOW data_directory").Scan(&dir); err != nil {
		return &cpuMeter{}
	}
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		return &cpuMeter{}
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil {
		return &cpuMeter{}
	}
	return &cpuMeter{postmaster: pid}
}

// sample returns the CPU time used so far by this process and by the
// server (-1 when unknown).
func (m *cpuMeter) sample() (client, server time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		client = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if m.postmaster == 0 {
		return client, -1
	}
	own, ok := procTimes(m.postmaster)
	if !ok {
		return client, -1
	}
	server = tick * time.Duration(own[0]+own[1]+own[2]+own[3])
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if t, ok := procTimes(pid); ok && t[4] == int64(m.postmaster) {
			server += tick * time.Duration(t[0]+t[1])
		}
	}
	return client, server
}

// procTimes returns utime, stime, cutime, cstime and the parent pid of a
// process, from /proc/PID/stat.
func procTimes(pid int) ([5]int64, bool) {
	var out [5]int64
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return out, false
	}
	// The command name is in parentheses and may hold spaces.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	// f[0] is field 3 (state): ppid is field 4, utime..cstime 14..17.
	if len(f) < 15 {
		return out, false
	}
	for i, field := range []int{14, 15, 16, 17, 4} {
		out[i], _ = strconv.ParseInt(f[field-3], 10, 64)
	}
	return out, true
}

// backends returns the CPU time used so far by each server process that
// serves a connection named app (its application_name), by pid: the
// server's share of one client when several run at once.
func (m *cpuMeter) backends(conn *pgx.Conn, app string) map[int]time.Duration {
	if m.postmaster == 0 || app == "" {
		return nil
	}
	rows, err := conn.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", app)
	if err != nil {
		return nil
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil
	}
	out := make(map[int]time.Duration, len(pids))
	for _, pid := range pids {
		if t, ok := procTimes(int(pid)); ok {
			out[int(pid)] = tick * time.Duration(t[0]+t[1])
		}
	}
	return out
}
