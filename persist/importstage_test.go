package persist

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine/enginetest"
)

// smallChunks makes imports commit every few kilobytes, so that a test
// import of a few hundred checkpoints is written in many transactions.
func smallChunks(t *testing.T) {
	old := importChunkBytes
	importChunkBytes = 4 << 10
	t.Cleanup(func() { importChunkBytes = old })
}

func openStageTest(t *testing.T, name string) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), name), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// conversationExport is the export of a 300-checkpoint conversation.
func conversationExport(t *testing.T) []byte {
	t.Helper()
	src := openStageTest(t, "src.db")
	enginetest.Conversation(t, src, "t", 300, true)
	var buf bytes.Buffer
	if err := src.Export(context.Background(), "t", &buf, ""); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// failingReader gives the first n bytes of data, then err.
type failingReader struct {
	data []byte
	n    int
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, r.err
	}
	k := copy(p, r.data[:min(len(r.data), r.n)])
	r.data, r.n = r.data[k:], r.n-k
	return k, nil
}

// hasImporting reports whether the file has an import's bucket.
func hasImporting(t *testing.T, s *Store) bool {
	t.Helper()
	var has bool
	if err := s.read(func(tx *bolt.Tx) error { has = tx.Bucket(bucketImporting) != nil; return nil }); err != nil {
		t.Fatal(err)
	}
	return has
}

// TestImport_ChunksAllOrNothing: an import commits its thread a chunk at a
// time where no reader looks, so one that fails after several commits —
// the input cut off, a bad checkpoint near the end, the context cancelled,
// a thread of its id that it may not replace — leaves the store as it
// was: no thread, nothing in the importing bucket, the file's digest
// whole (Check). One that succeeds gives back the thread exported.
func TestImport_ChunksAllOrNothing(t *testing.T) {
	smallChunks(t)
	data := conversationExport(t)
	ctx := context.Background()
	lines := bytes.Split(data, []byte("\n"))
	badEnd := bytes.Join(append(lines[:len(lines)-3:len(lines)-3], []byte(`{"nope":1}`), lines[len(lines)-2], lines[len(lines)-1]), []byte("\n"))
	cut := errors.New("connection reset")
	cancelled, cancel := context.WithCancel(ctx)
	cases := []struct {
		name string
		ctx  context.Context
		r    func() io.Reader
		want error
	}{
		{"cut off", ctx, func() io.Reader { return &failingReader{data: data, n: len(data) * 9 / 10, err: cut} }, cut},
		{"bad checkpoint at the end", ctx, func() io.Reader { return bytes.NewReader(badEnd) }, ErrBadImport},
		{"cancelled", cancelled, func() io.Reader {
			return io.MultiReader(bytes.NewReader(data[:len(data)*9/10]), readerFunc(func([]byte) (int, error) {
				cancel()
				return 0, io.EOF
			}))
		}, context.Canceled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openStageTest(t, "dst.db")
			before := s.w.commits.Load()
			_, err := s.Import(c.ctx, c.r(), ImportOptions{})
			if !errors.Is(err, c.want) {
				t.Fatalf("Import: %v, want %v", err, c.want)
			}
			// More than the drop that undid them: the import committed
			// chunks before it failed.
			if n := s.w.commits.Load() - before; n < 3 {
				t.Fatalf("the failed import committed %d times, want chunks before the failure", n)
			}
			if ths, err := s.Threads(ctx); err != nil || len(ths) != 0 {
				t.Errorf("a failed import left threads %v (%v)", ths, err)
			}
			if hasImporting(t, s) {
				t.Error("a failed import left its bucket")
			}
			if err := s.Check(); err != nil {
				t.Errorf("Check after a failed import: %v", err)
			}
		})
	}
	t.Run("replace refused", func(t *testing.T) {
		s := openStageTest(t, "dst.db")
		if _, err := s.Import(ctx, bytes.NewReader(data), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := s.Import(ctx, bytes.NewReader(data), ImportOptions{})
		if !errors.Is(err, ErrThreadExists) {
			t.Fatalf("second Import: %v, want ErrThreadExists", err)
		}
		if hasImporting(t, s) {
			t.Error("a refused import left its bucket")
		}
		var again bytes.Buffer
		if err := s.Export(ctx, "t", &again, ""); err != nil || !bytes.Equal(again.Bytes(), data) {
			t.Errorf("the thread a refused import would have replaced changed (%v)", err)
		}
		if err := s.Check(); err != nil {
			t.Errorf("Check: %v", err)
		}
	})
	t.Run("whole", func(t *testing.T) {
		s := openStageTest(t, "dst.db")
		before := s.w.commits.Load()
		if _, err := s.Import(ctx, bytes.NewReader(data), ImportOptions{Overwrite: true}); err != nil {
			t.Fatal(err)
		}
		if n := s.w.commits.Load() - before; n < 3 {
			t.Errorf("Import committed %d times, want a chunk at a time", n)
		}
		var again bytes.Buffer
		if err := s.Export(ctx, "t", &again, ""); err != nil || !bytes.Equal(again.Bytes(), data) {
			t.Errorf("the imported thread exports differently (%v)", err)
		}
		if hasImporting(t, s) {
			t.Error("the import left its bucket")
		}
		if err := s.Check(); err != nil {
			t.Errorf("Check: %v", err)
		}
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// TestImport_DeadImportDropped: a process that dies mid-import leaves its
// committed chunks in the importing bucket. The file is still sound
// (Check counts them in the digest), no thread shows, and the next import
// drops them.
func TestImport_DeadImportDropped(t *testing.T) {
	smallChunks(t)
	data := conversationExport(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "dst.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	// What Import does up to its end, without the end: as if the process
	// died there.
	st := &importStage{s: s, ctx: ctx, content: newThreadContent("")}
	if _, _, err := readExport(bytes.NewReader(data), DefaultMaxImportBytes, st); err != nil {
		t.Fatal(err)
	}
	if st.seq == 0 {
		t.Fatal("nothing was committed")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !hasImporting(t, s) {
		t.Fatal("the dead import's bucket is gone before an import")
	}
	if err := s.Check(); err != nil {
		t.Errorf("Check with a dead import's bucket: %v", err)
	}
	if ths, err := s.Threads(ctx); err != nil || len(ths) != 0 {
		t.Errorf("a dead import shows threads %v (%v)", ths, err)
	}
	if _, err := s.Import(ctx, bytes.NewReader(data), ImportOptions{Thread: "u"}); err != nil {
		t.Fatal(err)
	}
	if hasImporting(t, s) {
		t.Error("the next import left the dead import's bucket")
	}
	if err := s.Check(); err != nil {
		t.Errorf("Check after the next import: %v", err)
	}
	if ths, err := s.Threads(ctx); err != nil || len(ths) != 1 || ths[0].ID != "u" {
		t.Errorf("threads %v (%v), want u", ths, err)
	}
}
