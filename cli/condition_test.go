package cli_test

import (
	"testing"

	"github.com/superstep/superstep/cli"
)

func TestCompileCondition_StateExpressions(t *testing.T) {
	c, err := cli.CompileCondition("len(state.findings) >= 3")
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]bool{2: false, 3: true} {
		findings := make([]any, n)
		got, holds, err := c.Eval(map[string]any{"findings": findings})
		if err != nil || got != want || holds != want {
			t.Fatalf("%d findings: %v (holds %v) %v", n, got, holds, err)
		}
	}
	// The language's truth, not Go's: a count holds when it is not 0.
	c, err = cli.CompileCondition("len(state.findings)")
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]bool{0: false, 2: true} {
		if _, holds, err := c.Eval(map[string]any{"findings": make([]any, n)}); err != nil || holds != want {
			t.Fatalf("len of %d findings holds %v, want %v (%v)", n, holds, want, err)
		}
	}
	if _, err := cli.CompileCondition("len(state.findings >= "); err == nil {
		t.Fatal("a broken expression compiles")
	}
}
