package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/superstep/superstep/engine"
)

// A store whose server went away mid-session reports what Open would:
// ErrUnreachable at its address, not the driver's connect text (the
// debugger, open for hours, showed "failed to connect to `user=…
// database=…`: … dial error: dial tcp …").
func TestStore_LostServerIsUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	_, err = pgconn.Connect(context.Background(), "postgres://u@"+addr+"/db?connect_timeout=5")
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("connecting to a closed port: %v, want a *pgconn.ConnectError", err)
	}
	s := &Store{addr: addr, schema: "superstep"}
	got := s.lost(err)
	if !errors.Is(got, ErrUnreachable) {
		t.Fatalf("lost(%v) = %v, want ErrUnreachable", err, got)
	}
	if msg := got.Error(); strings.Contains(msg, "failed to connect") || strings.Contains(msg, "dial error") || !strings.Contains(msg, addr) {
		t.Errorf("lost: %q, want the store's address and no driver text", msg)
	}
	other := errors.New("some query error")
	if s.lost(other) != other || s.lost(nil) != nil {
		t.Error("lost changed an error that is not a lost connection")
	}
}

// Only errors of the connection are losses: a stored value that does not
// decode ends in the decoder's "unexpected EOF" too, and is damage, not a
// broken connection to run the read again on.
func TestConnectionLoss(t *testing.T) {
	_, decodeErr := engine.DecodeValue([]byte(`{"a": [1, 2`))
	for _, c := range []struct {
		name string
		err  error
		loss bool
	}{
		{"cut under a request", io.ErrUnexpectedEOF, true},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"closed", pgconn.ErrConnClosed, true},
		{"ended by the server", &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{"a statement's error", &pgconn.PgError{Severity: "ERROR", Code: "42601", Message: "syntax error"}, false},
		{"cancelled", &pgconn.PgError{Severity: "ERROR", Code: "57014", Message: "canceling statement due to user request"}, false},
		{"a damaged value", corruptf("value of %q at version %d: %v", "n", 3, decodeErr), false},
		{"a conflict", &ConflictError{Thread: "t"}, false},
	} {
		if got := connectionLoss(c.err) != ""; got != c.loss {
			t.Errorf("%s (%v): loss = %v, want %v", c.name, c.err, got, c.loss)
		}
	}
	if !errors.Is(decodeErr, io.ErrUnexpectedEOF) {
		t.Fatalf("the decoder's error %v is no longer io.ErrUnexpectedEOF: the damaged-value case tests nothing", decodeErr)
	}
}
