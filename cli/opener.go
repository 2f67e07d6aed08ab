package cli

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/superstep/superstep/internal/redact"
	"github.com/superstep/superstep/persist/postgres"
)

var _ Store = (*postgres.Store)(nil)

// urlScheme matches the start of a URL ("scheme://").
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// uriScheme matches the start of a URI without "//" ("sqlite:agents.db",
// "mailto:…"): RFC 3986 reads it as a scheme too. One letter is left out
// (a drive letter, "C:"); a file whose name has such a colon is written
// ./name.
var uriScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+):`)

// malformedPostgres matches what was meant as a PostgreSQL URL but is not
// one postgres.IsURL accepts ("postgres:/host/db", "postgres:db",
// "Postgres://…"): refused, so that no file of that name is created.
var malformedPostgres = regexp.MustCompile(`(?i)^postgres(ql)?:`)

// isFileName reports whether openStore takes db for a bbolt file: no
// URL or URI of any scheme (those are a server or refused).
func isFileName(db string) bool {
	return !postgres.IsURL(db) && !malformedPostgres.MatchString(db) && !urlScheme.MatchString(db) && !uriScheme.MatchString(db)
}

// sameDatabase reports whether a and b name one database: the same text,
// or two spellings of one file (./l.db and l.db, a link to it), which
// would each wait for the other's lock. URLs are compared as given.
func sameDatabase(a, b string) bool {
	if a == b {
		return true
	}
	if !isFileName(a) || !isFileName(b) {
		return false
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		absA, errA := filepath.Abs(a)
		absB, errB := filepath.Abs(b)
		return errA == nil && errB == nil && absA == absB
	}
	return os.SameFile(fa, fb)
}

// openStore opens the database db names. It is the one place that decides
// what db is: a postgres:// or postgresql:// URL is a PostgreSQL server,
// any other URL is refused (never taken for a file name), and anything else
// is a bbolt file.
func openStore(db string, o storeOptions) (Store, error) {
	if postgres.IsURL(db) {
		return openPostgres(db, o)
	}
	if malformedPostgres.MatchString(db) {
		why := "not a PostgreSQL URL (want postgres://user:password@host:port/database)"
		if m := urlScheme.FindStringSubmatch(db); m != nil {
			// libpq too takes the two schemes in lower case only.
			why = "a PostgreSQL URL's scheme is postgres:// or postgresql://, in lower case"
		}
		return nil, usagef("database %s: %s", displayDB(db), why)
	}
	if m := urlScheme.FindStringSubmatch(db); m != nil {
		return nil, usagef("database %s: %q URLs are not supported (want a file name or a postgres:// URL)", displayDB(db), m[1])
	}
	if m := uriScheme.FindStringSubmatch(db); m != nil {
		return nil, usagef("database %s: a %q URL, which is not supported (want a file name or a postgres:// URL; a file whose name has a colon is written ./%s)", db, m[1]+":", db)
	}
	return openBoltStore(db, o)
}

// notAURL refuses a URL given where a file is expected (what names the
// argument, e.g. "graph", "import"), saying what goes there instead: a URL
// is never taken for a file name.
func notAURL(what, arg, instead string) error {
	switch {
	case urlScheme.MatchString(arg):
		return usagef("%s %s: a URL, not a file; %s", what, displayDB(arg), instead)
	case uriScheme.MatchString(arg):
		return usagef("%s %s: a URL, not a file; %s. A file whose name has a colon is written ./%s", what, arg, instead, arg)
	}
	return nil
}

// postgresConnectTimeout bounds connecting to a server unless --timeout
// asks for longer.
const postgresConnectTimeout = 10 * time.Second

// openPostgres opens a PostgreSQL store. Every error of Open is exit 2:
// a URL, user, password, database, schema or permission the user must
// change, and a server that cannot be reached, as a bbolt file another
// process holds is. Nothing ran, so exit 1 (a run failed, a replay
// diverged, a check found damage) would tell a script something false.
func openPostgres(db string, o storeOptions) (Store, error) {
	s, err := postgres.Open(context.Background(), db, postgres.Options{
		Durability:     o.Durability,
		ReadOnly:       o.ReadOnly,
		ConnectTimeout: max(o.Timeout, postgresConnectTimeout),
	})
	if err != nil {
		return nil, usagef("%v", err)
	}
	return s, nil
}

// displayDB is db as messages show it: a URL without its passwords, its
// scheme as typed (url.URL writes it in lower case). A password may also
// be given as the password or sslpassword parameter, as libpq and pgx
// take it; it was shown as typed.
func displayDB(db string) string {
	m := urlScheme.FindStringSubmatch(db)
	if m == nil {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "(a URL that cannot be parsed)"
	}
	if u.RawQuery != "" {
		pairs := strings.Split(u.RawQuery, "&")
		for i, pair := range pairs {
			key, _, _ := strings.Cut(pair, "=")
			if k, err := url.QueryUnescape(key); err != nil || redact.Secret(k) {
				pairs[i] = key + "=" + redact.Mask
			}
		}
		u.RawQuery = strings.Join(pairs, "&")
	}
	return m[1] + strings.TrimPrefix(u.Redacted(), u.Scheme)
}

// Both stores read a thread's outline, its heads and its ids without its
// values: show, history and the debugger's tree do not decode every value
// of a long thread.
var _ outliner = (*postgres.Store)(nil)
