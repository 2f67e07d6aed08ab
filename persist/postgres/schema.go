package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations are the schema's versions, applied in order on first use. A
// migration is never edited once released: a change is a new entry. "S."
// stands for the quoted schema name.
var migrations = []string{
	// 1: threads, checkpoints, values and writes; the claim function
	// behind the many-writers check (see Store.claim).
	`
CREATE TABLE S.threads (
	thread      bytea PRIMARY KEY,
	fingerprint text NOT NULL DEFAULT '',
	seq         bigint NOT NULL DEFAULT 0,
	writer      text NOT NULL DEFAULT '',
	updated     timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE S.checkpoints (
	thread bytea NOT NULL,
	ns     bytea NOT NULL,
	id     bytea NOT NULL,
	parent bytea,
	base   bytea NOT NULL, -- the full image a delta chain starts from (id itself for one)
	depth  int NOT NULL,
	source text NOT NULL,
	step   int NOT NULL,
	rec    bytea NOT NULL,
	PRIMARY KEY (thread, ns, id)
);
CREATE INDEX checkpoints_parent ON S.checkpoints (thread, ns, parent);
CREATE TABLE S.blobs (
	thread       bytea NOT NULL,
	ns           bytea NOT NULL,
	channel      bytea NOT NULL,
	version      bigint NOT NULL,
	hash         bigint NOT NULL,
	root         bigint NOT NULL,
	base_version bigint,
	base_hash    bigint,
	depth        int NOT NULL,
	has          boolean NOT NULL,
	data         bytea NOT NULL,
	PRIMARY KEY (thread, ns, channel, version, hash)
);
CREATE TABLE S.writes (
	thread     bytea NOT NULL,
	ns         bytea NOT NULL,
	checkpoint bytea NOT NULL,
	task       bytea NOT NULL,
	slot       bigint NOT NULL,
	channel    bytea NOT NULL,
	value      bytea NOT NULL,
	PRIMARY KEY (thread, ns, checkpoint, task, slot)
);
-- claim locks a thread's row for the rest of the transaction and advances
-- its sequence. observed is the sequence the writer last saw (-1: none);
-- when another writer advanced the thread since, it raises SSW01 with the
-- winner in DETAIL and the time in HINT.
CREATE FUNCTION S.claim(p_thread bytea, p_observed bigint, p_writer text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	cur_seq bigint;
	cur_writer text;
	cur_updated timestamptz;
BEGIN
	INSERT INTO S.threads (thread) VALUES (p_thread) ON CONFLICT (thread) DO NOTHING;
	SELECT seq, writer, updated INTO cur_seq, cur_writer, cur_updated
		FROM S.threads WHERE thread = p_thread FOR UPDATE;
	IF p_observed >= 0 AND cur_seq <> p_observed AND cur_writer <> p_writer THEN
		RAISE EXCEPTION USING ERRCODE = 'SSW01', MESSAGE = 'thread advanced by another writer',
			DETAIL = cur_writer, HINT = to_char(cur_updated AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
	END IF;
	UPDATE S.threads SET seq = cur_seq + 1, writer = p_writer, updated = now() WHERE thread = p_thread;
	RETURN cur_seq + 1;
END $$;
`,
	// 2: claim advances a thread in one statement when the check passes
	// (the common case), instead of an insert, a locking read and an
	// update on every commit: it was the costliest statement of a
	// superstep on the server. Same contract as version 1's.
	`
CREATE OR REPLACE FUNCTION S.claim(p_thread bytea, p_observed bigint, p_writer text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	new_seq bigint;
	cur_seq bigint;
	cur_writer text;
	cur_updated timestamptz;
BEGIN
	LOOP
		UPDATE S.threads SET seq = seq + 1, writer = p_writer, updated = now()
			WHERE thread = p_thread AND (p_observed < 0 OR seq = p_observed OR writer = p_writer)
			RETURNING seq INTO new_seq;
		IF FOUND THEN
			RETURN new_seq;
		END IF;
		SELECT seq, writer, updated INTO cur_seq, cur_writer, cur_updated
			FROM S.threads WHERE thread = p_thread FOR UPDATE;
		IF FOUND THEN
			IF p_observed >= 0 AND cur_seq <> p_observed AND cur_writer <> p_writer THEN
				RAISE EXCEPTION USING ERRCODE = 'SSW01', MESSAGE = 'thread advanced by another writer',
					DETAIL = cur_writer, HINT = to_char(cur_updated AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
			END IF;
			-- Changed between the two statements so that the check now
			-- passes: the row is locked, so the update will find it.
			CONTINUE;
		END IF;
		INSERT INTO S.threads (thread, seq, writer) VALUES (p_thread, 1, p_writer)
			ON CONFLICT (thread) DO NOTHING;
		IF FOUND THEN
			RETURN 1;
		END IF;
		-- Another writer created the row meanwhile: check against it.
	END LOOP;
END $$;
`,
	// 3: no index of every checkpoint's parent. Only replacing a
	// checkpoint looks children up (Store.detach), and a checkpoint's
	// children nearly always have later ids (ids are time-ordered), which
	// the primary key finds; the index cost a fifth of the B-tree inserts
	// of every superstep. A child whose id is not after its parent's (a
	// writer with a clock behind) is still indexed, by this partial index
	// that other rows skip at the cost of one comparison.
	`
DROP INDEX S.checkpoints_parent;
CREATE INDEX checkpoints_early_child ON S.checkpoints (thread, ns, parent) WHERE depth > 0 AND id <= parent;
`,
	// 4: the small values a checkpoint stores at one version share one
	// blobs row, a pack, under channel '' (pack.go); records name a packed
	// value by the complement of its pack's hash. The tables are
	// unchanged, but a superstep built before this version would read a
	// packed value as missing: the version makes it refuse the database
	// instead (ErrNewerSchema).
	`
COMMENT ON TABLE S.blobs IS 'channel values by (thread, ns, channel, version, hash); the rows of channel '''' are packs: the small values of one version (superstep schema 4)';
`,
	// 5: a pack may also hold the regular writes of one task at the
	// parent of the checkpoint it belongs to (packWrites: the superstep's
	// last task's, committed with the checkpoint), in place of their
	// rows in writes. The tables are unchanged and rows stored before
	// stay as they are, but a superstep built before this version would
	// miss those writes, or read such a pack as damaged: the version
	// makes it refuse the database instead (ErrNewerSchema).
	`
COMMENT ON TABLE S.blobs IS 'channel values by (thread, ns, channel, version, hash); the rows of channel '''' are packs: the small values of one version, and a task''s writes at the parent checkpoint (superstep schema 5)';
`,
	// 6: claim refuses a writer that saw the thread (observed above 0)
	// when its row is gone: another process deleted it since (a delete,
	// or a push or import that replaces it). Before, it made the row
	// again, and the writer went on storing deltas from checkpoints that
	// were no longer there: a damaged thread that delete could not
	// remove. A thread's row now starts at a sequence no earlier
	// observation can equal (the time it is made, in microseconds, where
	// sequences used to start at 1), so that a thread deleted and made
	// again is not taken for the one a writer saw. SSW02 is the refusal.
	`
CREATE OR REPLACE FUNCTION S.first_seq() RETURNS bigint LANGUAGE sql VOLATILE AS
$$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint $$;
CREATE OR REPLACE FUNCTION S.claim(p_thread bytea, p_observed bigint, p_writer text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	new_seq bigint;
	cur_seq bigint;
	cur_writer text;
	cur_updated timestamptz;
BEGIN
	LOOP
		UPDATE S.threads SET seq = seq + 1, writer = p_writer, updated = now()
			WHERE thread = p_thread AND (p_observed < 0 OR seq = p_observed OR writer = p_writer)
			RETURNING seq INTO new_seq;
		IF FOUND THEN
			RETURN new_seq;
		END IF;
		SELECT seq, writer, updated INTO cur_seq, cur_writer, cur_updated
			FROM S.threads WHERE thread = p_thread FOR UPDATE;
		IF FOUND THEN
			IF p_observed >= 0 AND cur_seq <> p_observed AND cur_writer <> p_writer THEN
				RAISE EXCEPTION USING ERRCODE = 'SSW01', MESSAGE = 'thread advanced by another writer',
					DETAIL = cur_writer, HINT = to_char(cur_updated AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
			END IF;
			CONTINUE;
		END IF;
		IF p_observed > 0 THEN
			RAISE EXCEPTION USING ERRCODE = 'SSW02', MESSAGE = 'thread deleted by another writer';
		END IF;
		INSERT INTO S.threads (thread, seq, writer) VALUES (p_thread, S.first_seq(), p_writer)
			ON CONFLICT (thread) DO NOTHING
			RETURNING seq INTO new_seq;
		IF FOUND THEN
			RETURN new_seq;
		END IF;
	END LOOP;
END $$;
`,
}

// SchemaVersion is the newest schema version this package knows.
var SchemaVersion = len(migrations)

// readableFrom is the oldest schema version a read-only store reads as it
// is, without migrating: every migration after it changed only functions
// the writers call (2), indexes (3) and comments (4, 5), never a table a
// reader queries, and rows written before a migration stay readable after
// it. A migration that changes what readers query must raise it.
const readableFrom = 1

// conflictCode is the SQLSTATE claim raises for a thread another writer
// advanced, deletedCode for one another writer deleted (schema 6).
const (
	conflictCode = "SSW01"
	deletedCode  = "SSW02"
)

// migrate brings schema up to SchemaVersion in one transaction, holding
// an advisory lock so that processes opening a new database at once do not
// race. A schema at a newer version is refused with a *SchemaError.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string, readOnly bool) error {
	q := pgx.Identifier{schema}.Sanitize()
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	// A migration lost in a server crash is applied again at the next
	// Open: its commit need not wait for the disk.
	if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('superstep schema ' || $1))`, schema); err != nil {
		return err
	}
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		return err
	}
	if !exists && readOnly {
		return fmt.Errorf("%w: %q (nothing was stored there yet: run a graph with this URL first)", ErrNoSchema, schema)
	}
	if !exists {
		if _, err := tx.Exec(ctx, "CREATE SCHEMA "+q); err != nil {
			return err
		}
	}
	// Read the version without DDL first, so a user who may only read and
	// write an up-to-date schema can use it.
	var table *string
	if err := tx.QueryRow(ctx, "SELECT to_regclass($1)::text", q+".schema_version").Scan(&table); err != nil {
		return err
	}
	if table == nil {
		if _, err := tx.Exec(ctx, "CREATE TABLE "+q+".schema_version (version int NOT NULL, applied timestamptz NOT NULL DEFAULT now())"); err != nil {
			return err
		}
	}
	var found int
	if err := tx.QueryRow(ctx, "SELECT COALESCE(max(version), 0) FROM "+q+".schema_version").Scan(&found); err != nil {
		return err
	}
	if found > SchemaVersion {
		return &SchemaError{Schema: schema, Found: found, Supported: SchemaVersion}
	}
	if found == SchemaVersion {
		return tx.Commit(ctx)
	}
	if readOnly {
		if found >= readableFrom {
			// Its tables are this version's: a reader (the debugger,
			// pull, check) need not wait for a writer to migrate it.
			return tx.Commit(ctx)
		}
		return fmt.Errorf("%w: %q is at version %d and needs migrating to %d (open it for writing once)", ErrNoSchema, schema, found, SchemaVersion)
	}
	for v := found + 1; v <= SchemaVersion; v++ {
		if _, err := tx.Exec(ctx, strings.ReplaceAll(migrations[v-1], "S.", q+".")); err != nil {
			return fmt.Errorf("migration %d: %w", v, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO "+q+".schema_version (version) VALUES ($1)", v); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// pgCode returns err's SQLSTATE, or "".
func pgCode(err error) string {
	if err == nil {
		return "" // without errors.As's allocation
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// DropSchema removes superstep's schema at url (the URL's schema
// parameter, else DefaultSchema) with every thread in it. Dropping a
// schema that does not exist is not an error.
func DropSchema(ctx context.Context, url string) error {
	clean, schema, err := splitSchema(url)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	conn, err := pgx.Connect(ctx, clean)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}
