package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// binary is the superstep command built once for every test.
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(signalHelper) != "" {
		os.Exit(signalMain())
	}
	dir, err := os.MkdirTemp("", "superstep-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "superstep")
	build := exec.Command("go", "build", "-o", binary, "..")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building superstep:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// superstep runs the binary with a private HOME so no test touches the
// user's database, and a timeout so a hang fails instead of stalling.
func superstep(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return superstepEnv(t, nil, stdin, args...)
}

// superstepEnv is superstep with more environment variables ("K=V").
func superstepEnv(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	return runProgram(t, binary, env, stdin, args...)
}

// runProgram runs bin (superstep, or a program embedding it) as
// superstepEnv describes.
func runProgram(t *testing.T, binary string, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(testEnv(t), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("superstep %s: timed out", strings.Join(args, " "))
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("superstep %s: %v", strings.Join(args, " "), err)
	}
	if strings.Contains(errb.String(), "panic") || strings.Contains(errb.String(), "goroutine ") {
		t.Fatalf("superstep %s panicked:\n%s", strings.Join(args, " "), errb.String())
	}
	return result{out.String(), errb.String(), code}
}

// testEnv is the environment of a superstep process: a private HOME, and
// PATH.
func testEnv(t *testing.T) []string {
	return []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
}

func (r result) want(t *testing.T, code int, contains ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	all := r.stdout + r.stderr
	for _, c := range contains {
		if !strings.Contains(all, c) {
			t.Fatalf("output lacks %q\nstdout:\n%s\nstderr:\n%s", c, r.stdout, r.stderr)
		}
	}
}

func testdata(name string) string {
	p, _ := filepath.Abs(filepath.Join("testdata", name))
	return p
}

// wantNoFiles fails t for each of paths that exists: what (a refused
// command, named for the message) must leave nothing behind.
func wantNoFiles(t *testing.T, what string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left %s behind (%v)", what, p, err)
		}
	}
}
