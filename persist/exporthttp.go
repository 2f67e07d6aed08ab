package persist

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// Exporter is a store whose threads ExportHandler serves: Store and the
// PostgreSQL store both are.
type Exporter interface {
	// Export writes thread's export document to w (Store.Export).
	Export(ctx context.Context, thread string, w io.Writer, fingerprint string) error
}

// ExportPath is the path, under where ExportHandler is mounted, that
// serves a thread's export: ExportPath + the thread id, path-escaped.
const ExportPath = "/threads/"

// ExportStatusHeader is the header every answer of ExportHandler
// carries: one word for what it answered (ExportOK, ExportThreadNotFound,
// ExportRefused), so that a client tells the handler's answers from those
// of a wrong path, a proxy or a login page.
const ExportStatusHeader = "Superstep-Export"

// The values of ExportStatusHeader.
const (
	ExportOK             = "ok"               // the body is the export document
	ExportThreadNotFound = "thread-not-found" // the store has no such thread
	ExportRefused        = "refused"          // anything else; the body says why
)

// ExportHandler serves the export document of a thread, as Export writes
// it (docs/export-format.md), to `superstep pull THREAD --from URL`, and
// the list of threads to `superstep threads --from URL`.
//
// src is any Exporter: this package's Store, or a PostgreSQL store
// (persist/postgres). It matters most for a service whose graphs run on a
// bbolt file: the file is the service's for as long as it runs (Open holds
// its lock), so a command beside it cannot read it. On PostgreSQL it
// spares the people who debug the service the database's credentials.
// Mounted in the service, the handler lets someone copy a failing thread
// onto a laptop without stopping the service or writing code:
//
//	mux.Handle("/debug/checkpoints/", http.StripPrefix("/debug/checkpoints", persist.ExportHandler(store)))
//
// and then `superstep pull t-42 --from https://svc.internal/debug/checkpoints`.
//
// GET (or HEAD) ExportPath + thread answers 200 with the document
// (application/json, with its length), 404 when the thread is not stored,
// 400 for an id that cannot be exported, 405 for any other method, and
// 503 once the store is closed; errors are one line of text. The export
// is written to a temporary file first and sent from there, so the read
// transaction lasts as long as the export, not as long as a slow client
// takes to download it (a long bbolt read transaction can hold up the
// service's writes when the file must grow). Answers of 200 are gzip
// compressed for a client that accepts it (Accept-Encoding; Go's client
// asks and decompresses on its own), and carry their length otherwise.
//
// GET (or HEAD) ExportPath itself lists the threads, when the store is a
// ThreadLister (each of this module's stores is): the one written last
// first, ?limit=N of them, as a document ReadThreadList reads (`superstep
// threads --from URL` prints it), so that someone looking for the failing
// thread sees which threads failed or wait for an answer, and, planned from
// each thread's graph record (ThreadInfo.Status), which are done and which
// still have tasks to run: a run that died or was cancelled mid-way.
//
// The handler serves every thread to whoever reaches it and checks no
// credentials: mount it where only the people who debug the service can
// reach it, behind the service's own authentication (pull's --header
// sends a token).
func ExportHandler(src Exporter) http.Handler {
	return &exportHandler{src: src}
}

type exportHandler struct{ src Exporter }

func (h *exportHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		httpError(w, http.StatusMethodNotAllowed, ExportRefused, "%s %s: only GET serves an export", r.Method, r.URL.Path)
		return
	}
	// The escaped path keeps a thread id's own slashes (%2F) apart from
	// the path's.
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), ExportPath)
	if ok && rest == "" {
		h.serveList(w, r)
		return
	}
	if !ok || strings.Contains(rest, "/") {
		httpError(w, http.StatusNotFound, ExportRefused, "%s: not a thread's export; GET %sTHREAD (the thread id path-escaped), or GET %s for the list", r.URL.Path, ExportPath, ExportPath)
		return
	}
	thread, err := url.PathUnescape(rest)
	if err != nil {
		httpError(w, http.StatusBadRequest, ExportRefused, "thread id %q: %v", rest, err)
		return
	}
	f, err := os.CreateTemp("", "superstep-export-*.json")
	if err != nil {
		httpError(w, http.StatusInternalServerError, ExportRefused, "export of thread %q: %v", thread, err)
		return
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	if err := h.src.Export(r.Context(), thread, f, ""); err != nil {
		if r.Context().Err() != nil {
			return // the client is gone: nobody reads an answer
		}
		status, word := exportStatus(err)
		httpError(w, status, word, "export of thread %q: %v", thread, err)
		return
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		httpError(w, http.StatusInternalServerError, ExportRefused, "export of thread %q: %v", thread, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(ExportStatusHeader, ExportOK)
	send(w, r, f, size)
}

// send answers 200 with size bytes of body, compressed when the client
// takes gzip (a list of 10,000 threads is 10 MiB of JSON, 0.3 MiB
// compressed; an export is mostly JSON too).
func send(w http.ResponseWriter, r *http.Request, body io.Reader, size int64) {
	w.Header().Add("Vary", "Accept-Encoding")
	if r.Method == http.MethodHead || !acceptsGzip(r) {
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = io.Copy(w, body) // a client that leaves mid-way has nothing to be told
		}
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	w.WriteHeader(http.StatusOK)
	gz, _ := gzip.NewWriterLevel(w, gzip.BestSpeed) // a valid level: no error
	if _, err := io.Copy(gz, body); err == nil {
		_ = gz.Close()
	}
}

// acceptsGzip reports whether r's Accept-Encoding takes gzip.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				continue
			}
			q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
			if !ok {
				return true
			}
			f, err := strconv.ParseFloat(q, 64)
			return err == nil && f > 0
		}
	}
	return false
}

// serveList answers GET ExportPath: the list document of the store's
// threads (ReadThreadList), newest first, ?limit=N of them.
func (h *exportHandler) serveList(w http.ResponseWriter, r *http.Request) {
	lister, ok := h.src.(ThreadLister)
	if !ok {
		httpError(w, http.StatusNotFound, ExportRefused, "this store does not list its threads; GET %sTHREAD (the thread id path-escaped)", ExportPath)
		return
	}
	limit := 0
	if q := r.URL.Query().Get("limit"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n <= 0 {
			httpError(w, http.StatusBadRequest, ExportRefused, "limit=%s: want a positive number of threads", q)
			return
		}
		limit = n
	}
	threads, err := lister.Threads(r.Context())
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		status, _ := exportStatus(err)
		httpError(w, status, ExportRefused, "listing threads: %v", err)
		return
	}
	// The store's transaction is over: a slow client holds no read of the
	// file, only this answer's bytes.
	var body bytes.Buffer
	if err := writeThreadList(&body, threads, limit); err != nil {
		httpError(w, http.StatusInternalServerError, ExportRefused, "listing threads: %v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(ExportStatusHeader, ExportOK)
	send(w, r, &body, int64(body.Len()))
}

// exportStatus is the HTTP status and ExportStatusHeader of Export's
// error.
func exportStatus(err error) (int, string) {
	switch {
	case errors.Is(err, ErrThreadNotFound):
		return http.StatusNotFound, ExportThreadNotFound
	case errors.Is(err, ErrInvalidID):
		return http.StatusBadRequest, ExportRefused
	case errors.Is(err, ErrClosed):
		return http.StatusServiceUnavailable, ExportRefused
	}
	return http.StatusInternalServerError, ExportRefused
}

// httpError answers status with one line of text.
func httpError(w http.ResponseWriter, status int, word, format string, args ...any) {
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	w.Header().Set(ExportStatusHeader, word)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintln(w, msg)
}
