package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist/postgres"
)

// breakingProxy relays TCP between the store and the server, and breaks
// connections as a restarting server or a dropping network does: cut
// closes every connection open now, and once cutOn is set, a connection
// is closed as soon as the client sends a request naming cutOn (a table
// name reaches the server only in a query), so even fresh connections
// break under their first such request.
type breakingProxy struct {
	l     net.Listener
	mu    sync.Mutex
	conns []net.Conn
	cutOn []byte
}

func newBreakingProxy(t *testing.T, target string) *breakingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &breakingProxy{l: l}
	t.Cleanup(func() { l.Close(); p.cut() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go p.relay(s, c)
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

// relay copies the client's bytes to the server until the connection
// ends or carries cutOn.
func (p *breakingProxy) relay(server, client net.Conn) {
	defer server.Close()
	defer client.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			p.mu.Lock()
			cut := p.cutOn != nil && bytes.Contains(buf[:n], p.cutOn)
			p.mu.Unlock()
			if cut {
				return
			}
			if _, err := server.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *breakingProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *breakingProxy) breakRequestsNaming(s string) {
	p.mu.Lock()
	p.cutOn = []byte(s)
	p.mu.Unlock()
}

// openThroughProxy opens a store whose connections go through a
// breakingProxy, with a one-superstep graph on it that has run thread
// "t" once.
func openThroughProxy(t *testing.T) (*postgres.Store, *engine.Graph, *breakingProxy) {
	t.Helper()
	u, err := url.Parse(withParam(schemaURL(t), "application_name", appName(t)))
	if err != nil {
		t.Fatal(err)
	}
	p := newBreakingProxy(t, u.Host)
	u.Host = p.l.Addr().String()
	s := open(t, u.String(), postgres.Options{})
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("inc", func(_ context.Context, in any) (any, error) {
			return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
		}).
		AddEdge(engine.Start, "inc").AddEdge("inc", engine.End).
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(context.Background(), map[string]any{"n": 0.0}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	return s, g, p
}

// A server that restarts or a network that drops every connection at once
// (the debugger stays open for hours) costs nothing visible: the pool's
// connections are all dead, but a read runs again on a fresh one, and a
// superstep's commit, whose statement never ran, is sent again alone.
func TestStore_ConnectionsDroppedMidSession(t *testing.T) {
	s, g, p := openThroughProxy(t)
	ctx := context.Background()
	p.cut()
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil || tup == nil {
		t.Fatalf("GetTuple after the connections dropped: %v, %v; want the checkpoint", tup, err)
	}
	p.cut()
	if got, err := s.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{}); err != nil || len(got) == 0 {
		t.Fatalf("List after the connections dropped: %d, %v", len(got), err)
	}
	p.cut()
	if th, err := s.Threads(ctx); err != nil || len(th) != 1 {
		t.Fatalf("Threads after the connections dropped: %v, %v", th, err)
	}
	p.cut()
	res, err := g.Invoke(ctx, map[string]any{"n": 10.0}, engine.OnThread("t"))
	if err != nil {
		t.Fatalf("a run after the connections dropped: %v", err)
	}
	if n := res.Values["n"]; n != 11.0 {
		t.Fatalf("n = %v, want 11", n)
	}
}

// A connection that breaks under every request, fresh ones too, is
// ErrConnectionLost at the store's address with what happened, not the
// driver's "unexpected EOF"; a write adds that it may or may not be stored.
// A server gone for good is ErrUnreachable.
func TestStore_ConnectionLostIsNamed(t *testing.T) {
	s, g, p := openThroughProxy(t)
	ctx := context.Background()
	addr := p.l.Addr().String()
	p.breakRequestsNaming("checkpoints")
	p.cut()

	_, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if !errors.Is(err, postgres.ErrConnectionLost) {
		t.Fatalf("GetTuple: %v, want ErrConnectionLost", err)
	}
	if msg := err.Error(); !strings.Contains(msg, addr) || !strings.Contains(msg, "in the middle of a request") || strings.Contains(msg, "unexpected EOF") {
		t.Errorf("GetTuple: %q, want the address and what happened, without the driver's text", msg)
	}

	p.breakRequestsNaming("INSERT") // reads pass, writes break
	_, err = g.Invoke(ctx, map[string]any{"n": 1.0}, engine.OnThread("new"))
	if !errors.Is(err, postgres.ErrConnectionLost) || !strings.Contains(err.Error(), "may or may not be stored") {
		t.Fatalf("a run whose commit broke: %v, want ErrConnectionLost saying the write may or may not be stored", err)
	}

	p.l.Close()
	p.cut()
	if _, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"}); !errors.Is(err, postgres.ErrUnreachable) {
		t.Fatalf("GetTuple with the server gone: %v, want ErrUnreachable", err)
	}
}

// appName names the test's connections to the server, so that it ends
// only its own sessions: other tests share the server.
func appName(t *testing.T) string {
	return "superstep_" + t.Name()
}

// A session the server ends (an administrator's pg_terminate_backend, a
// shutdown, an idle timeout) is a broken connection too: the next read
// runs again on a fresh one.
func TestStore_SessionEndedByServer(t *testing.T) {
	s, _, _ := openThroughProxy(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var ended int
	if err := conn.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", appName(t)).Scan(&ended); err != nil || ended == 0 {
		t.Fatalf("ending the store's sessions: %d ended, %v", ended, err)
	}
	if tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil || tup == nil {
		t.Fatalf("GetTuple after the server ended the sessions: %v, %v", tup, err)
	}
}
