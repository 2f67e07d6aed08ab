package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/superstep/superstep/persist"
)

// exportStream is a thread's export document as its source writes it: a
// database's Export or a service's answer, read as it comes (pull and
// push copy a thread through the export format, every branch and
// namespace with its pending writes and recorded graph), so that a large
// thread is never held whole.
type exportStream struct {
	r    *bufio.Reader
	pr   *io.PipeReader
	done chan error // the export's result
	// thread and fromDB word the export's errors.
	thread, fromDB string
}

// exportFailed is how the export's own error reaches the import through
// the pipe, told apart from the import's errors.
type exportFailed struct{ err error }

func (e *exportFailed) Error() string { return e.err.Error() }

// errImportStopped ends an export whose reader stopped reading.
var errImportStopped = errors.New("the import stopped reading")

// startExport starts reading thread's export from from, and returns once
// its first bytes came: a thread the source does not have or a service
// that refuses fails here, before the receiving database is opened, so it
// leaves no new file behind.
func startExport(ctx context.Context, thread, fromDB string, from persist.Exporter) (*exportStream, error) {
	pr, pw := io.Pipe()
	x := &exportStream{r: bufio.NewReaderSize(pr, 64<<10), pr: pr, done: make(chan error, 1), thread: thread, fromDB: fromDB}
	go func() {
		err := from.Export(ctx, thread, pw, "")
		if err != nil {
			pw.CloseWithError(&exportFailed{err})
		} else {
			pw.Close()
		}
		x.done <- err
	}()
	if _, err := x.r.Peek(1); err != nil {
		x.pr.CloseWithError(errImportStopped)
		if err := <-x.done; err != nil {
			return nil, x.failed(err)
		}
		// Nothing, and no error: Import says the document is empty.
		x.done <- nil
	}
	return x, nil
}

// failed words the export's error.
func (x *exportStream) failed(err error) error {
	if errors.Is(err, persist.ErrThreadNotFound) {
		return usagef("thread %q is not in %s", x.thread, displayDB(x.fromDB))
	}
	var said *exitError
	if errors.As(err, &said) {
		return err // a service's answer, worded already
	}
	return storeError(err, "read thread %q from %s", x.thread, displayDB(x.fromDB))
}

// end stops the export if the import stopped reading, waits for it, and
// returns its error when it is what failed the import (importErr): an
// export cut off (a service that stopped, the command interrupted) says
// so, rather than that the document ended early. nil means importErr, if
// any, is the import's own.
func (x *exportStream) end(ctx context.Context, importErr error) error {
	x.pr.CloseWithError(errImportStopped)
	exportErr := <-x.done
	var ef *exportFailed
	switch {
	case errors.As(importErr, &ef):
		return x.failed(ef.err)
	case exportErr != nil && (importErr == nil || ctx.Err() != nil):
		return x.failed(exportErr)
	}
	return nil
}

// importThread writes an export document of thread, read from x, into
// to, all or nothing, under the id as (pull --as) when it is not "".
func importThread(ctx context.Context, thread, toDB string, to Store, x *exportStream, o replaceFlags, pull bool, as string) error {
	opts := o.options(0)
	if as != "" {
		thread, opts.Thread = as, as
	}
	_, err := to.Import(ctx, x.r, opts)
	if xerr := x.end(ctx, err); xerr != nil {
		return xerr
	}
	if errors.Is(err, persist.ErrThreadExists) {
		again := "pass --overwrite to replace it"
		if pull {
			again += ", or --as NEW to pull it beside it"
		}
		return usagef("thread %q is already in %s; %s", thread, displayDB(toDB), again)
	}
	if errors.Is(err, persist.ErrWouldDiscard) {
		again := "push it first, or pull into another database"
		switch {
		case !pull:
			again = "pull it again and push after redoing your change there"
		case o.service:
			// A service's handler takes no pushes: what only the local
			// thread has stays local.
			again = "pull it beside yours with --as NEW, or into another database"
		}
		return usagef("not replacing thread %q in %s: %s; %s, or pass --force to drop what only it has", thread, displayDB(toDB), replaceLoss(err), again)
	}
	return storeError(err, "write thread %q to %s", thread, displayDB(toDB))
}

// replaceFlags are --overwrite and --force of the commands that replace a
// thread (import, pull, push).
type replaceFlags struct {
	overwrite, force bool
	service          bool // the copy comes from a service's ExportHandler
}

func (f *replaceFlags) add(cmd *cobra.Command, overwriteHelp string) {
	cmd.Flags().BoolVar(&f.overwrite, "overwrite", false, overwriteHelp+", if the copy has everything the thread there has")
	cmd.Flags().BoolVar(&f.force, "force", false, "with --overwrite: replace it even if that drops checkpoints, pending writes or a recorded graph only it has")
}

func (f replaceFlags) check() error {
	if f.force && !f.overwrite {
		return usagef("--force only goes with --overwrite")
	}
	return nil
}

func (f replaceFlags) options(maxBytes int64) persist.ImportOptions {
	return persist.ImportOptions{Overwrite: f.overwrite, Discard: f.force, SameGraph: sameGraph, MaxBytes: maxBytes}
}

// replaceLoss is what a refused replace would have lost, without the
// store's sentinel text.
func replaceLoss(err error) string {
	var re *persist.ReplaceError
	if !errors.As(err, &re) {
		return storeMessage(err)
	}
	return "it has " + re.Loss()
}

// transferCommand is pull (remote → --db) or push (--db → remote).
func (a *App) transferCommand(g *globals, pull bool) *cobra.Command {
	var remote, as string
	var headers []string
	var replace replaceFlags
	use, flag, short, long, example := "push THREAD --to URL", "to",
		"Copy a thread from the local database to another (a PostgreSQL server)",
		`Copy a thread — every checkpoint of every branch and subgraph, its pending
writes and its recorded graph — from the database (--db) to the one --to
names, typically a PostgreSQL server shared by a service.`,
		"  superstep push t1 --to postgres://me@db.internal/agents"
	if pull {
		use, flag, short, long, example = "pull THREAD --from URL", "from",
			"Copy a thread from another database (a PostgreSQL server) into the local one",
			`Copy a thread — every checkpoint of every branch and subgraph, its pending
writes and its recorded graph — from the database --from names (typically
the PostgreSQL server a service runs on) into the local database (--db), to
debug it offline: superstep tui GRAPH --thread THREAD afterwards, GRAPH
the graph's name in your program or its scenario file (superstep threads
names the graph each thread recorded).

A service that runs on a bbolt file holds the file while it runs; mounted
in the service, persist.ExportHandler serves its threads, and --from is
then the handler's http:// or https:// URL (--header sends credentials).

--as stores the thread under another id: pull a thread again, as it is
now, beside the copy you have been working on.`,
			"  superstep pull t1 --from postgres://me@db.internal/agents\n  superstep pull t1 --from \"$PROD_DB\" --db ./bug.db --overwrite\n  superstep pull t1 --from https://svc.internal/debug/checkpoints --header \"Authorization: Bearer $TOKEN\"\n  superstep pull t1 --from https://svc.internal/debug/checkpoints --as t1-now"
	}
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long, Example: example,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			thread := args[0]
			if err := replace.check(); err != nil {
				return err
			}
			if remote == "" {
				return usagef("--%s is required: the database to copy %s", flag, map[bool]string{true: "from", false: "to"}[pull])
			}
			if as != "" {
				// Before anything is fetched: a refused id fails at once.
				if err := persist.CheckThreadID(as); err != nil {
					return usagef("--as: %s", storeMessage(err))
				}
			}
			local, err := dbPath(g)
			if err != nil {
				return err
			}
			if isServiceURL(remote) {
				if !pull {
					return usagef("--to %s: a service's persist.ExportHandler serves pull only; push to a database file or a postgres:// URL", displayDB(remote))
				}
				replace.service = true
				return a.pullFromService(cmd.Context(), g, thread, remote, local, headers, replace, as)
			}
			if len(headers) > 0 {
				return usagef("--header goes with an http:// or https:// --from (a service's persist.ExportHandler)")
			}
			fromDB, toDB := remote, local
			if !pull {
				fromDB, toDB = local, remote
			}
			if sameDatabase(fromDB, toDB) {
				return usagef("--%s names the database the thread is already in", flag)
			}
			from, err := a.openDB(g, fromDB, storeOptions{ReadOnly: true})
			if err != nil {
				return err
			}
			defer closeStore(from, &err)
			to, err := a.openNewDB(g, toDB, storeOptions{pullInto: pull}, &err)
			if err != nil {
				return err
			}
			defer closeStore(to, &err)
			x, err := startExport(cmd.Context(), thread, fromDB, from)
			if err != nil {
				return err
			}
			if err := importThread(cmd.Context(), thread, toDB, to, x, replace, pull, as); err != nil {
				return err
			}
			verb := map[bool]string{true: "pulled", false: "pushed"}[pull]
			_, err = fmt.Fprintf(a.Stdout, "%s thread %s from %s into %s%s\n", verb, thread, displayDB(fromDB), displayDB(toDB), asSaid(as))
			return err
		},
	}
	if pull {
		cmd.Flags().StringVar(&remote, flag, "", "the other database: a postgres:// URL or a file, or a service's persist.ExportHandler URL (http:// or https://)")
		cmd.Flags().StringArrayVar(&headers, "header", nil, "with an http(s) --from: a header to send, \"Name: value\" (repeatable)")
		cmd.Flags().StringVar(&as, "as", "", "store the thread under this id instead (pull a thread again beside the copy you work on)")
	} else {
		cmd.Flags().StringVar(&remote, flag, "", "the other database: a postgres:// URL or a file")
	}
	replace.add(cmd, "replace the thread if the receiving database has it")
	return cmd
}

// pullFromService is pull --from an http(s) URL: the thread's export from
// the persist.ExportHandler a service mounts there, imported into local.
func (a *App) pullFromService(ctx context.Context, g *globals, thread, service, local string, headers []string, replace replaceFlags, as string) (err error) {
	from, err := newServiceExporter(service, headers, max(g.timeout, postgresConnectTimeout))
	if err != nil {
		return err
	}
	// The export first: a service that refuses leaves no new file behind.
	x, err := startExport(ctx, thread, service, from)
	if err != nil {
		return err
	}
	to, err := a.openNewDB(g, local, storeOptions{pullInto: true}, &err)
	if err != nil {
		x.end(ctx, err)
		return err
	}
	defer closeStore(to, &err)
	if err := importThread(ctx, thread, local, to, x, replace, true, as); err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.Stdout, "pulled thread %s from %s into %s%s\n", thread, displayDB(service), displayDB(local), asSaid(as))
	return err
}

// asSaid is how pull's line names the id --as gave the thread.
func asSaid(as string) string {
	if as == "" {
		return ""
	}
	return " as " + as
}

// openNewDB is openDB for the database a thread is copied into. A
// database file that this opens anew is removed again when the command
// fails (*cmdErr when it returns): the copy reads the source as it
// writes, so a source that fails midway (a service cut off) would
// otherwise leave an empty database where there was none. It is removed
// while it is still open, so no other process can have opened it since.
func (a *App) openNewDB(g *globals, db string, o storeOptions, cmdErr *error) (Store, error) {
	_, statErr := os.Stat(db)
	_, lockErr := os.Stat(persist.LockPath(db))
	st, err := a.openDB(g, db, o)
	if err != nil || !errors.Is(statErr, fs.ErrNotExist) {
		return st, err
	}
	if file, ok := st.(*persist.Store); ok {
		r := &removeOnFailure{Store: st, paths: []string{file.Path()}, err: cmdErr}
		if errors.Is(lockErr, fs.ErrNotExist) {
			r.paths = append(r.paths, persist.LockPath(file.Path()))
		}
		return r, nil
	}
	return st, nil
}

// removeOnFailure is a database that openNewDB created: Close removes
// it, and the lock file the open created, first when the command failed.
type removeOnFailure struct {
	Store
	paths []string
	err   *error
}

func (r *removeOnFailure) Close() error {
	if *r.err != nil {
		for _, p := range r.paths {
			_ = os.Remove(p)
		}
	}
	return r.Store.Close()
}

// openDB opens a database other than --db with the global --timeout.
func (a *App) openDB(g *globals, db string, o storeOptions) (Store, error) {
	if g.timeout <= 0 {
		return nil, usagef("--timeout %v: want a positive duration such as 1s or 500ms", g.timeout)
	}
	o.Timeout = g.timeout
	o.program = a.Name
	if local, err := dbPath(g); err == nil && !sameDatabase(db, local) {
		o.importDB = g.db // an export given as --from or --to goes into --db
	}
	return openStore(db, o)
}
