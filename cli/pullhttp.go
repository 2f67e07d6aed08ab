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
	base    string // --from as given
	headers http.Header
	client  *http.Client
}

// newServiceExporter is the source of pull --from base. headers are the
// --header values, "Name: value" each; dial bounds connecting.
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
	return &serviceExporter{base: base, headers: h, client: &http.Client{Transport: transport}}, nil
}

// Export fetches thread's export document into w. A thread the service
// does not have is persist.ErrThreadNotFound; any other refusal says what
// the service answered.
func (s *serviceExporter) Export(ctx context.Context, thread string, w io.Writer, _ string) error {
	resp, err := s.get(ctx, persist.ExportPath+url.PathEscape(thread))
	if err != nil {
		if errors.Is(err, errServiceThreadNotFound) {
			return fmt.Errorf("%w: %q", persist.ErrThreadNotFound, thread)
		}
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return fmt.Errorf("reading the export from %s: %w", displayDB(s.base), unwrapURLError(err))
	}
	return nil
}

// Threads fetches the service's list of threads, the newest limit of them
// (0: all), and how many it has.
func (s *serviceExporter) Threads(ctx context.Context, limit int) ([]persist.ThreadInfo, int, error) {
	path := persist.ExportPath
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	resp, err := s.get(ctx, path)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	threads, total, err := persist.ReadThreadList(resp.Body)
	if err != nil {
		return nil, 0, fmt.Errorf("reading the list of threads from %s: %w", displayDB(s.base), unwrapURLError(err))
	}
	return threads, total, nil
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
func (s *serviceExporter) get(ctx context.Context, path string) (*http.Response, error) {
	target := strings.TrimRight(s.base, "/") + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, usagef("--from %s: %v", displayDB(s.base), unwrapURLError(err))
	}
	req.Header = s.headers.Clone()
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		hint := ""
		var unknownCA x509.UnknownAuthorityError
		if errors.As(err, &unknownCA) {
			hint = " (a service whose certificate an in-house authority signed: SSL_CERT_FILE=its certificate)"
		}
		return nil, usagef("cannot reach %s: %v%s", displayDB(s.base), unwrapURLError(err), hint)
	}
	from := resp.Header.Get(persist.ExportStatusHeader)
	if resp.StatusCode == http.StatusOK && from == persist.ExportOK {
		return resp, nil
	}
	defer resp.Body.Close()
	said := firstLine(resp.Body)
	switch {
	case from == persist.ExportThreadNotFound:
		return nil, errServiceThreadNotFound
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
