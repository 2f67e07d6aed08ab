package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	l      net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	cutOn  []byte
	// afterOn: the request naming it (and not afterNot) reaches the
	// server, which runs it, but its reply is dropped and the connection
	// closed after a while: a commit whose reply never came.
	afterOn, afterNot []byte
	// frozen: nothing is relayed either way and no connection closes, as
	// with a server that stopped answering (SIGSTOP, a dead route): bytes
	// wait in the relays until thaw.
	frozen chan struct{}
	// holding is signalled (without blocking) when a request of the
	// client's, or the server's reply, waits in a frozen relay: it was
	// sent and is unanswered.
	holding chan struct{}
	// accepted, when set, is signalled (without blocking) as each new
	// connection is accepted.
	accepted chan struct{}
}

func newBreakingProxy(t *testing.T, target string) *breakingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &breakingProxy{l: l, target: target, holding: make(chan struct{}, 1)}
	t.Cleanup(func() { p.thaw(); p.listener().Close(); p.cut() })
	go p.serve(l)
	return p
}

// listener is the proxy's listener now (start replaces it).
func (p *breakingProxy) listener() net.Listener {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.l
}

// stop takes the server away as a stopped or restarting server goes:
// every connection breaks, and nothing listens at the address until
// start.
func (p *breakingProxy) stop() {
	p.listener().Close()
	p.cut()
}

// start listens at the address again, after stop.
func (p *breakingProxy) start(t *testing.T) {
	t.Helper()
	l, err := net.Listen("tcp", p.listener().Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.l = l
	p.mu.Unlock()
	go p.serve(l)
}

// serve relays the connections l accepts until l is closed.
func (p *breakingProxy) serve(l net.Listener) {
	target := p.target
	func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			accepted := p.accepted
			p.mu.Unlock()
			if accepted != nil {
				select {
				case accepted <- struct{}{}:
				default:
				}
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			var mute atomic.Bool
			go p.relay(s, c, &mute)
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := s.Read(buf)
					if n > 0 {
						p.hold()
					}
					p.waitThawed()
					if n > 0 && !mute.Load() {
						if _, err := c.Write(buf[:n]); err != nil {
							break
						}
					}
					if err != nil {
						break
					}
				}
				c.Close()
			}()
		}
	}()
}

// relay copies the client's bytes to the server until the connection
// ends or carries cutOn, or afterOn (whose replies mute drops).
func (p *breakingProxy) relay(server, client net.Conn, mute *atomic.Bool) {
	defer server.Close()
	defer client.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			p.mu.Lock()
			cut := p.cutOn != nil && bytes.Contains(buf[:n], p.cutOn)
			after := p.afterOn != nil && bytes.Contains(buf[:n], p.afterOn) && !bytes.Contains(buf[:n], p.afterNot)
			if after {
				p.afterOn = nil // once
			}
			p.mu.Unlock()
			if cut {
				return
			}
			if after {
				mute.Store(true)
			}
			p.hold()
			p.waitThawed()
			if _, err := server.Write(buf[:n]); err != nil {
				return
			}
			if after {
				time.Sleep(300 * time.Millisecond) // the server commits meanwhile
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// freeze stops the server answering, connections open, until thaw.
func (p *breakingProxy) freeze() {
	p.mu.Lock()
	p.frozen = make(chan struct{})
	p.mu.Unlock()
}

// thaw lets the frozen relays go on.
func (p *breakingProxy) thaw() {
	p.mu.Lock()
	if p.frozen != nil {
		close(p.frozen)
		p.frozen = nil
	}
	p.mu.Unlock()
}

// hold signals holding when the proxy is frozen: a request or its
// reply is about to wait in a relay.
func (p *breakingProxy) hold() {
	p.mu.Lock()
	frozen := p.frozen != nil
	p.mu.Unlock()
	if frozen {
		select {
		case p.holding <- struct{}{}:
		default:
		}
	}
}

// waitThawed returns once the proxy is not frozen.
func (p *breakingProxy) waitThawed() {
	p.mu.Lock()
	f := p.frozen
	p.mu.Unlock()
	if f != nil {
		<-f
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

func (p *breakingProxy) dropReplyToRequestNaming(s, unless string) {
	p.mu.Lock()
	p.afterOn, p.afterNot = []byte(s), []byte(unless)
	p.mu.Unlock()
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
	return openThroughProxyWith(t, postgres.Options{Reconnect: -1}, nil)
}

// openThroughProxyWith is openThroughProxy with opts, and node as the
// graph's node when not nil.
func openThroughProxyWith(t *testing.T, opts postgres.Options, node engine.NodeFunc) (*postgres.Store, *engine.Graph, *breakingProxy) {
	t.Helper()
	s, p := storeThroughProxy(t, opts)
	inc := func(_ context.Context, in any) (any, error) {
		return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
	}
	if node == nil {
		node = inc
	}
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("inc", node).
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

// storeThroughProxy opens a store with opts on a fresh schema, its
// connections going through a breakingProxy.
func storeThroughProxy(t *testing.T, opts postgres.Options) (*postgres.Store, *breakingProxy) {
	t.Helper()
	u, err := url.Parse(withParam(schemaURL(t), "application_name", appName(t)))
	if err != nil {
		t.Fatal(err)
	}
	p := newBreakingProxy(t, u.Host)
	u.Host = p.l.Addr().String()
	return open(t, u.String(), opts), p
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

	p.stop()

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

// A commit the server ran whose reply never came (the connection broke
// after the server committed it) is sent again, as after any broken
// commit. The thread's claim passes, for the store itself advanced it, and
// the rows stored already are taken as stored: the run goes on, and the
// thread holds each checkpoint once.
func TestStore_CommitWhoseReplyWasLost(t *testing.T) {
	s, g, p := openThroughProxy(t)
	ctx := context.Background()
	before, err := s.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The group statement's execution names it; its preparation also
	// carries its text.
	p.dropReplyToRequestNaming("superstep_group", "INSERT")
	res, err := g.Invoke(ctx, map[string]any{"n": 5.0}, engine.OnThread("t"))
	if err != nil || res.Values["n"] != 6.0 {
		t.Fatalf("a run whose commit's reply was lost: %v, %v", res, err)
	}
	p.mu.Lock()
	dropped := p.afterOn == nil
	p.mu.Unlock()
	if !dropped {
		t.Fatal("no group statement's reply was dropped: the test tested nothing")
	}
	after, err := s.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, tup := range after {
		if ids[tup.Checkpoint.ID] {
			t.Fatalf("checkpoint %s is listed twice", tup.Checkpoint.ID)
		}
		ids[tup.Checkpoint.ID] = true
	}
	if len(after) != 2*len(before) {
		t.Fatalf("%d checkpoints after a second run, %d after the first", len(after), len(before))
	}
}
