package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/persist/postgres"
)

// serverEnv names the server the tests use. They need a real PostgreSQL:
// without the variable they are skipped (one line says how to run them);
// with it set, a server that cannot be reached fails them.
const serverEnv = "SUPERSTEP_TEST_POSTGRES"

var serverURL string

func TestMain(m *testing.M) {
	serverURL = os.Getenv(serverEnv)
	if serverURL == "" {
		fmt.Printf("persist/postgres: skipped: set %s to a PostgreSQL URL to run these tests (eval \"$(.ci/pg.sh start)\" starts a throwaway server)\n", serverEnv)
		os.Exit(0)
	}
	conn, err := pgx.Connect(context.Background(), serverURL)
	if err != nil {
		fmt.Printf("persist/postgres: %s is set but the server cannot be used: %v\n", serverEnv, err)
		os.Exit(1)
	}
	conn.Close(context.Background())
	os.Exit(m.Run())
}

// schemaURL returns the server URL with a fresh schema of its own, dropped
// when the test ends, so tests do not see each other's threads.
func schemaURL(t testing.TB) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), serverURL)
		if err != nil {
			t.Errorf("drop schema: %v", err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "SET synchronous_commit = off"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return withParam(serverURL, "schema", schema)
}

func withParam(raw, k, v string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	q := u.Query()
	q.Set(k, v)
	u.RawQuery = q.Encode()
	return u.String()
}

// open opens a store on u, closed when the test ends.
func open(t testing.TB, u string, opts postgres.Options) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), u, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
