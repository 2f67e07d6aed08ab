package persist

import "encoding/binary"

// Hooks for the external tests that write files as another build would.

// LayoutSealForTest is the meta bucket's seal of app and layout.
func LayoutSealForTest(app, layout []byte) []byte { return layoutSeal(app, layout) }

// SealCheckpointForTest returns v sealed as the record of the checkpoint
// under key k in (thread, ns), as Put stores it.
func SealCheckpointForTest(thread, ns string, k, v []byte) []byte {
	r := newRecords(nil, kindCheckpoint, thread, ns, true)
	return binary.BigEndian.AppendUint32(append([]byte(nil), v...), r.seal(k, v))
}
