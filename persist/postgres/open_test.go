package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

var ctx = context.Background()

// adminExec runs statements on the test server as the test URL's user.
func adminExec(t testing.TB, stmts ...string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// mustFailOpen opens u and returns the error, which must be an *OpenError
// wrapping want, and whose message must contain every part.
func mustFailOpen(t *testing.T, u string, opts postgres.Options, want error, parts ...string) {
	t.Helper()
	s, err := postgres.Open(ctx, u, opts)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%s) succeeded, want %v", u, want)
	}
	var oe *postgres.OpenError
	if !errors.As(err, &oe) || !errors.Is(err, want) {
		t.Fatalf("Open: %v (%T), want an *OpenError wrapping %v", err, err, want)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("Open: %q does not say %q", err, p)
		}
	}
	if strings.Contains(err.Error(), "superstep@") || strings.Contains(err.Error(), ":superstep@") {
		t.Errorf("Open: %q shows the URL's password", err)
	}
}

func TestOpen_Unreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	u, _ := url.Parse(serverURL)
	u.Host = addr
	mustFailOpen(t, u.String(), postgres.Options{}, postgres.ErrUnreachable, addr, "nothing listens")
}

func TestOpen_AuthFailed(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse(serverURL)
	u.User = url.UserPassword(u.User.Username(), "not-the-password")
	mustFailOpen(t, u.String(), postgres.Options{}, postgres.ErrAuth, u.User.Username())
}

func TestOpen_DatabaseMissing(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse(serverURL)
	u.Path = "/no_such_database"
	mustFailOpen(t, u.String(), postgres.Options{}, postgres.ErrNoDatabase, `"no_such_database"`)
}

func TestOpen_PermissionDenied(t *testing.T) {
	t.Parallel()
	var b [4]byte
	rand.Read(b[:])
	role := "nopriv_" + hex.EncodeToString(b[:])
	// A plain role may connect but, since PostgreSQL 15, create nothing.
	adminExec(t, "CREATE ROLE "+role+" LOGIN PASSWORD 'pw'")
	t.Cleanup(func() { adminExec(t, "DROP ROLE IF EXISTS "+role) })
	u, _ := url.Parse(schemaURL(t))
	u.User = url.UserPassword(role, "pw")
	mustFailOpen(t, u.String(), postgres.Options{}, postgres.ErrPermission, role, "may not create")
}

func TestOpen_NewerSchemaRefused(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	schema := s.Schema()
	s.Close()
	adminExec(t, "INSERT INTO "+pgx.Identifier{schema}.Sanitize()+".schema_version (version) VALUES (99)")
	mustFailOpen(t, u, postgres.Options{}, postgres.ErrNewerSchema, "version 99", "upgrade superstep")
}

func TestOpen_MigratesOnce(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	a := open(t, u, postgres.Options{})
	b := open(t, u, postgres.Options{}) // a second open finds the schema current
	if _, err := a.Put(ctx, engine.Config{ThreadID: "t"}, &engine.Checkpoint{V: 4, ID: "01", ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}}, engine.Metadata{Source: "input"}, nil); err != nil {
		t.Fatal(err)
	}
	if tup, err := b.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil || tup == nil {
		t.Fatalf("GetTuple through the second store: %v, %v", tup, err)
	}
	var n int
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{a.Schema()}.Sanitize()+".schema_version").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != postgres.SchemaVersion {
		t.Errorf("schema_version has %d rows, want %d", n, postgres.SchemaVersion)
	}
}

func TestOpen_ReadOnly(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	mustFailOpen(t, u, postgres.Options{ReadOnly: true}, postgres.ErrNoSchema, "run a graph")
	open(t, u, postgres.Options{}).Close()
	ro := open(t, u, postgres.Options{ReadOnly: true})
	_, err := ro.Put(ctx, engine.Config{ThreadID: "t"}, &engine.Checkpoint{V: 4, ID: "01"}, engine.Metadata{}, nil)
	if !errors.Is(err, persist.ErrReadOnly) {
		t.Errorf("Put on a read-only store: %v, want ErrReadOnly", err)
	}
}

func TestOpen_BadURL(t *testing.T) {
	t.Parallel()
	mustFailOpen(t, "postgres://superstep:secret@127.0.0.1:notaport/db", postgres.Options{}, postgres.ErrBadURL)
}

// TestOpen_BadURLHidesPassword: a URL pgx cannot parse is refused saying
// what is wrong, without the password, wherever the URL holds it. The
// reason was cut off: "bad PostgreSQL URL: cannot parse `postgres".
func TestOpen_BadURLHidesPassword(t *testing.T) {
	t.Parallel()
	for u, why := range map[string]string{
		"postgres://superstep:secret@127.0.0.1:notaport/db":                    "invalid port",
		"postgres://superstep@127.0.0.1/db?sslmode=bogus&password=secret":      "sslmode is invalid",
		"postgres://superstep:secret@127.0.0.1/db?connect_timeout=abc":         "invalid connect_timeout",
		"postgresql://superstep:secret@127.0.0.1/db?sslpassword=secret&port=x": "invalid port",
		"postgres://superstep:sec/ret@127.0.0.1/db":                            "must be percent-encoded",
		"postgres://superstep:sec%zzret@127.0.0.1/db":                          "not followed by two hex digits",
	} {
		_, err := postgres.Open(ctx, u, postgres.Options{})
		if err == nil || strings.Contains(err.Error(), "sec") || !strings.Contains(err.Error(), why) {
			t.Errorf("Open(%s): %v, want an error saying %q that does not show the password", u, err, why)
		}
	}
}
