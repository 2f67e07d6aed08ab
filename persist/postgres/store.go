package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// DefaultSchema is the schema superstep's tables live in unless the URL's
// schema parameter or Options.Schema names another.
const DefaultSchema = "superstep"

// DefaultReconnect is how long a request waits for a server that went
// away unless Options.Reconnect says otherwise: a restart or a failover
// takes seconds, and a run that fails on it pays its tasks again.
const DefaultReconnect = 30 * time.Second

// Options configures Open. The zero value uses DefaultSchema, synchronous
// durability, 16 connections, 2 concurrent commits, a 10-second connect
// timeout, and waits DefaultReconnect for a server that went away.
type Options struct {
	// Schema holds superstep's tables (default: the URL's "schema"
	// parameter, else DefaultSchema). It is created on first use.
	Schema string
	// Durability says when writes reach the server, as in persist.
	Durability persist.Durability
	// MaxConns caps the connection pool (default 16).
	MaxConns int32
	// ConcurrentCommits is how many commits the store sends at once
	// (default 2). Threads that want a commit while that many are under
	// way share the next one: one transaction for all of them, so the
	// fewer, the less CPU a superstep costs in this process and in the
	// server. A commit that would go while others are under way waits
	// until it holds its share of the threads that recently committed
	// at once (those between two supersteps included), or until those
	// under way end. More suit a server whose
	// CPU is contended, where a commit spends most of its time waiting
	// to run: each waits less, at the price of smaller groups.
	ConcurrentCommits int
	// ConnectTimeout bounds connecting, and the ping of a connection
	// that sat idle, after which it is taken for dead (default 10s). It
	// also bounds the wait for a commit sent to a server that stopped
	// answering, once the writer's context ended or in Close (see
	// CommitUnknownError).
	ConnectTimeout time.Duration
	// Reconnect is how long a request of an open store waits for a
	// server it cannot connect to (stopped, restarting, failing over, out
	// of reach) to accept connections again before it fails with
	// ErrUnreachable: default DefaultReconnect, negative not at all. Such
	// a request never reached the server, so a write waits and is sent
	// once, as it would have been. A connection that breaks under a
	// request is not waited for (ErrConnectionLost), nor is a server that
	// refuses the store's user or database. Open does not wait: a server
	// missing then is a setting to fix.
	Reconnect time.Duration
	// MaxBuffered bounds the memory that writes not yet committed may
	// take under async and exit durability, in bytes of their encoded
	// values, records and metadata (default persist.DefaultMaxBuffered,
	// 64 MiB), counted until their commit ends. A write that passes it
	// commits everything buffered and waits for that commit, as under
	// sync durability: while its caller wants it, and once the caller's
	// context ended, only while the server answers (CommitUnknownError).
	// Without it, a server slower than the writers, or one that stopped
	// answering, let buffered writes grow without limit.
	MaxBuffered int
	// ReadOnly neither creates nor migrates the schema (it must exist; an
	// older version is read as it is when its tables are this version's,
	// see readableFrom) and refuses writes with persist.ErrReadOnly.
	ReadOnly bool
	// Writer describes this process in the error another writer of the
	// same thread gets (default "host pid N store X").
	Writer string
}

// IsURL reports whether db names a PostgreSQL server (a postgres:// or
// postgresql:// URL) rather than a file.
func IsURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// Store is a checkpoint store in a PostgreSQL database. It implements
// engine.Saver (and passes enginetest.SaverSuite) and the browsing methods
// of persist.Store that the command line uses. Many processes on many
// machines may use one database at once; see Store.Put for what happens
// when two of them write the same thread. A Store is safe for concurrent
// use; values it returns are the caller's.
type Store struct {
	pool   *pgxpool.Pool
	schema string
	sql    statements
	mode   persist.Durability
	writer string
	addr   string
	// readOnly refuses writes.
	readOnly bool
	closed   atomic.Bool
	// reconnect is Options.Reconnect, 0 for not at all.
	reconnect time.Duration
	// connectTimeout is Options.ConnectTimeout: how long Close waits for
	// connections a silent server holds open, and a wait given up on for
	// a commit's answer (watch).
	connectTimeout time.Duration

	mu          sync.Mutex
	observed    map[string]int64 // thread -> sequence this store last saw
	heads       map[nsKey]*head  // the latest checkpoint this store put or loaded per namespace
	queues      map[string]*threadQueue
	spare       []*threadQueue   // queues of threads gone idle, for reuse (see settle)
	open        *group           // the group threads that want a commit join
	inFlight    int              // groups being sent
	maxInFlight int              // Options.ConcurrentCommits
	failed      map[string]error // thread -> a buffered write that failed
	// held is the bytes of the ops queued or being committed under
	// async and exit durability (op.size); past maxBuffered
	// (Options.MaxBuffered) a write waits for a commit (makeRoom).
	held, maxBuffered int
	// silent: a wait gave up on the server (see watch) and nothing has
	// been heard from it since.
	silent bool
	params paramsList // buffers of group statements' parameters, for reuse
	wake   chan struct{}
	done   chan struct{}
	// Group sizes (see mayStart), under mu: the threads in the groups
	// being sent, and the crowd, how many threads recently committed at
	// once (the most in the groups being sent and the one sealed, and
	// away, at a seal, decaying by an eighth per seal). away: threads
	// whose commit ended with nothing more queued and that have queued
	// nothing since, of the last two groups that ended (see ended); left,
	// how many the last group left.
	flying, crowd int
	away, left    int
	// sent and sentMembers count the groups sent and their threads.
	sent, sentMembers int64
}

var _ engine.Saver = (*Store)(nil)

var (
	_ engine.Outliner   = (*Store)(nil)
	_ engine.HeadLister = (*Store)(nil)
)

type nsKey struct{ thread, ns string }

// head is what the store knows of the newest checkpoint of a namespace:
// enough to store its child as a delta without reading it back.
type head struct {
	id     string
	state  *cpState
	values []valueEnc // the encodings of state.refs' values, index for index
	maxID  string     // no checkpoint of the namespace sorts after it
	// own: this store stored it as a new checkpoint (one that did not
	// replace one stored), so every write saved at it since is one this
	// store queued, and wrote names the tasks of those (regular writes):
	// what decides whether a task's writes may go in its child's pack
	// (Store.foldable).
	own   bool
	wrote []string
	one   [1]string // wrote's first, without an allocation
}

// Open connects to the database url names, creates or migrates
// superstep's schema, and returns the store.
//
// Errors are *OpenError values wrapping ErrBadURL, ErrUnreachable, ErrAuth,
// ErrNoDatabase, ErrPermission, ErrNewerSchema (a *SchemaError), or the
// server's error.
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	cleanURL, schema, err := splitSchema(rawURL)
	if err != nil {
		return nil, &OpenError{Addr: "?", Err: fmt.Errorf("%w: %v", ErrBadURL, err)}
	}
	if opts.Schema != "" {
		if err := checkSchema(opts.Schema); err != nil {
			return nil, &OpenError{Addr: "?", Err: fmt.Errorf("%w: %v", ErrBadURL, err)}
		}
		schema = opts.Schema
	}
	cfg, err := pgxpool.ParseConfig(cleanURL)
	if err != nil {
		return nil, &OpenError{Addr: "?", Err: fmt.Errorf("%w: %v", ErrBadURL, redact(err))}
	}
	cc := cfg.ConnConfig
	addr := net.JoinHostPort(cc.Host, fmt.Sprint(cc.Port))
	if strings.HasPrefix(cc.Host, "/") {
		addr = fmt.Sprintf("%s/.s.PGSQL.%d", cc.Host, cc.Port)
	}
	fail := func(err error) (*Store, error) {
		return nil, &OpenError{Addr: addr, Database: cc.Database, User: cc.User, Err: err}
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	if cc.ConnectTimeout == 0 || cc.ConnectTimeout > opts.ConnectTimeout {
		cc.ConnectTimeout = opts.ConnectTimeout
	}
	if cfg.PingTimeout == 0 { // no pool_ping_timeout in the URL
		// The pool pings a connection that sat idle before handing it
		// out, and lets the ping run on when the caller gives up: with no
		// bound, a server that stopped answering (frozen, or cut off
		// without a reset) kept Close waiting for that ping up to a
		// minute after the debugger's screen had gone.
		cfg.PingTimeout = opts.ConnectTimeout
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	} else if !strings.Contains(cleanURL, "pool_max_conns") {
		cfg.MaxConns = 16
	}
	if _, ok := cc.RuntimeParams["application_name"]; !ok {
		cc.RuntimeParams["application_name"] = "superstep"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fail(classify(err, addr, cc.Database, cc.User, schema))
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return fail(classify(err, addr, cc.Database, cc.User, schema))
	}
	if err := migrate(ctx, pool, schema, opts.ReadOnly); err != nil {
		pool.Close()
		return fail(classify(err, addr, cc.Database, cc.User, schema))
	}
	if opts.Writer == "" {
		opts.Writer = defaultWriter()
	}
	if opts.ConcurrentCommits <= 0 {
		opts.ConcurrentCommits = defaultConcurrentCommits
	}
	switch {
	case opts.Reconnect == 0:
		opts.Reconnect = DefaultReconnect
	case opts.Reconnect < 0:
		opts.Reconnect = 0
	}
	if opts.MaxBuffered <= 0 {
		opts.MaxBuffered = persist.DefaultMaxBuffered
	}
	s := &Store{
		pool: pool, schema: schema, sql: newStatements(schema), mode: opts.Durability,
		writer: opts.Writer, addr: addr, readOnly: opts.ReadOnly, reconnect: opts.Reconnect, connectTimeout: opts.ConnectTimeout,
		observed: map[string]int64{}, heads: map[nsKey]*head{}, queues: map[string]*threadQueue{},
		open: newGroup(), maxInFlight: opts.ConcurrentCommits,
		failed: map[string]error{}, maxBuffered: opts.MaxBuffered,
	}
	if s.mode == persist.DurabilityAsync {
		s.wake, s.done = make(chan struct{}, 1), make(chan struct{})
		go s.background()
	}
	return s, nil
}

// splitSchema removes the "schema" parameter, which is superstep's and not
// the server's, from a URL, and checks the name (checkSchema). The query
// is split by hand: url.Query drops a pair it cannot parse (one with a
// ";"), which then reached the server as a setting of its own.
func splitSchema(raw string) (clean, schema string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", urlProblem(err)
	}
	schema = DefaultSchema
	var kept []string
	for _, pair := range strings.Split(u.RawQuery, "&") {
		key, value, _ := strings.Cut(pair, "=")
		if k, err := url.QueryUnescape(key); err != nil || k != "schema" {
			if pair != "" {
				kept = append(kept, pair)
			}
			continue
		}
		if schema, err = url.QueryUnescape(value); err != nil {
			return "", "", fmt.Errorf("schema %q: %v", value, err)
		}
		if err := checkSchema(schema); err != nil {
			return "", "", err
		}
	}
	u.RawQuery = strings.Join(kept, "&")
	return u.String(), schema, nil
}

// urlProblem says what url.Parse found wrong in a URL without quoting
// it: a quoted piece may be part of the password (one holding '/', '?' or
// '#' ends the host early, and its rest is read as the port).
func urlProblem(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var esc url.EscapeError
	var host url.InvalidHostError
	switch {
	case errors.As(err, &esc):
		return errors.New("a '%' in it is not followed by two hex digits (write a password's '%' as %25)")
	case errors.As(err, &host):
		return errors.New("invalid character in the host")
	case strings.HasPrefix(err.Error(), "invalid port"):
		return errors.New("invalid port after the host (a password holding '/', '?', '#' or '@' must be percent-encoded)")
	}
	return err
}

// checkSchema refuses a schema name the server would not keep as given:
// empty, past PostgreSQL's 63 bytes (it cuts a longer name, so two long
// names would share one schema and each other's threads), or one of the
// server's own; and one holding "$$", which ended the quoted body of a
// function the first migration makes (a syntax error, or SQL of the URL's
// run as the schema's).
func checkSchema(name string) error {
	switch {
	case name == "":
		return errors.New("empty schema name")
	case len(name) > maxSchemaLen:
		return fmt.Errorf("schema name %q is longer than %d bytes: PostgreSQL would cut it, and two names would share one schema", name, maxSchemaLen)
	case strings.ContainsRune(name, 0):
		return fmt.Errorf("schema name %q holds a NUL byte", name)
	case strings.Contains(name, "$$"):
		// The functions the schema is made with name it in their
		// bodies, which are quoted by $$: it would end one there.
		return fmt.Errorf("schema name %q holds \"$$\", which superstep cannot put in its functions' bodies: name another", name)
	case strings.HasPrefix(strings.ToLower(name), "pg_"), strings.EqualFold(name, "information_schema"):
		return fmt.Errorf("schema %q is the server's own: name another", name)
	}
	return nil
}

// maxSchemaLen is PostgreSQL's identifier length (NAMEDATALEN - 1).
const maxSchemaLen = 63

// redact keeps a parse error from echoing a password: it says what is
// wrong without the URL ("invalid port", "failed to configure TLS (sslmode
// is invalid)"), which pgx masks only as best it can. Cut at the first
// ':' it said "cannot parse `postgres", and never what was wrong.
func redact(err error) error {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		msg := pe.Error()
		if pe.ConnString != "" {
			if _, why, ok := strings.Cut(msg, pe.ConnString+"`: "); ok {
				return errors.New(why)
			}
		}
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			return errors.New(msg[i+3:])
		}
		return errors.New("cannot parse the URL")
	}
	return err
}

// classify turns a connection or migration failure into the error a user
// can act on.
func classify(err error, addr, database, user, schema string) error {
	var se *SchemaError
	if errors.As(err, &se) {
		return err
	}
	switch pgCode(err) {
	case "28P01", "28000":
		return fmt.Errorf("%w for user %q (check the user and password in the URL)", ErrAuth, user)
	case "3D000":
		return fmt.Errorf("%w: %q (create it with createdb, or name another in the URL)", ErrNoDatabase, database)
	case "42501":
		return fmt.Errorf("%w: user %q may not create or use schema %q (grant it CREATE on the database or USAGE and CREATE on the schema)", ErrPermission, user, schema)
	}
	var ne net.Error
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENOENT):
		return fmt.Errorf("%w: nothing listens at %s (is the server running?)", ErrUnreachable, addr)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("%w: host %q not found", ErrUnreachable, dnsErr.Name)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%w: no answer from %s before the connect timeout", ErrUnreachable, addr)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return fmt.Errorf("%w: no route to %s", ErrUnreachable, addr)
	}
	return err
}

func defaultWriter() string {
	host, _ := os.Hostname()
	var b [3]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s pid %d store %s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// Schema returns the schema the store's tables live in.
func (s *Store) Schema() string { return s.schema }

// Writer returns how this store names itself to other writers.
func (s *Store) Writer() string { return s.writer }

// Durability returns the store's durability mode.
func (s *Store) Durability() persist.Durability { return s.mode }

// Flush commits every buffered write and waits for it. It returns
// persist.ErrAsyncWrite wrapping the first buffered write that failed.
//
// As Close does, it waits for a commit the server does not answer while
// the server answers new connections, and gives up once it leaves one
// unanswered for Options.ConnectTimeout: Flush then returns a
// *CommitUnknownError (ErrCommitUnknown) naming the thread and the writes
// in flight, which may or may not be stored; the commit goes on in the
// background.
func (s *Store) Flush() error {
	if s.closed.Load() {
		return persist.ErrClosed
	}
	w := s.startWatch()
	defer w.stop()
	return s.flushAll(context.Background(), true, w)
}

// Close commits buffered writes and closes the connections. It returns the
// first buffered write failure. Closing twice is a no-op.
//
// A commit that the server does not answer is waited for while the server
// answers new connections, and given up on once it leaves one unanswered
// for Options.ConnectTimeout (frozen, or cut off without a reset): Close
// then returns a *CommitUnknownError (ErrCommitUnknown) naming the thread
// and the writes in flight, which may or may not be stored. One given up
// on already (a write whose caller cancelled it) is not waited for again.
//
// A connection closes with a goodbye to the server; one that stopped
// answering with its connections open would keep the pool closing each
// for up to 15 seconds, its own bound. Close waits for them no longer
// than Options.ConnectTimeout, not at all once it gave up on a commit,
// and lets them close in the background: the writes are committed by
// then, failed, or reported unknown.
func (s *Store) Close() error {
	if s.closed.Load() {
		return nil
	}
	w := s.startWatch()
	err := s.flushAll(context.Background(), true, w)
	w.stop()
	s.closed.Store(true)
	if s.done != nil {
		close(s.done)
	}
	closed := make(chan struct{})
	go func() {
		s.pool.Close()
		close(closed)
	}()
	if errors.Is(err, ErrCommitUnknown) {
		return err // the server does not answer: nothing to wait for
	}
	wait := time.NewTimer(s.connectTimeout)
	defer wait.Stop()
	select {
	case <-closed:
	case <-wait.C:
	}
	return err
}

// writable checks that a write to thread may be made.
func (s *Store) writable(ctx context.Context, thread string) error {
	if s.closed.Load() {
		return persist.ErrClosed
	}
	if s.readOnly {
		return persist.ErrReadOnly
	}
	s.mu.Lock()
	err := s.failed[thread]
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%w: %w", persist.ErrAsyncWrite, err)
	}
	return ctx.Err()
}

// readable commits what is buffered for thread, so reads see it, and
// checks the store is open. A failed buffered write is reported by writes
// and Flush; reads show what was committed.
func (s *Store) readable(ctx context.Context, thread string) error {
	if s.closed.Load() {
		return persist.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if thread == "" {
		_ = s.flushAll(ctx, false, nil)
	} else {
		_ = s.commit(ctx, thread, false)
	}
	return nil
}

// bs is s as a non-nil byte slice: pgx sends a nil slice as NULL.
func bs(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return []byte(s)
}

// nullable is s as bytes, or NULL for "".
func nullable(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

// observe records the thread sequence a read of namespace ns saw: the
// writes that follow build on it, and an earlier buffered failure of the
// thread is forgotten. Only a read of the root namespace reloads a thread
// the store already observed: a run reads it there when it starts, while
// a subgraph reads its own namespace in the middle of its parent's run,
// whose root state is still the one read before; taking that read for a
// reload let a run that another process overtook meanwhile store its
// next checkpoints beside the other's. A subgraph's read of a thread the
// store never read is its first observation.
func (s *Store) observe(thread, ns string, seq int64) {
	s.mu.Lock()
	if _, seen := s.observed[thread]; ns == "" || !seen {
		s.observed[thread] = seq
		delete(s.failed, thread)
	}
	s.mu.Unlock()
}

// ExportHandler serves this store's threads too.
var _ persist.Exporter = (*Store)(nil)
