package persist

import (
	"encoding/binary"
	"errors"
	"strings"
)

// Keys are tuples of strings and integers, encoded so that comparing two
// keys byte by byte (bbolt's order) compares the tuples element by element.
// That is what lets a cursor walk checkpoints in id order, one checkpoint's
// writes in (task, slot) order, and seek to a prefix.
//
//   - A string is its bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x00.
//     The terminator sorts below every escaped byte, so "a" < "a\x00" < "ab"
//     holds for the encodings too, whatever follows them.
//   - An int64 is 8 big-endian bytes with the sign bit flipped, so negative
//     numbers sort before positive ones (special write slots come first).
//   - A uint64 is 8 big-endian bytes.

// Tuple element encoders. Each appends to dst and returns the result.

func appendString(dst []byte, s string) []byte {
	if strings.IndexByte(s, 0) < 0 {
		// The common case (ids, channel names): nothing to escape, so
		// copy the bytes at once instead of one by one.
		return append(append(dst, s...), 0, 0)
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			dst = append(dst, 0, 0xff)
			continue
		}
		dst = append(dst, s[i])
	}
	return append(dst, 0, 0)
}

func appendInt(dst []byte, n int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(n)^(1<<63))
}

func appendUint(dst []byte, n uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, n)
}

var errBadKey = errors.New("malformed key")

// readString decodes a string element at the start of k and returns it with
// the rest of k. The string is a copy.
func readString(k []byte) (string, []byte, error) {
	buf := make([]byte, 0, len(k))
	for i := 0; i < len(k); i++ {
		if k[i] != 0 {
			buf = append(buf, k[i])
			continue
		}
		if i+1 >= len(k) {
			return "", nil, errBadKey
		}
		switch k[i+1] {
		case 0:
			return string(buf), k[i+2:], nil
		case 0xff:
			buf = append(buf, 0)
			i++
		default:
			return "", nil, errBadKey
		}
	}
	return "", nil, errBadKey
}

func readInt(k []byte) (int64, []byte, error) {
	if len(k) < 8 {
		return 0, nil, errBadKey
	}
	return int64(binary.BigEndian.Uint64(k) ^ (1 << 63)), k[8:], nil
}

func readUint(k []byte) (uint64, []byte, error) {
	if len(k) < 8 {
		return 0, nil, errBadKey
	}
	return binary.BigEndian.Uint64(k), k[8:], nil
}

// Key kinds. Each has one constructor and one parser; keys_test.go checks
// that they round-trip and preserve order.

// checkpointKey is the key of a checkpoint record: (id).
func checkpointKey(id string) []byte { return appendString(keyBuf(id), id) }

// keyBuf returns an empty buffer with room for a key made of strs and up
// to two integers, so building it allocates once. (A string needs its
// bytes and its terminator, and any escapes; escapes are rare and only
// grow the buffer.)
func keyBuf(strs ...string) []byte {
	n := 0
	for _, s := range strs {
		n += len(s) + 2
	}
	return make([]byte, 0, n+16)
}

func parseCheckpointKey(k []byte) (string, error) {
	id, rest, err := readString(k)
	if err == nil && len(rest) != 0 {
		err = errBadKey
	}
	return id, err
}

// writeKey is the key of a pending write: (checkpoint id, task id, slot).
// writePrefix(cp) and writePrefix(cp, task) are its prefixes.
func writeKey(cpID, taskID string, slot int64) []byte {
	return appendInt(appendString(appendString(keyBuf(cpID, taskID), cpID), taskID), slot)
}

func writePrefix(parts ...string) []byte {
	k := keyBuf(parts...)
	for _, p := range parts {
		k = appendString(k, p)
	}
	return k
}

func parseWriteKey(k []byte) (cpID, taskID string, slot int64, err error) {
	if cpID, k, err = readString(k); err != nil {
		return
	}
	if taskID, k, err = readString(k); err != nil {
		return
	}
	if slot, k, err = readInt(k); err == nil && len(k) != 0 {
		err = errBadKey
	}
	return
}

// blobKey is the key of a channel value: (channel, version, seq). seq is 0
// for the canonical blob of a version and a bucket sequence number for a
// different value stored under a version already taken (forks).
func blobKey(channel string, version int64, seq uint64) []byte {
	return appendUint(appendInt(appendString(keyBuf(channel), channel), version), seq)
}

func parseBlobKey(k []byte) (channel string, version int64, seq uint64, err error) {
	if channel, k, err = readString(k); err != nil {
		return
	}
	if version, k, err = readInt(k); err != nil {
		return
	}
	if seq, k, err = readUint(k); err == nil && len(k) != 0 {
		err = errBadKey
	}
	return
}

// childKey is the key of a parent→child edge: (parent id, child id).
// writePrefix(parent) is its prefix.
func childKey(parentID, childID string) []byte {
	return appendString(appendString(keyBuf(parentID, childID), parentID), childID)
}

func parseChildKey(k []byte) (parentID, childID string, err error) {
	if parentID, k, err = readString(k); err != nil {
		return
	}
	if childID, k, err = readString(k); err == nil && len(k) != 0 {
		err = errBadKey
	}
	return
}

// nsBucketName is the name of a namespace's bucket inside its thread's
// bucket. The prefix keeps the root namespace "" a legal bucket name and
// apart from the thread's plain keys.
func nsBucketName(ns string) []byte { return append([]byte{'n'}, ns...) }
