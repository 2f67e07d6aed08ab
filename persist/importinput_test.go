package persist_test

import (
	"bytes"
	"testing"

	"github.com/superstep/superstep/persist"
)

// TestImport_ByteOrderMark: an export saved again by an editor that
// puts a UTF-8 byte order mark first (Notepad, PowerShell's Out-File) is
// the same export; it was refused as "invalid character 'ï'".
func TestImport_ByteOrderMark(t *testing.T) {
	good := validExport(t)
	data := append([]byte("\xef\xbb\xbf"), good...)
	s := openTemp(t, persist.Options{NoSync: true})
	if th, err := s.Import(ctx, bytes.NewReader(data), persist.ImportOptions{}); err != nil || th != "t" {
		t.Fatalf("Import of an export after a byte order mark = %q, %v", th, err)
	}
	if _, err := persist.ReadExport(bytes.NewReader(data), 0); err != nil {
		t.Fatalf("ReadExport of an export after a byte order mark: %v", err)
	}
	if again := export(t, s, "t"); !bytes.Equal(again, good) {
		t.Error("the imported thread exports differently from the original")
	}
}
