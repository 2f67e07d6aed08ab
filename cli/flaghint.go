package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/superstep/superstep/engine"
)

// flagErrorHint is what follows cobra's refusal of a flag on cmd: the flag
// of cmd it likely meant (--thred: --thread), or, for an argument that
// starts with "-" and is no flag (a thread id such as -t1), that such an
// argument goes after "--".
func flagErrorHint(cmd *cobra.Command, err error) string {
	msg := err.Error()
	if arg, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name, _, _ := strings.Cut(arg, "=")
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if meant := engine.MeantName(names, name); meant != "" {
			return fmt.Sprintf(" (did you mean --%s?)", meant)
		}
		return ""
	}
	if _, arg, ok := strings.Cut(msg, "unknown shorthand flag: "); ok {
		if _, a, ok := strings.Cut(arg, " in "); ok && len(strings.Fields(cmd.Use)) > 1 { // it takes arguments
			return fmt.Sprintf("; an argument that starts with - (a thread id, say) goes after --: %s -- %s", cmd.CommandPath(), a)
		}
	}
	return ""
}
