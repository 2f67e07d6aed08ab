package persist

import (
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// The table-driven CRC helpers continue a CRC exactly as crc32.Update.
func TestCRCHelpers_MatchCRC32(t *testing.T) {
	for _, s := range []string{"", "a", "thread-1", string(make([]byte, 300)), "ns|child:1\x00x"} {
		for _, seed := range []uint32{0, 1, 0xdeadbeef} {
			if got, want := crcString(seed, s), crc32.Update(seed, castagnoli, []byte(s)); got != want {
				t.Errorf("crcString(%x, %q) = %x, want %x", seed, s, got, want)
			}
			n := uint32(len(s)) * 0x01020304
			if got, want := crcUint32(seed, n), crc32.Update(seed, castagnoli, binary.BigEndian.AppendUint32(nil, n)); got != want {
				t.Errorf("crcUint32(%x, %x) = %x, want %x", seed, n, got, want)
			}
			if got, want := crcByte(seed, byte(len(s))), crc32.Update(seed, castagnoli, []byte{byte(len(s))}); got != want {
				t.Errorf("crcByte = %x, want %x", got, want)
			}
		}
	}
}
