package cli

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"time"

	"github.com/superstep/superstep/persist/postgres"
)

var _ Store = (*postgres.Store)(nil)

// urlScheme matches the start of a URL ("scheme://").
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// malformedPostgres matches what was meant as a PostgreSQL URL but is not
// one postgres.IsURL accepts ("postgres:/host/db", "postgres:db",
// "Postgres://…"): refused, so that no file of that name is created.
var malformedPostgres = regexp.MustCompile(`(?i)^postgres(ql)?:`)

// openStore opens the database db names. It is the one place that decides
// what db is: a postgres:// or postgresql:// URL is a PostgreSQL server,
// any other URL is refused (never taken for a file name), and anything else
// is a bbolt file.
func openStore(db string, o storeOptions) (Store, error) {
	if postgres.IsURL(db) {
		return openPostgres(db, o)
	}
	if malformedPostgres.MatchString(db) {
		return nil, usagef("database %s: not a PostgreSQL URL (want postgres://user:password@host:port/database)", displayDB(db))
	}
	if m := urlScheme.FindStringSubmatch(db); m != nil {
		return nil, usagef("database %s: %q URLs are not supported (want a file name or a postgres:// URL)", displayDB(db), m[1])
	}
	return openBoltStore(db, o)
}

// notAURL refuses a URL given where a file is expected (what names the
// argument, e.g. "graph", "import"), saying what goes there instead: a URL
// is never taken for a file name.
func notAURL(what, arg, instead string) error {
	if !urlScheme.MatchString(arg) {
		return nil
	}
	return usagef("%s %s: a URL, not a file; %s", what, displayDB(arg), instead)
}

// postgresConnectTimeout bounds connecting to a server unless --timeout
// asks for longer.
const postgresConnectTimeout = 10 * time.Second

// openPostgres opens a PostgreSQL store. A server that cannot be reached
// is a failure (exit 1); a URL, user, password, database, schema or
// permission the user must change is an input error (exit 2).
func openPostgres(db string, o storeOptions) (Store, error) {
	s, err := postgres.Open(context.Background(), db, postgres.Options{
		Durability:     o.Durability,
		ReadOnly:       o.ReadOnly,
		ConnectTimeout: max(o.Timeout, postgresConnectTimeout),
	})
	switch {
	case err == nil:
		return s, nil
	case errors.Is(err, postgres.ErrUnreachable):
		return nil, failf("%v", err)
	}
	return nil, usagef("%v", err)
}

// displayDB is db as messages show it: a URL without its password.
func displayDB(db string) string {
	if !urlScheme.MatchString(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "(a URL that cannot be parsed)"
	}
	return u.Redacted()
}
