package cli_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// Scale benchmarks: the commands that read a whole thread, on threads of
// 1k and 10k checkpoints (100k with SCALE_100K=1: generating it takes
// minutes). Each op runs the superstep binary; besides time it reports the
// process's peak memory (maxrss-MB). The thread is an agent loop whose
// message list grows by one message a step, with a task write per step.
//
//	go test ./cli -run '^$' -bench BenchmarkScale -benchtime 1x

var scaleDBs = map[int]string{}

// scaleDB returns a database holding thread "big" with n checkpoints,
// built once per process.
func scaleDB(b *testing.B, n int) string {
	if p, ok := scaleDBs[n]; ok {
		return p
	}
	dir, err := os.MkdirTemp("", "superstep-scale")
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "scale.db")
	s, err := persist.Open(path, persist.Options{NoSync: true, Durability: persist.DurabilityAsync})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var msgs []any
	parent := ""
	for i := 1; i <= n; i++ {
		msgs = append(msgs[:len(msgs):len(msgs)], map[string]any{"id": fmt.Sprintf("m%06d", i), "content": fmt.Sprintf("message %d of a long conversation", i)})
		id := fmt.Sprintf("%032x", i)
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, TS: time.Unix(1700000000, int64(i)).UTC(),
			ChannelValues:   map[string]any{"messages": msgs, "step": float64(i)},
			ChannelVersions: map[string]engine.Version{"messages": engine.Version(i), "step": engine.Version(i)},
			VersionsSeen:    map[string]map[string]engine.Version{"agent": {"step": engine.Version(i - 1)}},
			UpdatedChannels: []string{"messages", "step"}}
		if _, err := s.Put(ctx, engine.Config{ThreadID: "big", CheckpointID: parent}, cp, engine.Metadata{Source: engine.SourceLoop, Step: i - 1}, nil); err != nil {
			b.Fatal(err)
		}
		if err := s.PutWrites(ctx, engine.Config{ThreadID: "big", CheckpointID: id}, "task", []engine.Write{{Channel: "step", Value: float64(i + 1)}}); err != nil {
			b.Fatal(err)
		}
		parent = id
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	scaleDBs[n] = path
	return path
}

func scaleSizes() []int {
	sizes := []int{1000, 10000}
	if os.Getenv("SCALE_100K") != "" {
		sizes = append(sizes, 100000)
	}
	return sizes
}

func BenchmarkScale(b *testing.B) {
	for _, n := range scaleSizes() {
		for _, args := range [][]string{
			{"history", "big"},
			{"show", "big"},
			{"show", "big", "--checkpoint", fmt.Sprintf("%032x", n/2)},
			{"export", "big"},
		} {
			b.Run(fmt.Sprintf("%s/%s/%d", args[0], strconv.Itoa(len(args)), n), func(b *testing.B) {
				db := scaleDB(b, n)
				var peak int64
				for b.Loop() {
					cmd := exec.Command(binary, append(append([]string{}, args...), "--db", db)...)
					cmd.Env = []string{"HOME=" + b.TempDir(), "PATH=" + os.Getenv("PATH")}
					cmd.Stdout = nil
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("%v: %v\n%.500s", args, err, out)
					}
					if kb, ok := peakRSSKB(cmd.ProcessState); ok {
						peak = max(peak, kb)
					}
				}
				b.ReportMetric(float64(peak)/1024, "maxrss-MB")
			})
		}
	}
}
