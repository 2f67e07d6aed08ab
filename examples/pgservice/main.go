// Command pgservice is a small HTTP service that runs a graph on many
// machines against one PostgreSQL database: every machine opens the same
// URL, any of them starts a thread, and any of them continues it. The graph
// drafts a reply to a customer's request and asks a person to approve it
// (an interrupt); the answer may reach another machine than the one that
// asked, which goes on from the thread's checkpoint in the database.
//
//	pgservice -db postgres://me@db.internal/agents -addr :8080 -admin 127.0.0.1:6061
//
//	POST /runs   {"thread":"t-1","request":"refund order 42"}
//	    → {"thread":"t-1","status":"interrupted","draft":"…"}
//	POST /resume {"thread":"t-1","answer":"yes"}
//	    → {"thread":"t-1","status":"done","outcome":"sent","draft":"…"}
//
// -admin serves persist.ExportHandler, for the people who debug the
// service only (it checks no credentials): it lists the threads and
// copies one to a laptop without database credentials there:
//
//	superstep threads --from http://127.0.0.1:6061/debug/checkpoints
//	superstep pull t-1 --from http://127.0.0.1:6061/debug/checkpoints --db bug.db
//
// Errors a caller can act on get their own status: 409 when two machines
// advanced one thread at once (postgres.ErrThreadConflict: the loser's
// writes were not stored; ask again) or nothing waits for an answer, 503
// when the database does not answer (postgres.ErrUnreachable,
// ErrConnectionLost, ErrCommitUnknown: the message says what may or may
// not be saved). A request whose client goes away cancels its run; the
// tasks that finished keep their writes.
//
// Its test (main_test.go) runs two such machines against the throwaway
// server the store's own tests use: see there for how to run it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// Service is one machine of the service: a store on the shared database
// and the graph compiled on it.
type Service struct {
	store *postgres.Store
	graph *engine.Graph
}

// Open opens the store at url (a postgres:// URL; its schema parameter
// picks the schema) and compiles the graph on it.
func Open(ctx context.Context, url string, opts postgres.Options) (*Service, error) {
	if !postgres.IsURL(url) {
		return nil, fmt.Errorf("-db %q: want a postgres:// URL", url)
	}
	store, err := postgres.Open(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	g, err := buildGraph(store)
	if err != nil {
		store.Close()
		return nil, err
	}
	return &Service{store: store, graph: g}, nil
}

// Close commits what the store buffered and closes it.
func (s *Service) Close() error { return s.store.Close() }

// buildGraph is the service's graph: draft a reply, then ask a person
// whether to send it.
func buildGraph(saver engine.Saver) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.LastValueKey("request"), engine.LastValueKey("draft"), engine.LastValueKey("outcome")).
		Named("pgservice"). // the name its threads' record gives superstep
		AddNode("write", func(_ context.Context, in any) (any, error) {
			req, _ := in.(map[string]any)["request"].(string)
			return map[string]any{"draft": "Dear customer, about your request (" + req + "): it is done."}, nil
		}).
		AddNode("review", func(ctx context.Context, in any) (any, error) {
			// The first time, Interrupt stops the run with the draft as its
			// question; the run that resumes the thread gets the answer.
			answer, err := engine.Interrupt(ctx, in.(map[string]any)["draft"])
			if err != nil {
				return nil, err
			}
			if answer == "yes" {
				return map[string]any{"outcome": "sent"}, nil
			}
			return map[string]any{"outcome": "rejected"}, nil
		}).
		AddEdge(engine.Start, "write").AddEdge("write", "review").AddEdge("review", engine.End).
		Compile(engine.WithSaver(saver))
}

// RunRequest starts a thread.
type RunRequest struct {
	Thread  string `json:"thread"`
	Request string `json:"request"`
}

// ResumeRequest answers the question a thread waits on.
type ResumeRequest struct {
	Thread string `json:"thread"`
	Answer string `json:"answer"`
}

// Reply is what both endpoints answer with on success.
type Reply struct {
	Thread  string `json:"thread"`
	Status  string `json:"status"` // interrupted (waits for an answer) or done
	Draft   string `json:"draft,omitempty"`
	Outcome string `json:"outcome,omitempty"` // sent or rejected, once done
}

// Handler serves POST /runs and POST /resume.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /runs", func(w http.ResponseWriter, r *http.Request) {
		var req RunRequest
		if !decode(w, r, &req) {
			return
		}
		res, err := s.graph.Invoke(r.Context(), map[string]any{"request": req.Request}, engine.OnThread(req.Thread))
		s.answer(w, req.Thread, res, err)
	})
	mux.HandleFunc("POST /resume", func(w http.ResponseWriter, r *http.Request) {
		var req ResumeRequest
		if !decode(w, r, &req) {
			return
		}
		// A resume of a thread that waits for nothing runs nothing and
		// says done: ask first (engine.ErrNothingPending says so).
		snap, err := s.graph.GetState(r.Context(), engine.Config{ThreadID: req.Thread})
		if err == nil && len(snap.Interrupts()) == 0 {
			err = fmt.Errorf("thread %q: %w", req.Thread, engine.ErrNothingPending)
		}
		if err != nil {
			s.answer(w, req.Thread, nil, err)
			return
		}
		res, err := s.graph.Invoke(r.Context(), engine.Command{Resume: req.Answer}, engine.OnThread(req.Thread))
		s.answer(w, req.Thread, res, err)
	})
	return mux
}

// AdminHandler serves the store's threads to superstep threads and pull,
// under /debug/checkpoints/. Mount it where only the people who debug the
// service reach it.
func (s *Service) AdminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/debug/checkpoints/", http.StripPrefix("/debug/checkpoints", persist.ExportHandler(s.store)))
	return mux
}

// decode reads a request's JSON body into v, or answers 400 and reports
// false.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		http.Error(w, "bad request body: "+err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// answer writes a run's outcome, or its error with the status a caller
// can act on.
func (s *Service) answer(w http.ResponseWriter, thread string, res *engine.Result, err error) {
	if err != nil {
		code := http.StatusInternalServerError
		switch {
		case errors.Is(err, persist.ErrInvalidID):
			code = http.StatusBadRequest
		case errors.Is(err, postgres.ErrThreadConflict), errors.Is(err, engine.ErrNothingPending):
			code = http.StatusConflict
		case errors.Is(err, postgres.ErrUnreachable), errors.Is(err, postgres.ErrConnectionLost), errors.Is(err, postgres.ErrCommitUnknown):
			code = http.StatusServiceUnavailable
		}
		http.Error(w, err.Error(), code)
		return
	}
	out := Reply{Thread: thread, Status: "done"}
	out.Draft, _ = res.Values["draft"].(string)
	out.Outcome, _ = res.Values["outcome"].(string)
	if res.Status == engine.StatusInterrupted {
		out.Status = "interrupted"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

func main() {
	db := flag.String("db", os.Getenv("PGSERVICE_DB"), "the PostgreSQL URL every machine of the service shares (default $PGSERVICE_DB)")
	addr := flag.String("addr", "127.0.0.1:8080", "where to serve /runs and /resume")
	admin := flag.String("admin", "127.0.0.1:6061", "where to serve the threads to superstep pull (only the people who debug the service may reach it); empty: not at all")
	flag.Parse()
	if err := serve(*db, *addr, *admin); err != nil {
		fmt.Fprintln(os.Stderr, "pgservice:", err)
		os.Exit(1)
	}
}

// serve runs the service until SIGINT or SIGTERM, then stops taking
// requests, lets those under way end, and closes the store.
func serve(db, addr, admin string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	svc, err := Open(ctx, db, postgres.Options{})
	if err != nil {
		return err
	}
	servers := []*http.Server{{Addr: addr, Handler: svc.Handler()}}
	if admin != "" {
		servers = append(servers, &http.Server{Addr: admin, Handler: svc.AdminHandler()})
	}
	failed := make(chan error, len(servers))
	for _, srv := range servers {
		go func() {
			log.Printf("pgservice: listening on http://%s", srv.Addr)
			if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
				failed <- err
			}
		}()
	}
	select {
	case <-ctx.Done():
	case err = <-failed:
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, srv := range servers {
		srv.Shutdown(shutdown)
	}
	return errors.Join(err, svc.Close())
}
