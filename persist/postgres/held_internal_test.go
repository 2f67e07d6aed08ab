package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// The bytes counted against Options.MaxBuffered are counted back when
// their commits end: a store whose writes were all committed holds none,
// so the bound does not turn async and exit durability into sync for
// ever after. (The server is the black-box tests' own: TestMain, there,
// leaves without running anything when the variable is not set.)
func TestStore_HeldBytesReturnToZero(t *testing.T) {
	ctx := context.Background()
	for _, d := range []persist.Durability{persist.DurabilityAsync, persist.DurabilityExit} {
		t.Run(d.String(), func(t *testing.T) {
			u, err := url.Parse(os.Getenv("SUPERSTEP_TEST_POSTGRES"))
			if err != nil {
				t.Fatal(err)
			}
			var b [6]byte
			rand.Read(b[:])
			q := u.Query()
			q.Set("schema", "t_held_"+hex.EncodeToString(b[:]))
			u.RawQuery = q.Encode()
			t.Cleanup(func() { DropSchema(ctx, u.String()) })
			s, err := Open(ctx, u.String(), Options{Durability: d})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			g, err := engine.NewStateGraph(engine.LastValueKey("n")).
				AddNode("inc", func(_ context.Context, in any) (any, error) {
					return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
				}).
				AddEdge(engine.Start, "inc").AddEdge("inc", engine.End).
				Compile(engine.WithSaver(s))
			if err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				if _, err := g.Invoke(ctx, map[string]any{"n": float64(i)}, engine.OnThread("t")); err != nil {
					t.Fatal(err)
				}
			}
			s.mu.Lock()
			queued := s.held
			s.mu.Unlock()
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			s.mu.Lock()
			held := s.held
			s.mu.Unlock()
			if held != 0 || (d == persist.DurabilityExit && queued == 0) {
				t.Fatalf("held %d bytes after Flush (%d before); want 0, and some before under exit", held, queued)
			}
		})
	}
}
