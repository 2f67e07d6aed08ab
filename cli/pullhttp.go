package cli

import (
	"bufio"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/superstep/superstep/persist"
)

// isServiceURL reports whether s is an http:// or https:// URL: where a
// service mounts persist.ExportHandler, which pull reads threads from.
func isServiceURL(s string) bool {
	m := urlScheme.FindStringSubmatch(s)
	return m != nil && (m[1] == "http" || m[1] == "https")
}

// serviceExporter reads threads' exports from a service's
// persist.ExportHandler: pull's source when --from is an http(s) URL.
type serviceExporter struct {
	base    string   // --from as given
	url     *url.URL // base parsed
	headers http.Header
	client  *http.Client
	// quiet is how long the service may say nothing, before its answer
	// starts or in the middle of it, before the request is given up: a
	// stopped or wedged service, or a proxy that holds the connection,
	// fails the command instead of hanging it.
	quiet time.Duration
}

// serviceQuietTimeout is how long a service may say nothing (before its
// answer or in the middle of one) unless --timeout asks for longer. The
// handler writes a thread's export before it answers, a few seconds for
// the largest thread a pull can import.
const serviceQuietTimeout = time.Minute

// errServiceQuiet is the cause of a request given up because the service
// said nothing for serviceExporter.quiet.
var errServiceQuiet = errors.New("the service said nothing")

// newServiceExporter is the source of pull --from base. headers are the
// --header values, "Name: value" each; dial bounds connecting, and how
// long the service may say nothing is serviceQuietTimeout or dial, the
// longer.
func newServiceExporter(base string, headers []string, dial time.Duration) (*serviceExporter, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return nil, usagef("--from %s: not a URL of a service (want http://host:port/PATH, where the service mounts persist.ExportHandler)", displayDB(base))
	}
	h := http.Header{}
	for _, kv := range headers {
		name, value, ok := strings.Cut(kv, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, usagef("--header %q: want \"Name: value\", e.g. --header \"Authorization: Bearer $TOKEN\"", kv)
		}
		h.Add(name, strings.TrimSpace(value))
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = (&net.Dialer{Timeout: dial, KeepAlive: 30 * time.Second}).DialContext
	return &serviceExporter{base: base, url: u, headers: h, client: &http.Client{Transport: transport}, quiet: max(dial, serviceQuietTimeout)}, nil
}

// Export fetches thread's export document into w. A thread the service
// does not have is persist.ErrThreadNotFound; any other refusal says what
// the service answered.
func (s *serviceExporter) Export(ctx context.Context, thread string, w io.Writer, _ string) error {
	resp, err := s.get(ctx, persist.ExportPath+url.PathEscape(thread), nil)
	if err != nil {
		if errors.Is(err, errServiceThreadNotFound) {
			return fmt.Errorf("%w: %q", persist.ErrThreadNotFound, thread)
		}
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return resp.Body.(*quietBody).cutOff(ctx, fmt.Sprintf("thread %q's export", thread), err)
	}
	return nil
}

// Threads fetches the service's list of threads, the newest limit of them
// (0: all), and how many it has.
func (s *serviceExporter) Threads(ctx context.Context, limit int) ([]persist.ThreadInfo, int, error) {
	var query url.Values
	if limit > 0 {
		query = url.Values{"limit": {strconv.Itoa(limit)}}
	}
	resp, err := s.get(ctx, persist.ExportPath, query)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	threads, total, err := persist.ReadThreadList(resp.Body)
	if err != nil {
		if body := resp.Body.(*quietBody); body.err != nil {
			return nil, 0, body.cutOff(ctx, "the list of threads", body.err)
		}
		return nil, 0, fmt.Errorf("reading the list of threads from %s: %w", displayDB(s.base), unwrapURLError(err))
	}
	return threads, total, nil
}

// target is the URL of escapedPath (ExportPath and what follows it,
// path-escaped) under the service's base, with the base's query and
// query's pairs: --from may carry a query of its own, and ends with a
// slash or not.
func (s *serviceExporter) target(escapedPath string, query url.Values) string {
	u := *s.url
	u.Fragment, u.RawFragment = "", ""
	raw := strings.TrimRight(u.EscapedPath(), "/") + escapedPath
	if p, err := url.PathUnescape(raw); err == nil {
		u.Path, u.RawPath = p, raw
	}
	if len(query) > 0 {
		q := u.Query()
		for k, v := range query {
			q[k] = v
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// quietBody is an answer's body that keeps the request alive while the
// service sends, and counts what came: a service that goes quiet for
// serviceExporter.quiet has its request cancelled (errServiceQuiet).
type quietBody struct {
	io.ReadCloser
	watch     *time.Timer
	quiet     time.Duration
	cause     func() error // the request context's cause
	cancel    func(error)  // ends the request context
	got, size int64        // bytes read; the announced length, -1 unknown
	err       error        // the first read error but io.EOF
	service   string
}

func (b *quietBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.got += int64(n)
	if n > 0 {
		b.watch.Reset(b.quiet)
	}
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

func (b *quietBody) Close() error {
	b.watch.Stop()
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// cutOff is the error of an answer that ended before it was whole: the
// service stopped, restarted or went quiet mid-way, or the command was
// interrupted. Nothing was written: the caller writes only whole answers.
func (b *quietBody) cutOff(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return usagef("interrupted while %s sent %s; nothing was written", b.service, what)
	}
	of := ""
	if b.size >= 0 {
		of = " of " + byteSize(b.size)
	}
	why := fmt.Sprintf("closed the connection (%v): did it stop or restart?", unwrapURLError(err))
	if errors.Is(b.cause(), errServiceQuiet) {
		why = fmt.Sprintf("said nothing more for %v: is it stopped or overloaded?", b.quiet)
	}
	return usagef("%s sent %s of %s%s, then %s Nothing was written; try again", b.service, byteSize(b.got), what, of, why)
}

// byteSize is n bytes for a person: 512 bytes, 1.5 MiB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGT"[exp])
}

// errServiceThreadNotFound is get's error for the handler's answer that
// it has no such thread.
var errServiceThreadNotFound = errors.New("the service has no such thread")

// get GETs path under the service's base and returns the handler's answer
// of ExportOK, whose body the caller reads and closes. Any other answer is
// an error saying what answered: errServiceThreadNotFound for the
// handler's own "no such thread", a usage error with a hint for what is
// not the handler (a wrong path, a proxy, a login page), the service's
// line for its other refusals.
func (s *serviceExporter) get(ctx context.Context, path string, query url.Values) (*http.Response, error) {
	target := s.target(path, query)
	reqCtx, cancel := context.WithCancelCause(ctx)
	watch := time.AfterFunc(s.quiet, func() { cancel(errServiceQuiet) })
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, target, nil)
	if err != nil {
		watch.Stop()
		cancel(nil)
		return nil, usagef("--from %s: %v", displayDB(s.base), unwrapURLError(err))
	}
	req.Header = s.headers.Clone()
	resp, err := s.client.Do(req)
	if err != nil {
		watch.Stop()
		cancel(nil)
		if ctx.Err() != nil {
			return nil, usagef("interrupted while waiting for %s to answer; nothing was written", displayDB(s.base))
		}
		if errors.Is(context.Cause(reqCtx), errServiceQuiet) {
			return nil, usagef("%s took the request and said nothing for %v: is the service stopped or overloaded? (--timeout waits longer)", displayDB(s.base), s.quiet)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
			return nil, usagef("%s closed the connection before answering (%v): did the service stop or restart? Nothing was written; try again", displayDB(s.base), unwrapURLError(err))
		}
		hint := ""
		var unknownCA x509.UnknownAuthorityError
		if errors.As(err, &unknownCA) {
			hint = " (a service whose certificate an in-house authority signed: SSL_CERT_FILE=its certificate)"
		}
		return nil, usagef("cannot reach %s: %v%s", displayDB(s.base), unwrapURLError(err), hint)
	}
	watch.Reset(s.quiet)
	body := &quietBody{ReadCloser: resp.Body, watch: watch, quiet: s.quiet, cause: func() error { return context.Cause(reqCtx) }, cancel: cancel, size: resp.ContentLength, service: displayDB(s.base)}
	resp.Body = body
	from := resp.Header.Get(persist.ExportStatusHeader)
	if resp.StatusCode == http.StatusOK && from == persist.ExportOK {
		return resp, nil
	}
	defer resp.Body.Close()
	said := firstLine(resp.Body)
	switch {
	case from == persist.ExportThreadNotFound:
		return nil, errServiceThreadNotFound
	case from == persist.ExportRefused && resp.StatusCode == http.StatusNotFound:
		// The handler's own answer to a path that is neither a thread
		// nor the list: --from goes past where it is mounted.
		hint := "--from is where the service mounts persist.ExportHandler"
		if p := strings.TrimRight(s.url.Path, "/"); strings.HasSuffix(p, strings.TrimRight(persist.ExportPath, "/")) {
			hint += ", without " + persist.ExportPath + " (pull and threads add it)"
		}
		return nil, usagef("GET %s answered %s: neither a thread's export nor the list of threads; %s", displayDB(target), resp.Status, hint)
	case from == "":
		// Not the handler's answer: a wrong path, a proxy, a login page.
		what := resp.Status
		if ct := resp.Header.Get("Content-Type"); ct != "" && resp.StatusCode == http.StatusOK {
			mt, _, _ := mime.ParseMediaType(ct)
			what += ", " + mt
		}
		hint := "is --from where the service mounts persist.ExportHandler?"
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			hint = "pass the service's credentials with --header, e.g. --header \"Authorization: Bearer $TOKEN\""
		}
		return nil, usagef("GET %s answered %s, not a superstep export%s; %s", displayDB(target), what, quoted(said), hint)
	}
	return nil, fmt.Errorf("%s%s", resp.Status, quoted(said))
}

// firstLine is the first line of an error answer's body, at most 300
// bytes of it.
func firstLine(r io.Reader) string {
	line, _ := bufio.NewReader(io.LimitReader(r, 300)).ReadString('\n')
	return strings.TrimSpace(line)
}

// quoted is ": " and s, or nothing when s is empty.
func quoted(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// unwrapURLError drops url.Error's "Get URL:" prefix: the messages name
// the service themselves, without its password.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
