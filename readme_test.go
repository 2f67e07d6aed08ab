package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADME_ProgramsCompile builds every complete program in README.md
// (a ```go block with package main and no example.com import) against this
// module, so the README cannot drift from the API.
func TestREADME_ProgramsCompile(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	built := 0
	for i, b := range blocks {
		src := b[1]
		if !strings.HasPrefix(src, "package main") || strings.Contains(src, "example.com/") {
			continue
		}
		dir, err := os.MkdirTemp(".", ".readme-check-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "vet", "./"+filepath.Base(dir))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("README program %d does not build: %v\n%s\n%s", i, err, out, src)
		}
		built++
	}
	if built == 0 {
		t.Fatal("README has no complete program to check")
	}
}
