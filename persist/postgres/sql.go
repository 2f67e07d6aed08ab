package postgres

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// statements are the store's SQL, with the schema filled in once at Open.
type statements struct {
	claim, seqAndLatest string
	// put[w][b] stores a checkpoint row, with its blobs when b is 1, and
	// when w is 1 the task writes saved before it (a superstep), as one
	// statement. Parameters: thread, namespace, then writesParams,
	// blobParams and checkpointParams, in that order, of the parts used.
	put [2][2]string
	// group[safe][create][writes] claims many threads and stores the
	// rows of those claimed: see groupStatement.
	group                                [2][2][2]string
	insWrites                            string
	upsertWrites                         string
	checkpointExists, deltaChildren      string
	updateRecord                         string
	latestID, candidates, candidatesAll  string
	heads, checkpointIDs                 string
	chain, chainByParent, values, writes string
	orphanWrites                         string
	deleteThread                         []string
	threads, fingerprint, setFP          string
	recordFP                             string
	threadIDs, namespaces                string
}

// The parts of a superstep's statement. $Wn, $Bn and $Cn are the n-th
// parameter of the writes, the blobs and the checkpoint part (see
// numberParams); $1 and $2 are the thread and the namespace.
var (
	// upsertWritesSQL replaces what was stored.
	upsertWritesSQL = `INSERT INTO S.writes (thread, ns, checkpoint, task, slot, channel, value)
			SELECT $1, $2, $W1, $W2, u.slot, u.channel, u.value FROM ` + unnestRows("$W", 3, "slot int8", "channel bytea", "value bytea") + `
			ON CONFLICT (thread, ns, checkpoint, task, slot) DO UPDATE SET channel = EXCLUDED.channel, value = EXCLUDED.value`
	// Regular writes: the first stored wins; special ones (negative
	// slots) replace what was stored.
	insWritesSQL = upsertWritesSQL + `
			WHERE EXCLUDED.slot < 0`
	// Blobs are never overwritten: a (version, hash) names one value.
	insBlobsSQL = `INSERT INTO S.blobs (thread, ns, channel, version, hash, root, base_version, base_hash, depth, has, data)
			SELECT $1, $2, u.* FROM ` + unnestRows("$B", 1, "channel bytea", "version int8", "hash int8", "root int8", "base_version int8", "base_hash int8", "depth int4", "has bool", "data bytea") + `
			ON CONFLICT DO NOTHING`
	insCheckpointSQL = `INSERT INTO S.checkpoints (thread, ns, id, parent, base, depth, source, step, rec)
			VALUES ($1, $2, $C1, $C2, $C3, $C4, $C5, $C6, $C7)
			ON CONFLICT (thread, ns, id) DO UPDATE SET parent = EXCLUDED.parent, base = EXCLUDED.base, depth = EXCLUDED.depth,
				source = EXCLUDED.source, step = EXCLUDED.step, rec = EXCLUDED.rec`
)

// The number of parameters of each part.
const writesParams, blobParams, checkpointParams = 5, 9, 7

// groupStatement is a group commit's one statement (see sendGrouped). c
// claims the threads as the claim function does when its check passes: a
// thread that was advanced by another writer is not returned. With
// create, n creates the rows of new threads (unchecked: never read by
// this store) that no transaction before this one stored; one that
// another stores meanwhile is not returned either. Without create a new
// thread is not returned. The writes, blobs and checkpoints parts are
// those of a single thread's statements with a thread column.
//
// A thread not claimed fails the whole statement, so nothing is stored
// (claimCheck): every thread of the group then goes in its own
// transaction, which raises the conflict for the thread refused and
// stores the others. Conflicts are rare; the parts then need not keep
// only the rows of the threads claimed (a semi-join with c in each, which
// was 4% of the server's instructions a superstep at 32 threads).
//
// The new threads' NOT EXISTS is a lookup by primary key for each (OFFSET
// 0 keeps it one), not an anti-join that hashes a scan of the whole
// threads table, which the planner prefers while the table is small.
//
// Without writes, the statement has no writes part and its parameters
// skip the writes' arrays (groupParams.messages): a group with no task
// writes to store as rows, the usual one since the last task's writes
// travel in the checkpoint's pack, then does not start an insert into
// writes, its join and its seven unnests for no row (the executor starts
// every part of a statement on every execution).
//
// Without safe, the parts are plain INSERTs: a group's rows are nearly
// always new, and checking each against its unique index before inserting
// (ON CONFLICT) was a fifth of the server's CPU per superstep. A row that
// is stored already then fails the statement with unique_violation, and
// the group is sent again with safe set: the conflict rules of the single
// statements (first write of a slot wins, special writes replace, a blob
// is stored once, a checkpoint is replaced). A checkpoint that may replace
// a stored one is never sent with safe set (its thread's own transaction
// first rewrites the children stored as deltas of it): it is stored by
// the plain INSERT when it is new, which is nearly always (the first
// checkpoint of a thread this store has not seen).
func groupStatement(r *strings.Replacer, safe, create, writes bool) string {
	onConflict := func(clause string) string {
		if !safe {
			return ""
		}
		return "\n\t\t" + clause
	}
	// claimed names the threads claimed, which every part keeps.
	claimed, newThreads := "c", ""
	if create {
		claimed = "a"
		newThreads = `, n AS (
		INSERT INTO S.threads (thread, seq, writer)
		SELECT u.thread, S.first_seq(), $3 FROM ` + unnestRows("$", 1, "thread bytea", "observed int8") + `
		WHERE u.observed < 0 AND NOT EXISTS (SELECT FROM S.threads t WHERE t.thread = u.thread OFFSET 0)
		ON CONFLICT (thread) DO NOTHING
		RETURNING thread, seq
	), a AS (
		SELECT thread, seq FROM c UNION ALL SELECT thread, seq FROM n
	)`
	}
	// The parameters: $1-$3 the claim's, then the writes' (without
	// writes, none), the blobs' and the checkpoints' arrays.
	next := 4
	writesPart := ""
	if writes {
		writesPart = `, w AS (
		INSERT INTO S.writes (thread, ns, checkpoint, task, slot, channel, value)
		SELECT u.* FROM ` + unnestRows("$", next, "thread bytea", "ns bytea", "checkpoint bytea", "task bytea", "slot int8", "channel bytea", "value bytea") + `
		` + onConflict(`ON CONFLICT (thread, ns, checkpoint, task, slot) DO UPDATE SET channel = EXCLUDED.channel, value = EXCLUDED.value
		WHERE EXCLUDED.slot < 0`) + `
	)`
		next += groupWritesParams
	}
	blobsAt := next
	checkpointsAt := blobsAt + groupBlobParams
	return r.Replace(`WITH c AS (
		UPDATE S.threads t SET seq = t.seq + 1, writer = $3, updated = now()
		FROM ` + unnestRows("$", 1, "thread bytea", "observed int8") + `
		WHERE t.thread = u.thread AND (u.observed < 0 OR t.seq = u.observed OR t.writer = $3)
		RETURNING t.thread, t.seq
	)` + newThreads + writesPart + `, b AS (
		INSERT INTO S.blobs (thread, ns, channel, version, hash, root, base_version, base_hash, depth, has, data)
		SELECT u.* FROM ` + unnestRows("$", blobsAt, "thread bytea", "ns bytea", "channel bytea", "version int8", "hash int8", "root int8", "base_version int8", "base_hash int8", "depth int4", "has bool", "data bytea") + `
		` + onConflict(`ON CONFLICT DO NOTHING`) + `
	), k AS (
		INSERT INTO S.checkpoints (thread, ns, id, parent, base, depth, source, step, rec)
		SELECT u.* FROM ` + unnestRows("$", checkpointsAt, "thread bytea", "ns bytea", "id bytea", "parent bytea", "base bytea", "depth int4", "source text", "step int4", "rec bytea") + `
		` + onConflict(`ON CONFLICT (thread, ns, id) DO UPDATE SET parent = EXCLUDED.parent, base = EXCLUDED.base, depth = EXCLUDED.depth,
			source = EXCLUDED.source, step = EXCLUDED.step, rec = EXCLUDED.rec`) + `
	) SELECT thread, seq FROM ` + claimed + `
	UNION ALL ` + claimCheck(claimed))
}

// claimCheck is the last branch of a group's statement: it returns no
// row, and fails the statement when the threads claimed (CTE claimed) are
// fewer than the group's ($1). The statement's main query runs before its
// data-modifying parts that it does not read (the writes, blobs and
// checkpoints), so a failure here stores nothing; and the transaction
// the statement runs in is rolled back with it. The failure is a cast of
// a message that names it (a CASE arm the planner cannot fold: it depends
// on what c returned), as SQL has no raise of its own.
func claimCheck(claimed string) string {
	return `SELECT NULL::bytea, NULL::int8 WHERE CASE
		WHEN (SELECT count(*) FROM ` + claimed + `) = cardinality($1::bytea[]) THEN false
		ELSE ('superstep group commit: ' || cardinality($1::bytea[]) - (SELECT count(*) FROM ` + claimed + `) ||
			' thread(s) of the group not claimed; each is sent alone')::int8 = 0
	END`
}

// unnestRows is the rows of parallel array parameters marker+first,
// marker+(first+1), … ($4, $5, … or $W3, $W4, …), one per column
// ("name type"), as a subquery u. The arrays are unnested
// in the select list, where they run in step (PostgreSQL 10 and later) as
// unnest(a, b, …) in FROM does, but without a function scan, which first
// copies every row into a tuple store: with function scans a superstep
// cost the server about 15% more instructions at 32 threads (callgrind of
// the backends).
func unnestRows(marker string, first int, cols ...string) string {
	var b strings.Builder
	b.WriteString("(SELECT ")
	for i, c := range cols {
		name, typ, _ := strings.Cut(c, " ")
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "unnest(%s%d::%s[]) AS %s", marker, first+i, typ, name)
	}
	b.WriteString(") AS u")
	return b.String()
}

// putStatement joins the parts of a superstep into one statement: one
// execution on the server instead of three. The parts neither read nor
// touch each other's rows, so running them as one changes nothing but
// the cost.
func putStatement(r *strings.Replacer, writes, blobs bool) string {
	next := 3
	var ctes []string
	if writes {
		ctes = append(ctes, "w AS ("+numberParams(insWritesSQL, "$W", next, writesParams)+")")
		next += writesParams
	}
	if blobs {
		ctes = append(ctes, "b AS ("+numberParams(insBlobsSQL, "$B", next, blobParams)+")")
		next += blobParams
	}
	stmt := numberParams(insCheckpointSQL, "$C", next, checkpointParams)
	if len(ctes) > 0 {
		stmt = "WITH " + strings.Join(ctes, ", ") + " " + stmt
	}
	return r.Replace(stmt)
}

// numberParams turns a part's parameters marker1 … markerN into
// $first … $(first+N-1).
func numberParams(part, marker string, first, n int) string {
	for i := n; i >= 1; i-- { // $B10 before $B1
		part = strings.ReplaceAll(part, fmt.Sprintf("%s%d", marker, i), fmt.Sprintf("$%d", first+i-1))
	}
	return part
}

func newStatements(schema string) statements {
	q := pgx.Identifier{schema}.Sanitize() + "."
	r := strings.NewReplacer("S.", q)
	return statements{
		claim: r.Replace(`SELECT S.claim($1, $2, $3)`),
		seqAndLatest: r.Replace(`SELECT (SELECT seq FROM S.threads WHERE thread = $1),
			(SELECT id FROM S.checkpoints WHERE thread = $1 AND ns = $2 ORDER BY id DESC LIMIT 1)`),
		put: [2][2]string{
			{putStatement(r, false, false), putStatement(r, false, true)},
			{putStatement(r, true, false), putStatement(r, true, true)},
		},
		group: [2][2][2]string{
			{
				{groupStatement(r, false, false, false), groupStatement(r, false, false, true)},
				{groupStatement(r, false, true, false), groupStatement(r, false, true, true)},
			},
			{
				{groupStatement(r, true, false, false), groupStatement(r, true, false, true)},
				{groupStatement(r, true, true, false), groupStatement(r, true, true, true)},
			},
		},
		insWrites: r.Replace(numberParams(insWritesSQL, "$W", 3, writesParams)),
		// The writes a replaced checkpoint's pack held become rows
		// (Store.unfold): a read finds them there as it did in the pack.
		upsertWrites:     r.Replace(numberParams(upsertWritesSQL, "$W", 3, writesParams)),
		checkpointExists: r.Replace(`SELECT EXISTS (SELECT 1 FROM S.checkpoints WHERE thread = $1 AND ns = $2 AND id = $3)`),
		// deltaChildren finds the children stored as deltas of checkpoint
		// $3: those with later ids along the primary key (few unless $3 is
		// old), the others through checkpoints_early_child, whose predicate
		// the second part repeats so that the planner uses it.
		deltaChildren: r.Replace(`SELECT id FROM S.checkpoints WHERE thread = $1 AND ns = $2 AND id > $3 AND parent = $3 AND depth > 0
			UNION ALL
			SELECT id FROM S.checkpoints WHERE thread = $1 AND ns = $2 AND parent = $3 AND depth > 0 AND id <= parent`),
		updateRecord: r.Replace(`UPDATE S.checkpoints SET depth = 0, base = id, rec = $4 WHERE thread = $1 AND ns = $2 AND id = $3`),
		latestID:     r.Replace(`SELECT id FROM S.checkpoints WHERE thread = $1 AND ns = $2 ORDER BY id DESC LIMIT 1`),
		// heads reads a namespace's records alone, newest first; no
		// value or write is read (Heads).
		heads: r.Replace(`SELECT id, parent, rec FROM S.checkpoints WHERE thread = $1 AND ns = $2 ORDER BY id DESC`),
		// checkpointIDs reads the ids from $3 on, in order, at most $4
		// (NULL: all): the ids with prefix $3 come first (CheckpointIDs).
		checkpointIDs: r.Replace(`SELECT id FROM S.checkpoints WHERE thread = $1 AND ns = $2 AND id >= $3 ORDER BY id LIMIT $4`),
		candidates: r.Replace(`SELECT ns, id, rec FROM S.checkpoints
			WHERE thread = $1 AND ns = $2 AND ($3::bytea IS NULL OR id = $3) AND ($4::bytea IS NULL OR id < $4)
			ORDER BY id DESC`),
		candidatesAll: r.Replace(`SELECT ns, id, rec FROM S.checkpoints
			WHERE thread = $1 AND ($2::bytea IS NULL OR id = $2) AND ($3::bytea IS NULL OR id < $3)
			ORDER BY id DESC, ns ASC`),
		// chain returns the records of ids and those between the full
		// images their deltas start from and them: ids are time-ordered,
		// so that is every ancestor a delta needs (loadChain checks, and
		// asks chainByParent for any that is not).
		//
		// The ids of $3 are looked up one by one (unnest, a lateral
		// lookup kept by OFFSET 0), here, in chainByParent and in writes:
		// "id = ANY ($3)" became a filter over the namespace's every row
		// in the generic plan PostgreSQL switches a prepared statement to
		// after five runs (1.4 ms instead of 0.25 for the chain of a
		// thread of 2,500 checkpoints, 5 ms instead of 0.05 for its
		// writes, growing with the thread); TestReadStatements_LookUpByKey.
		chain: r.Replace(`WITH w AS (
				SELECT c.id, c.base FROM unnest($3::bytea[]) AS k (id) CROSS JOIN LATERAL (
					SELECT id, base FROM S.checkpoints c WHERE c.thread = $1 AND c.ns = $2 AND c.id = k.id OFFSET 0
				) AS c
			) SELECT id, parent, depth, rec FROM S.checkpoints
			WHERE thread = $1 AND ns = $2 AND id BETWEEN (SELECT base FROM w ORDER BY base LIMIT 1) AND (SELECT id FROM w ORDER BY id DESC LIMIT 1)`),
		chainByParent: r.Replace(`WITH RECURSIVE chain (id, parent, depth, rec) AS (
				SELECT c.id, c.parent, c.depth, c.rec FROM unnest($3::bytea[]) AS k (id) CROSS JOIN LATERAL (
					SELECT id, parent, depth, rec FROM S.checkpoints c
					WHERE c.thread = $1 AND c.ns = $2 AND c.id = k.id OFFSET 0
				) AS c
				UNION
				SELECT c.id, c.parent, c.depth, c.rec FROM chain CROSS JOIN LATERAL (
					-- OFFSET 0 keeps this a lookup by the whole key, even
					-- when a new table's statistics suggest a scan.
					SELECT id, parent, depth, rec FROM S.checkpoints c
					WHERE c.thread = $1 AND c.ns = $2 AND c.id = chain.parent OFFSET 0
				) AS c WHERE chain.depth > 0
			) SELECT id, parent, depth, rec FROM chain`),
		// values returns the blobs named and every list they append to.
		// values returns, per channel, the blobs with versions from lo to
		// hi: the values wanted and the lists they append to.
		values: r.Replace(`SELECT b.channel, b.version, b.hash, b.root, b.base_version, b.base_hash, b.depth, b.has, b.data
			FROM unnest($3::bytea[], $4::int8[], $5::int8[]) AS w (channel, lo, hi)
			CROSS JOIN LATERAL (
				SELECT * FROM S.blobs b
				WHERE b.thread = $1 AND b.ns = $2 AND b.channel = w.channel AND b.version BETWEEN w.lo AND w.hi
				OFFSET 0
			) AS b`),
		// writes looks its checkpoints up one by one as chain does, each
		// once (ids may repeat, as they could in "= ANY").
		writes: r.Replace(`SELECT w.checkpoint, w.task, w.slot, w.channel, w.value
			FROM (SELECT DISTINCT unnest($3::bytea[]) AS id) AS k CROSS JOIN LATERAL (
				SELECT checkpoint, task, slot, channel, value FROM S.writes w
				WHERE w.thread = $1 AND w.ns = $2 AND w.checkpoint = k.id OFFSET 0
			) AS w ORDER BY w.checkpoint, w.task, w.slot`),
		// orphanWrites returns a thread's writes against checkpoint ids
		// it does not hold (PutWrites takes them; a later Put adopts
		// them), in the order export writes them. Such writes are rows:
		// a pack holds writes at a stored checkpoint only (foldable).
		orphanWrites: r.Replace(`SELECT w.ns, w.checkpoint, w.task, w.slot, w.channel, w.value FROM S.writes w
			WHERE w.thread = $1 AND NOT EXISTS (
				SELECT 1 FROM S.checkpoints c WHERE c.thread = w.thread AND c.ns = w.ns AND c.id = w.checkpoint)
			ORDER BY w.ns, w.checkpoint, w.task, w.slot`),
		deleteThread: []string{
			r.Replace(`DELETE FROM S.writes WHERE thread = $1`),
			r.Replace(`DELETE FROM S.blobs WHERE thread = $1`),
			r.Replace(`DELETE FROM S.checkpoints WHERE thread = $1`),
			r.Replace(`DELETE FROM S.threads WHERE thread = $1`),
		},
		// threads counts a thread's namespaces as the root (when it has
		// checkpoints, counted already) and the distinct others, read
		// from the key in order past the root's: count(DISTINCT ns) read
		// and sorted the root's checkpoints too (45-60 ms for the whole
		// statement on 35 threads of 2,550 checkpoints, 18-25 now).
		//
		// It returns the latest root checkpoint's writes (rows only: a
		// namespace's newest checkpoint has none in a pack, see
		// foldable) as three arrays, each write's task and channel and,
		// for the channels $1 names (persist.StatusChannels), its
		// value: what persist.ThreadInfo.SetLatestWrites reads, without
		// the values of task outputs, which may be large. The arrays are
		// aggregates of one pass over the same rows, so their elements
		// line up; the rows come in key order, as the primary key's
		// index reads them, rather than each array sorting its own
		// (array_agg(... ORDER BY)). A thread with no writes there, as most
		// are, costs one index probe.
		threads: r.Replace(`SELECT t.thread, t.fingerprint, t.updated, r.n,
				(r.n > 0)::int + (SELECT count(*) FROM (SELECT DISTINCT ns FROM S.checkpoints c WHERE c.thread = t.thread AND c.ns > ''::bytea) d),
				l.id, l.rec, w.tasks, w.channels, w.vals
			FROM S.threads t CROSS JOIN LATERAL (
				SELECT count(*) AS n FROM S.checkpoints c WHERE c.thread = t.thread AND c.ns = ''::bytea
			) r LEFT JOIN LATERAL (
				SELECT id, rec FROM S.checkpoints c WHERE c.thread = t.thread AND c.ns = ''::bytea ORDER BY id DESC LIMIT 1
			) l ON true LEFT JOIN LATERAL (
				SELECT array_agg(w.task) AS tasks, array_agg(w.channel) AS channels,
					array_agg(CASE WHEN w.channel = ANY ($1::bytea[]) THEN w.value END) AS vals
				FROM (SELECT task, channel, value FROM S.writes w
					WHERE w.thread = t.thread AND w.ns = ''::bytea AND w.checkpoint = l.id ORDER BY task, slot) w
			) w ON true
			WHERE EXISTS (SELECT 1 FROM S.checkpoints c WHERE c.thread = t.thread) OR t.fingerprint <> ''
			ORDER BY t.thread`),
		fingerprint: r.Replace(`SELECT fingerprint FROM S.threads WHERE thread = $1`),
		setFP: r.Replace(`INSERT INTO S.threads (thread, fingerprint) VALUES ($1, $2)
			ON CONFLICT (thread) DO UPDATE SET fingerprint = EXCLUDED.fingerprint`),
		// A thread's first record of its graph: one it has stays.
		recordFP: r.Replace(`INSERT INTO S.threads (thread, fingerprint) VALUES ($1, $2)
			ON CONFLICT (thread) DO UPDATE SET fingerprint = EXCLUDED.fingerprint WHERE S.threads.fingerprint = ''`),
		threadIDs:  r.Replace(`SELECT DISTINCT thread FROM S.checkpoints ORDER BY thread`),
		namespaces: r.Replace(`SELECT DISTINCT ns FROM S.checkpoints WHERE thread = $1 ORDER BY ns`),
	}
}
