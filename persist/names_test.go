package persist_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/persist"
)

func TestCheckThreadID(t *testing.T) {
	for _, ok := range []string{"t1", "a/b", "with space", "ü∂✓", "bidi\u202eshown escaped"} {
		if err := persist.CheckThreadID(ok); err != nil {
			t.Errorf("CheckThreadID(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "x\x00y", "srv\x1b]52;c;aGk=\a", "two\nlines", "c1\u009b", "a\xffb", strings.Repeat("x", 1025)} {
		if err := persist.CheckThreadID(bad); !errors.Is(err, persist.ErrInvalidID) {
			t.Errorf("CheckThreadID(%q) = %v, want ErrInvalidID", bad, err)
		}
	}
}

// TestImport_RefusesControlCharacters: an export whose thread id carries a
// terminal escape sequence is refused, not stored.
func TestImport_RefusesControlCharacters(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	chain(t, s, "t", 2)
	var buf bytes.Buffer
	if err := s.Export(ctx, "t", &buf, ""); err != nil {
		t.Fatal(err)
	}
	hostile := strings.Replace(buf.String(), `"thread":"t"`, `"thread":"srv\u001b]52;c;aGk=\u0007"`, 1)
	if hostile == buf.String() {
		t.Fatalf("export has no thread field to replace:\n%.200s", buf.String())
	}
	_, err := s.Import(ctx, strings.NewReader(hostile), persist.ImportOptions{})
	if !errors.Is(err, persist.ErrBadImport) || !strings.Contains(err.Error(), "control character") {
		t.Fatalf("Import: %v, want ErrBadImport for the thread id", err)
	}
}
