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

// TestCheckThreadID_WhiteSpace: a blank id (" ") was taken and showed as
// an empty row in the list of threads; one with white space at an end
// looks like the id without it and cannot be typed back. Both are
// refused, saying which; white space inside is a name like any.
func TestCheckThreadID_WhiteSpace(t *testing.T) {
	for id, want := range map[string]string{
		" ":      `thread id " " is blank`,
		"\u3000": `thread id "\u3000" is blank`,
		" t1":    `thread id " t1" starts or ends with white space ("t1" would do)`,
		"t1 ":    `thread id "t1 " starts or ends with white space ("t1" would do)`,
	} {
		if err := persist.CheckThreadID(id); !errors.Is(err, persist.ErrInvalidID) || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("CheckThreadID(%q) = %v, want ErrInvalidID: %s", id, err, want)
		}
	}
	if err := persist.CheckThreadID("bug 42"); err != nil {
		t.Errorf("CheckThreadID(%q): %v", "bug 42", err)
	}
	// Import holds the id it stores to the same rule: the export's, and
	// the one it is imported under instead (a copy's new id).
	s := openTemp(t, persist.Options{NoSync: true})
	chain(t, s, "t", 2)
	var buf bytes.Buffer
	if err := s.Export(ctx, "t", &buf, ""); err != nil {
		t.Fatal(err)
	}
	blank := strings.Replace(buf.String(), `"thread":"t"`, `"thread":" "`, 1)
	if _, err := s.Import(ctx, strings.NewReader(blank), persist.ImportOptions{}); !errors.Is(err, persist.ErrBadImport) || !strings.Contains(err.Error(), "is blank") {
		t.Errorf("Import of thread \" \": %v, want ErrBadImport, blank", err)
	}
	if _, err := s.Import(ctx, bytes.NewReader(buf.Bytes()), persist.ImportOptions{Thread: " "}); !errors.Is(err, persist.ErrInvalidID) {
		t.Errorf("Import as thread \" \": %v, want ErrInvalidID", err)
	}
	if ths, err := s.Threads(ctx); err != nil || len(ths) != 1 {
		t.Errorf("threads after the refused imports: %d, %v; want only t", len(ths), err)
	}
}
