package persist

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/superstep/superstep/internal/redact"
)

// Holder is the process that holds a database's writer lock, as it
// recorded itself in the lock file next to the database (LockPath), so
// that a process that finds the database in use can say who uses it.
type Holder struct {
	PID     int       `json:"pid"`     // the holder's process id
	Command string    `json:"command"` // its command line
	Since   time.Time `json:"since"`   // when it took the lock
}

// String describes the holder for a message: "pid 4242 (superstep tui
// research) since 10:54:03".
func (h Holder) String() string {
	s := fmt.Sprintf("pid %d", h.PID)
	if h.Command != "" {
		s += " (" + h.Command + ")"
	}
	if !h.Since.IsZero() {
		s += " since " + h.Since.Local().Format("15:04:05")
	}
	return s
}

// LockPath is the writer lock file of the database at path.
func LockPath(path string) string { return path + ".lock" }

// writerLock is a database's writer lock: one process at a time may write
// to the database, and it holds this lock for as long as it may (a run, a
// debugger session). It is a lock file next to the database rather than
// bbolt's own file lock, so that a long session (OpenShared) can keep out
// other writers while taking bbolt's lock only for each write, and leave
// the database readable meanwhile.
type writerLock struct {
	f    *os.File
	path string // the lock file's path
	// created: this open made the lock file, so if the open fails it
	// takes the file away again (discard) and leaves nothing beside a
	// file that turned out not to be a database.
	created bool
}

// acquireWriterLock takes the writer lock of the database at path, waiting
// up to timeout. It returns ErrLocked, and who holds the lock when the lock
// file says, when another process holds it.
//
// A lock file may be removed by the open that created it (discard), so a
// lock won on a file that is no longer at its path is worth nothing: the
// loop then opens the path again, as the next writer would.
func acquireWriterLock(path string, timeout time.Duration) (*writerLock, *Holder, error) {
	lp := LockPath(path)
	deadline := time.Now().Add(timeout)
	for {
		f, created, err := openLockFile(lp)
		if err != nil {
			return nil, nil, err
		}
		for {
			err = lockFile(f)
			if err == nil || !errors.Is(err, errWouldBlock) || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		switch {
		case errors.Is(err, errWouldBlock):
			f.Close()
			h, _ := ReadHolder(path)
			return nil, h, ErrLocked
		case err != nil:
			f.Close()
			return nil, nil, err
		case !stillAt(f, lp):
			f.Close() // unlocks the file its creator took away
			continue
		}
		h := Holder{PID: os.Getpid(), Command: commandLine(), Since: time.Now()}
		b, _ := json.Marshal(h)
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt(append(b, '\n'), 0)
		}
		return &writerLock{f: f, path: lp, created: created}, nil, nil
	}
}

// openLockFile opens the lock file at lp, creating it when there is none,
// and says whether it did.
func openLockFile(lp string) (f *os.File, created bool, err error) {
	for {
		f, err = os.OpenFile(lp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, true, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, false, err
		}
		f, err = os.OpenFile(lp, os.O_RDWR, 0o600)
		if !errors.Is(err, fs.ErrNotExist) { // else removed meanwhile: again
			return f, false, err
		}
	}
}

// stillAt reports whether f is the file at path.
func stillAt(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// release empties the lock file and lets go of the lock.
func (l *writerLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = unlockFile(l.f)
	_ = l.f.Close()
	l.f = nil
}

// discard is release for an open that failed: a lock file this open
// created is removed first, while the lock is still held, so no writer
// can hold it meanwhile; one waiting on it finds it gone (stillAt) and
// starts again. A lock file that was there before is left: another
// process may be using the database it guards.
func (l *writerLock) discard() {
	if l == nil || l.f == nil {
		return
	}
	if l.created {
		_ = os.Remove(l.path)
	}
	l.release()
}

// ReadHolder returns who holds the writer lock of the database at path, as
// its lock file records it, or nil when nobody does (an empty or missing
// file, or a process that has ended without cleaning up).
func ReadHolder(path string) (*Holder, error) {
	b, err := os.ReadFile(LockPath(path))
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
		return nil, err
	}
	var h Holder
	if err := json.Unmarshal(b, &h); err != nil || h.PID <= 0 || !processAlive(h.PID) {
		return nil, nil
	}
	return &h, nil
}

// commandLine is how this process was started, program name shortened,
// secrets left out (redactArgs): another process prints it when refused.
func commandLine() string {
	if len(os.Args) == 0 {
		return ""
	}
	args := []string{filepath.Base(os.Args[0])}
	for _, a := range os.Args[1:] {
		if !strings.HasPrefix(a, "-test.") { // a Go test binary's own flags
			args = append(args, a)
		}
	}
	s := strings.Join(redactArgs(args), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// redactArgs is args with what looks like a secret replaced by redact.Mask:
// the value of a flag whose name says it holds one (--token, --password,
// --api-key, a header's value: "Authorization: xxxxx"), whether given as
// --flag=value or as the next argument, and a URL's password and the
// values of its query parameters so named. The lock file records the
// command line for the refusal another process prints, which may end up
// in a terminal's scrollback or a bug report.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	secretNext := ""
	for i, a := range args {
		switch {
		case secretNext != "":
			out[i] = redactValue(secretNext, a)
			secretNext = ""
			continue
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "---"):
			name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if redact.Secret(name) {
				if hasValue {
					out[i] = a[:len(a)-len(value)] + redactValue(name, value)
				} else {
					out[i], secretNext = a, name
				}
				continue
			}
		}
		out[i] = redactURL(a)
	}
	return out
}

// redactValue is a secret flag's value masked; a header keeps its name.
func redactValue(flag, value string) string {
	if strings.Contains(strings.ToLower(flag), "header") {
		if name, _, ok := strings.Cut(value, ":"); ok {
			return name + ": " + redact.Mask
		}
	}
	return redact.Mask
}

// redactURL is a with its password and secret query values redact.Mask when
// it is a URL; any other argument as it is.
func redactURL(a string) string {
	if !strings.Contains(a, "://") {
		return a
	}
	u, err := url.Parse(a)
	if err != nil {
		return a
	}
	changed := false
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), redact.Mask)
		changed = true
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if redact.Secret(k) {
				q[k] = []string{redact.Mask}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	if !changed {
		return a
	}
	return u.String()
}
