// Command opsagent is the service of the README's bad-case workflow: a
// tool-calling support agent that serves many users over HTTP and
// checkpoints every run into one bbolt file, with persist.ExportHandler
// mounted behind a bearer token so that whoever is on call can list and
// pull its threads with nothing but the superstep binary. The on-call test
// (cli/oncall_test.go) builds it against this repository with go mod edit
// -replace, as the README tells a user to, and walks the workflow on it.
//
//	opsagent serve --db FILE --addr HOST:PORT --token TOKEN [--prefix /debug/checkpoints]
//	    serves POST /agent/runs {"thread","question"} and POST /agent/resume
//	    {"thread","answer"}, and the export handler at --prefix for a
//	    request with "Authorization: Bearer TOKEN"; prints "listening on
//	    http://ADDR" once it listens, and closes the file on SIGTERM or
//	    SIGINT
//	opsagent drive URL N
//	    starts N threads, 64 at a time, through a serving opsagent at URL and
//	    prints how many of them ended how
//	opsagent anything else
//	    superstep's command line, which knows the graph "support"
//
// The model reads the user's question, "VERB ORDER [AMOUNT]", and calls
// the tools it names. Its tools fail the way tools do: lookup of the order
// "missing" returns an error; refund of an amount without cents ("42")
// indexes past the end of a slice and discount writes to a nil map, both
// panics; a refund over 100 asks a human to approve it (an interrupt).
// OPSAGENT_FIX=1 is "the fix": both panics are gone.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/superstep/superstep/cli"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/persist"
)

func fixed() bool { return os.Getenv("OPSAGENT_FIX") == "1" }

func messages(s any) []any {
	msgs, _ := s.(map[string]any)["messages"].([]any)
	return msgs
}

func field(m any, key string) any {
	mm, _ := m.(map[string]any)
	return mm[key]
}

// minted is a name as a model's provider mints one: new every call.
func minted(prefix string) string { return fmt.Sprintf("%s%016x", prefix, rand.Uint64()) }

// model asks for the tools the user's question names, then says what they
// answered, or that a human must approve.
func model(_ context.Context, s any) (any, error) {
	msgs := messages(s)
	last := msgs[len(msgs)-1]
	say := map[string]any{"id": minted("msg_"), "role": "assistant"}
	if field(last, "role") == "user" {
		words := strings.Fields(fmt.Sprint(field(last, "content")))
		if len(words) < 2 {
			say["content"] = "which order?"
			return engine.Pairs("messages", []any{say}), nil
		}
		args := map[string]any{"order": words[1]}
		if len(words) > 2 {
			args["amount"] = words[2]
		}
		calls := []any{map[string]any{"id": minted("call_"), "name": "lookup", "args": map[string]any{"order": words[1]}}}
		if words[0] != "lookup" {
			calls = append(calls, map[string]any{"id": minted("call_"), "name": words[0], "args": args})
		}
		say["content"], say["tool_calls"] = "working on it", calls
		return engine.Pairs("messages", []any{say}), nil
	}
	var results []string
	for i := len(msgs) - 1; i >= 0 && field(msgs[i], "role") == "tool"; i-- {
		results = append(results, fmt.Sprint(field(msgs[i], "content")))
	}
	say["content"] = "done: " + strings.Join(results, "; ")
	for _, r := range results {
		if strings.Contains(r, "needs approval") {
			say["content"] = "asking a human"
		}
	}
	return engine.Pairs("messages", []any{say}), nil
}

// tool runs one call the model asked for (one Send each) and answers it
// by tool_call_id.
func tool(_ context.Context, arg any) (any, error) {
	call := arg.(map[string]any)
	args, _ := call["args"].(map[string]any)
	order := fmt.Sprint(args["order"])
	var result string
	switch call["name"] {
	case "lookup":
		if order == "missing" {
			return nil, fmt.Errorf("lookup: order %q not found", order)
		}
		result = "order " + order + ": shipped"
	case "refund":
		result = refund(order, fmt.Sprint(args["amount"]))
	case "discount":
		result = discount(order)
	default:
		return nil, fmt.Errorf("no tool %q", call["name"])
	}
	return engine.Pairs("messages", []any{map[string]any{"role": "tool", "content": result, "tool_call_id": call["id"]}}), nil
}

// refund pays back amount ("42.50"). Before the fix an amount without
// cents indexes past the end of its parts.
func refund(order, amount string) string {
	parts := strings.SplitN(amount, ".", 2)
	if fixed() && len(parts) == 1 {
		parts = append(parts, "00")
	}
	euros, _ := strconv.Atoi(parts[0])
	cents := parts[1]
	if euros > 100 {
		return fmt.Sprintf("refund of %d.%s for %s needs approval", euros, cents, order)
	}
	return fmt.Sprintf("refunded %d.%s for %s", euros, cents, order)
}

// discount gives an order a code. Before the fix it counts codes in a nil
// map.
func discount(order string) string {
	var given map[string]int
	if fixed() {
		given = map[string]int{}
	}
	given[order]++
	return fmt.Sprintf("discount %d for %s", given[order], order)
}

// approve asks a human whether a refund may go ahead.
func approve(ctx context.Context, s any) (any, error) {
	msgs := messages(s)
	answer, err := engine.Interrupt(ctx, map[string]any{"question": "approve this refund?", "order": fmt.Sprint(field(msgs[0], "content"))})
	if err != nil {
		return nil, err
	}
	return engine.Pairs("messages", []any{map[string]any{"id": minted("msg_"), "role": "assistant", "content": fmt.Sprintf("a human said %v", answer)}}), nil
}

func build(opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.MessagesKey("messages")).
		Named("support").
		AddNode("model", model).
		AddNode("tools", tool).
		AddNode("approve", approve).
		AddEdge(engine.Start, "model").
		AddConditionalEdges("model", func(_ context.Context, s map[string]any) (any, error) {
			msgs := messages(s)
			last := msgs[len(msgs)-1]
			calls, _ := field(last, "tool_calls").([]any)
			if len(calls) > 0 {
				sends := make([]any, len(calls))
				for i, c := range calls {
					sends[i] = engine.Send{Node: "tools", Arg: c}
				}
				return sends, nil
			}
			if field(last, "content") == "asking a human" {
				return "approve", nil
			}
			return engine.End, nil
		}, "tools", "approve", engine.End).
		AddEdge("tools", "model").
		AddEdge("approve", engine.End).
		Compile(opts...)
}

// service runs the graph for its users, one run at a time per thread.
type service struct {
	graph *engine.Graph
	mu    sync.Mutex
	busy  map[string]*sync.Mutex
}

func (s *service) lock(thread string) func() {
	s.mu.Lock()
	m := s.busy[thread]
	if m == nil {
		m = new(sync.Mutex)
		s.busy[thread] = m
	}
	s.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// runReply is what POST /agent/runs and /agent/resume answer.
type runReply struct {
	Thread     string `json:"thread"`
	Status     string `json:"status"`
	Error      string `json:"error,omitempty"`
	Interrupts int    `json:"interrupts,omitempty"`
}

func (s *service) serveRun(w http.ResponseWriter, r *http.Request, resume bool) {
	var req struct{ Thread, Question, Answer string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Thread == "" {
		http.Error(w, "want {\"thread\": ..., \"question\"|\"answer\": ...}", http.StatusBadRequest)
		return
	}
	defer s.lock(req.Thread)()
	var input any = map[string]any{"messages": []any{map[string]any{"role": "user", "content": req.Question}}}
	if resume {
		input = engine.Command{Resume: req.Answer}
	}
	res, err := s.graph.Invoke(r.Context(), input, engine.OnThread(req.Thread))
	reply := runReply{Thread: req.Thread, Status: res.Status.String(), Interrupts: len(res.Interrupts)}
	if err != nil {
		reply.Error = err.Error()
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reply)
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	db := fs.String("db", "support.db", "the checkpoint file")
	addr := fs.String("addr", "127.0.0.1:0", "where to listen")
	token := fs.String("token", os.Getenv("OPSAGENT_TOKEN"), "the bearer token of the export handler")
	prefix := fs.String("prefix", "/debug/checkpoints", "where to mount the export handler")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *token == "" {
		return errors.New("serve: --token is required: the export handler serves every thread")
	}
	store, err := persist.Open(*db, persist.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	g, err := build(engine.WithSaver(store))
	if err != nil {
		return err
	}
	svc := &service{graph: g, busy: map[string]*sync.Mutex{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /agent/runs", func(w http.ResponseWriter, r *http.Request) { svc.serveRun(w, r, false) })
	mux.HandleFunc("POST /agent/resume", func(w http.ResponseWriter, r *http.Request) { svc.serveRun(w, r, true) })
	exports := http.StripPrefix(*prefix, persist.ExportHandler(store))
	mux.Handle(*prefix+"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+*token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		exports.ServeHTTP(w, r)
	}))
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Serve returns as soon as Shutdown starts; the file is closed only
	// once the requests in flight (a pull among them) have had their
	// answers.
	shutdown := make(chan error, 1)
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shutdown <- srv.Shutdown(shut)
	}()
	fmt.Printf("listening on http://%s\n", l.Addr())
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return <-shutdown
}

// questions are what the users of drive ask, in turn: most go well, some
// fail in a tool, some panic, some wait for a human.
var questions = []string{
	"lookup A-1",
	"refund A-2 42.50",
	"lookup missing",
	"refund A-3 42",
	"discount A-4",
	"refund A-5 420.00",
	"lookup A-6",
	"refund A-7 9.99",
}

// drive starts n threads through the service at base, 64 at a time.
func drive(base string, n int) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	count := map[string]int{}
	at := make(chan struct{}, 64) // users at a time
	for i := range n {
		wg.Add(1)
		at <- struct{}{}
		go func() {
			defer func() { <-at; wg.Done() }()
			body, _ := json.Marshal(map[string]string{"thread": fmt.Sprintf("u-%04d", i), "question": questions[i%len(questions)]})
			status := "unreachable"
			resp, err := http.Post(strings.TrimRight(base, "/")+"/agent/runs", "application/json", strings.NewReader(string(body)))
			if err == nil {
				var reply runReply
				if json.NewDecoder(resp.Body).Decode(&reply) == nil {
					status = reply.Status
				}
				resp.Body.Close()
			}
			mu.Lock()
			count[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println(count)
	return nil
}

func main() {
	if err := graphs.Register(graphs.Example{Name: "support", Description: "a support agent that calls tools", Build: build,
		Input: map[string]any{"messages": []any{map[string]any{"role": "user", "content": "lookup A-1"}}}, Answers: []string{"yes", "no"}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "serve":
		err = serve(os.Args[2:])
	case len(os.Args) == 4 && os.Args[1] == "drive":
		n, convErr := strconv.Atoi(os.Args[3])
		if convErr != nil {
			err = fmt.Errorf("drive URL N: %v", convErr)
		} else {
			err = drive(os.Args[2], n)
		}
	default:
		os.Exit(cli.Main(context.Background(), os.Args[1:]))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "opsagent:", err)
		os.Exit(2)
	}
}
