package enginetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
)

// Damage returns a copy of a database file's bytes with one random kind of
// damage, and says what it did: a flipped bit anywhere, a damaged byte in
// a page header (the first 16 bytes of a page of the machine's page size,
// bbolt's), or a truncation. The damage tests of the store and of the
// command line use it.
func Damage(rng *rand.Rand, data []byte) ([]byte, string) {
	out := bytes.Clone(data)
	page := os.Getpagesize()
	switch rng.IntN(3) {
	case 0:
		off := rng.IntN(len(out))
		bit := byte(1) << rng.IntN(8)
		out[off] ^= bit
		return out, fmt.Sprintf("flip bit %#x of byte %d", bit, off)
	case 1:
		p := rng.IntN(len(out) / page)
		off := p*page + rng.IntN(16)
		out[off] ^= byte(1 + rng.IntN(255))
		return out, fmt.Sprintf("damage byte %d of page %d's header", off-p*page, p)
	default:
		n := rng.IntN(len(out))
		return out[:n], fmt.Sprintf("truncate to %d bytes", n)
	}
}
