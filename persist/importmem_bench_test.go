package persist_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/superstep/superstep/persist"
)

// writeConversationExport writes the export document (format version 2)
// of one long agent conversation: n checkpoints, each appending one
// message of about size bytes to "messages" (the appended-delta form
// Export writes), with the message also saved as the step's pending write,
// as a run saves a node's output. It returns the bytes written. The
// document is made as it is written, so a test can read one of any size
// without holding it (see BenchmarkImport_LargeThread).
func writeConversationExport(w io.Writer, thread string, n, size int) (int64, error) {
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	fmt.Fprintf(bw, `{"format":"superstep-thread","version":2,"thread":%q,"fingerprint":"","checkpoints":[`, thread)
	parent := ""
	for i := 1; i <= n; i++ {
		content := strings.Repeat(fmt.Sprintf("word%d ", i%97), max(size/7, 1))
		msg := map[string]any{"type": "ai", "id": fmt.Sprintf("msg-%06d", i), "content": content}
		node := []string{"agent", "tools"}[i%2]
		id := fmt.Sprintf("%032x", i)
		rec := map[string]any{
			"ns": "", "id": id, "parent": parent, "v": 4, "ts": time.Unix(1700000000, int64(i)).UTC(),
			"metadata":         map[string]any{"source": "loop", "step": i - 1, "parents": map[string]any{}, "extra": nil},
			"versions":         map[string]any{"messages": i, "step": i, "branch:to:" + node: i},
			"versions_seen":    map[string]any{node: map[string]any{"branch:to:" + node: i - 1}},
			"updated_channels": []string{"branch:to:" + node, "messages", "step"},
			"writes":           []any{map[string]any{"task": fmt.Sprintf("%08x-task", i), "slot": 0, "channel": "messages", "value": []any{msg}}},
		}
		if i == 1 {
			rec["values"] = map[string]any{"messages": []any{msg}, "step": i}
		} else {
			rec["values"] = map[string]any{"step": i}
			rec["appended"] = map[string]any{"messages": []any{msg}}
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return cw.n, err
		}
		if i > 1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
		bw.Write(line)
		parent = id
	}
	bw.WriteString("\n]}\n")
	err := bw.Flush()
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// heapPeak samples the live heap while it runs (every millisecond) and
// reports the most seen: a benchmark's peak, which allocs/op does not say.
type heapPeak struct {
	stop chan struct{}
	wg   sync.WaitGroup
	peak uint64
}

func startHeapPeak() *heapPeak {
	runtime.GC()
	h := &heapPeak{stop: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		h.peak = max(h.peak, sample[0].Value.Uint64())
	}
	read()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				read()
				return
			case <-t.C:
				read()
			}
		}
	}()
	return h
}

// heapAllocs is the bytes allocated on the heap since the program started.
func heapAllocs() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

func (h *heapPeak) end() uint64 {
	close(h.stop)
	h.wg.Wait()
	return h.peak
}

// BenchmarkImport_LargeThread imports the export of a long conversation
// (the size of a production thread an engineer pulls to debug: 2,000
// checkpoints, 64 MB of export with -benchtime 1x), read from a pipe as
// the document is made, so the input is never whole in memory either. It
// reports the bytes allocated and the heap's peak per MB of export. Read
// whole and written in one transaction, the import allocated 44 MB and
// peaked at 7.6 MB of heap per MB of export; streamed and committed in
// chunks, 24 MB and 3.3 MB (of which the thread's message list, decoded,
// is what a delta needs, and the store's whole copies of it).
func BenchmarkImport_LargeThread(b *testing.B) {
	const steps, size = 2000, 16000
	var exported int64
	allocs, peak := uint64(0), uint64(0)
	for b.Loop() {
		b.StopTimer()
		s, err := persist.Open(filepath.Join(b.TempDir(), "import.db"), persist.Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		pr, pw := io.Pipe()
		go func() {
			n, err := writeConversationExport(pw, "big", steps, size)
			exported = n
			pw.CloseWithError(err)
		}()
		before := heapAllocs()
		h := startHeapPeak()
		b.StartTimer()
		if _, err := s.Import(ctx, pr, persist.ImportOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		peak = max(peak, h.end())
		allocs += heapAllocs() - before
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	mb := float64(exported) / (1 << 20)
	b.ReportMetric(mb, "export-MB")
	b.ReportMetric(float64(allocs)/float64(b.N)/(1<<20)/mb, "alloc-MB/export-MB")
	b.ReportMetric(float64(peak)/(1<<20)/mb, "peak-heap-MB/export-MB")
}
