package persist_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestImport_WrongTypeNamesField: a field of valid JSON with the wrong
// type was "not JSON: json: cannot unmarshal number 2.5 into Go struct
// field exportHead.version". The error names the field as the document
// spells it, what the format wants and what it has, and where: the line,
// and the checkpoint (index and id) or orphan writes entry it is in.
func TestImport_WrongTypeNamesField(t *testing.T) {
	good := validExport(t)
	edit := func(fn func(doc map[string]any)) []byte { return editedExport(t, good, fn) }
	cp := func(doc map[string]any, n int) map[string]any { return doc["checkpoints"].([]any)[n].(map[string]any) }
	var second string
	edit(func(d map[string]any) { second = cp(d, 1)["id"].(string) })
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"version", bytes.Replace(good, []byte(`"version":2`), []byte(`"version":2.5`), 1),
			`invalid thread export: field "version" wants an integer, not number 2.5 (line 1)`},
		{"thread", edit(func(d map[string]any) { d["thread"] = 7 }),
			`invalid thread export: field "thread" wants a string, not a number (line 1)`},
		{"step", edit(func(d map[string]any) { cp(d, 1)["metadata"].(map[string]any)["step"] = "one" }),
			`invalid thread export: checkpoint 1 ("` + second + `"): field "metadata.step" wants an integer, not a string (line 1)`},
		{"checkpoints", edit(func(d map[string]any) { d["checkpoints"] = 5 }),
			`invalid thread export: field "checkpoints" wants a list, not a number (line 1)`},
	}
	// The line is the file's: a checkpoint is a line of an export as
	// Export writes it.
	lines := bytes.Split(good, []byte("\n"))
	lines[2] = bytes.Replace(lines[2], []byte(`"v":4`), []byte(`"v":"4"`), 1)
	cases = append(cases, struct {
		name string
		data []byte
		want string
	}{"line", bytes.Join(lines, []byte("\n")), `invalid thread export: checkpoint 1 ("` + second + `"): field "v" wants an integer, not a string (line 3)`})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := persist.ReadExport(bytes.NewReader(c.data), 0)
			if !errors.Is(err, persist.ErrBadImport) || err.Error() != c.want {
				t.Errorf("ReadExport: %v\nwant ErrBadImport: %s", err, c.want)
			}
		})
	}
}

// TestOpen_ExportFile: an export given where a database goes said only
// "not a bbolt file". Open says it is a thread export (ErrIsExport, still
// ErrNotDatabase) for a writable or read-only open, and leaves the file
// as it was; other JSON is not a bbolt file, as before.
func TestOpen_ExportFile(t *testing.T) {
	dir := t.TempDir()
	good := validExport(t)
	for name, data := range map[string][]byte{
		"export":          good,
		"export with BOM": append([]byte("\xef\xbb\xbf"), good...),
		"other JSON":      []byte(`{"checkpoints": [], "format": "something-else"}`),
	} {
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, ro := range []bool{false, true} {
			s, err := persist.Open(path, persist.Options{ReadOnly: ro, Timeout: time.Second})
			if err == nil {
				s.Close()
				t.Fatalf("%s (read-only %v): opened as a database", name, ro)
			}
			isExport := name != "other JSON"
			if !errors.Is(err, persist.ErrNotDatabase) || errors.Is(err, persist.ErrIsExport) != isExport {
				t.Errorf("%s (read-only %v): %v, want ErrNotDatabase, ErrIsExport %v", name, ro, err, isExport)
			}
			if isExport && !strings.Contains(err.Error(), "a superstep thread export (JSON)") {
				t.Errorf("%s: %v does not say what the file is", name, err)
			}
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
			t.Errorf("%s: Open changed the file", name)
		}
	}
}

// spaced is data with n spaces after each comma outside its strings:
// valid JSON still, and as large as a test needs without a value as
// large.
func spaced(data []byte, n int) io.Reader {
	pad := bytes.Repeat([]byte(" "), n)
	var parts []io.Reader
	inString, escaped, from := false, false, 0
	for i, c := range data {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped, inString = c == '\\', c != '"'
		case c == '"':
			inString = true
		case c == ',':
			parts = append(parts, bytes.NewReader(data[from:i+1]), bytes.NewReader(pad))
			from = i + 1
		}
	}
	return io.MultiReader(append(parts, bytes.NewReader(data[from:]))...)
}

// TestImport_LargerThanItsMemory: Import reads a document as a stream, so
// its default limit is the one that stops an endless input, not the
// 256 MiB that guarded a document read whole. An export spaced out to
// more than 256 MiB (JSON allows white space between values) is imported.
// A run of white space longer than
// maxSpace, which the decoder would hold whole, is refused, naming its
// line.
func TestImport_LargerThanItsMemory(t *testing.T) {
	src := openTemp(t, persist.Options{NoSync: true})
	chain(t, src, "t", 300)
	data := export(t, src, "t")
	commas := 0
	for _, c := range data {
		if c == ',' {
			commas++
		}
	}
	n := (257<<20)/commas + 1
	if n > 1<<20 {
		t.Fatalf("fixture: %d commas need runs of %d spaces", commas, n)
	}
	s := openTemp(t, persist.Options{NoSync: true})
	if th, err := s.Import(ctx, spaced(data, n), persist.ImportOptions{}); err != nil || th != "t" {
		t.Fatalf("Import of a %d MiB export = %q, %v", (commas*n)>>20, th, err)
	}
	endless := io.MultiReader(bytes.NewReader(data[:len(data)-2]), bytes.NewReader(bytes.Repeat([]byte("\n"), 2<<20)))
	if _, err := persist.CheckExport(endless, 0); !errors.Is(err, persist.ErrBadImport) || !strings.Contains(err.Error(), "bytes of white space between two values (line ") {
		t.Errorf("CheckExport of 2 MiB of white space: %v, want it refused", err)
	}
}

// TestCheckExport_AsImport: CheckExport refuses what Import refuses, with
// the same error, and stores nothing anywhere.
func TestCheckExport_AsImport(t *testing.T) {
	good := validExport(t)
	s := openTemp(t, persist.Options{NoSync: true})
	for name, data := range map[string][]byte{
		"not JSON":  []byte("{\n\"format\": \"superstep-thread\",\n\"thread\": \n}"),
		"truncated": good[:len(good)/2],
		"bad field": bytes.Replace(good, []byte(`"version":2`), []byte(`"version":2.5`), 1),
	} {
		_, cerr := persist.CheckExport(bytes.NewReader(data), 0)
		_, ierr := s.Import(ctx, bytes.NewReader(data), persist.ImportOptions{})
		if !errors.Is(cerr, persist.ErrBadImport) || ierr == nil || cerr.Error() != ierr.Error() {
			t.Errorf("%s: CheckExport: %v\nImport: %v", name, cerr, ierr)
		}
	}
}
