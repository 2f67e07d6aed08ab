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
		got, err := c.Eval(map[string]any{"findings": findings})
		if err != nil || got != want {
			t.Fatalf("%d findings: %v %v", n, got, err)
		}
	}
	if _, err := cli.CompileCondition("len(state.findings >= "); err == nil {
		t.Fatal("a broken expression compiles")
	}
}
