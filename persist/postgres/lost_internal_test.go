package postgres

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
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
