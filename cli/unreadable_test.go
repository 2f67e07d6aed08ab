package cli_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestThreads_OneUnreadable: a thread whose latest checkpoint record is
// damaged is listed and marked unreadable, in text and JSON; the other
// threads are listed as usual, and stderr points at check.
func TestThreads_OneUnreadable(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	putSteps(t, db, "good", 2)
	putSteps(t, db, "bad", 2)
	b, err := bolt.Open(db, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		// persist's layout 3 keeps the root namespace's records in the
		// thread's bucket; a checkpoint record's key is 'r', the id,
		// 0x00 0x00, 'c'. Ids sort by time: the last is the latest.
		tb := tx.Bucket([]byte("threads")).Bucket([]byte("bad"))
		var k, v []byte
		c := tb.Cursor()
		for ck, cv := c.Seek([]byte{'r'}); len(ck) > 0 && ck[0] == 'r'; ck, cv = c.Next() {
			if i := bytes.Index(ck, []byte{0, 0}); i > 0 && i+2 < len(ck) && ck[i+2] == 'c' {
				k, v = ck, cv
			}
		}
		// The record cut short after its format byte, as a torn write
		// would leave it.
		return tb.Put(bytes.Clone(k), []byte{v[0], '{'})
	})
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	r := superstep(t, "", "threads", "--db", db)
	if r.code != 0 {
		t.Fatalf("threads: exit %d, want the readable threads listed\n%s", r.code, r.stderr)
	}
	var goodLine, badLine string
	for _, l := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasPrefix(l, "good "):
			goodLine = l
		case strings.HasPrefix(l, "bad "):
			badLine = l
		}
	}
	if !strings.Contains(goodLine, " 2 ") || !strings.Contains(badLine, "unreadable: ") || !strings.Contains(badLine, "damaged") {
		t.Errorf("threads:\n%s\nwant good listed and bad marked unreadable, naming the damage", r.stdout)
	}
	if !strings.Contains(r.stderr, "1 thread(s) cannot be read") || !strings.Contains(r.stderr, "superstep check") {
		t.Errorf("threads stderr: %q, want a note pointing at check", r.stderr)
	}

	r = superstep(t, "", "threads", "--db", db, "--json")
	var rows []struct {
		Thread, Status, Error string
		Checkpoints           int
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); r.code != 0 || err != nil {
		t.Fatalf("threads --json: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	found := map[string]bool{}
	for _, row := range rows {
		found[row.Thread] = true
		switch row.Thread {
		case "bad":
			if row.Status != "unreadable" || !strings.Contains(row.Error, "damaged") {
				t.Errorf("bad: %+v, want status unreadable and the damage in error", row)
			}
		case "good":
			if row.Error != "" || row.Checkpoints != 2 {
				t.Errorf("good: %+v, want it read in full", row)
			}
		}
	}
	if !found["good"] || !found["bad"] {
		t.Errorf("threads --json lists %v, want good and bad", found)
	}
}
