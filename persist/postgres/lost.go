package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// A store stays open for hours (the debugger, a service), and its server
// may restart, fail over or drop off the network meanwhile. This file owns
// what the store makes of that: which errors mean a connection is gone,
// what the user reads instead of the driver's text, and which operations
// run again on a fresh connection.

// lost is err as a user can act on it when the store, open, lost its
// server. A failure to connect (the server stopped or went away
// mid-session) becomes the ErrUnreachable Open returns, naming the store's
// address: the driver's text names its own connection parameters and dial
// steps. A connection that broke under a request becomes
// ErrConnectionLost with what happened, and the pool's other connections,
// which most likely broke with it, are dropped so the next request
// connects afresh. Other errors, nil and errors already classified are
// returned as they are.
func (s *Store) lost(err error) error {
	if err == nil || errors.Is(err, ErrUnreachable) || errors.Is(err, ErrConnectionLost) {
		return err
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		if c := classify(err, s.addr, "", "", s.schema); c != err {
			return fmt.Errorf("postgres %s: %w", s.addr, c)
		}
		return fmt.Errorf("postgres %s: %w: %v", s.addr, ErrUnreachable, errors.Unwrap(ce))
	}
	why := connectionLoss(err)
	if why == "" {
		return err
	}
	s.pool.Reset()
	return fmt.Errorf("postgres %s: %w: %s", s.addr, ErrConnectionLost, why)
}

// lostWrite is lost for a write: when the connection broke after the
// request was sent, the server may have committed it before the break, and
// only reading the thread again tells.
func (s *Store) lostWrite(err error) error {
	c := s.lost(err)
	if errors.Is(c, ErrConnectionLost) && !pgconn.SafeToRetry(err) {
		return fmt.Errorf("%w (the write may or may not be stored: read the thread again to see)", c)
	}
	return c
}

// connectionLoss says how err means the connection it came on is gone, or
// "" when it does not: the server ended the session (a FATAL error: it
// shut down or restarted, an administrator ended the backend, an idle
// session timed out), or the connection broke under the request (the
// server's process died, the network dropped it).
func connectionLoss(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe.Severity != "FATAL" && pe.Severity != "PANIC" {
			return ""
		}
		return fmt.Sprintf("the server ended the session: %s (SQLSTATE %s)", pe.Message, pe.Code)
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the connection closed in the middle of a request"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "the connection was reset"
	case errors.Is(err, net.ErrClosed), errors.Is(err, pgconn.ErrConnClosed):
		return "the connection was closed"
	}
	return ""
}

// reconnecting runs req, and while it fails because no connection to the
// server could be made (lost says ErrUnreachable: nothing listens, the
// server is starting or shutting down, no answer before the connect
// timeout), runs it again, waiting a little longer each time, for up to
// the store's reconnect (Options.Reconnect) from the first failure.
// Such a failure is pgconn's ConnectError, which comes before anything
// is sent, so req, a write too, runs whole or not at all as it would
// have. A req that makes more than one request must be safe to run
// again after any of them succeeded (reads are). The last failure, or
// ctx's end while waiting, is returned as lost words it.
func reconnecting[T any](ctx context.Context, s *Store, req func() (T, error)) (T, error) {
	v, err := req()
	if err == nil || s.reconnect <= 0 || !unreachable(s, err) {
		return v, err
	}
	deadline := time.Now().Add(s.reconnect)
	pause := 50 * time.Millisecond
	for {
		wait := min(pause, time.Until(deadline))
		if wait <= 0 {
			return v, fmt.Errorf("%w (waited %v for it to come back)", s.lost(err), s.reconnect)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, fmt.Errorf("%w (%w while waiting for it to come back)", s.lost(err), ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, time.Second)
		if v, err = req(); err == nil || !unreachable(s, err) {
			return v, err
		}
	}
}

// unreachable reports whether err is a failure to connect that a server
// coming back ends: not the server refusing the store's user, database
// or schema.
func unreachable(s *Store, err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) && errors.Is(s.lost(err), ErrUnreachable)
}

// readAgain runs read and, when the connection it used broke, runs it once
// more on a fresh one: a read changes nothing, so running it twice is
// safe, and the pool checks a connection before use only when it has been
// idle for over a second (pgxpool's default ShouldPing), so a request just
// after a restart or failover meets a dead one. A second failure is the
// answer, as lost words it.
//
// A server that cannot be connected to is waited for (reconnecting).
func readAgain[T any](ctx context.Context, s *Store, read func() (T, error)) (T, error) {
	v, err := reconnecting(ctx, s, read)
	if err != nil && ctx.Err() == nil && errors.Is(s.lost(err), ErrConnectionLost) {
		v, err = reconnecting(ctx, s, read)
	}
	return v, s.lost(err)
}

// reconnectingErr is reconnecting for a request with no result.
func reconnectingErr(ctx context.Context, s *Store, req func() error) error {
	_, err := reconnecting(ctx, s, func() (struct{}, error) { return struct{}{}, req() })
	return err
}
