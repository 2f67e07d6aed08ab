package cli

import "testing"

// TestRenameCommands: only a command line's "superstep" is renamed in
// help; the database's file name, schema and format keep theirs, and so
// does the engine's word for one step of a run.
func TestRenameCommands(t *testing.T) {
	commands := []string{"run", "show", "export", "import", "graph", "graphs"}
	for in, want := range map[string]string{
		"  superstep run research":                            "  myagent run research",
		"superstep runs and debugs":                           "myagent runs and debugs",
		"(superstep\nshow lists)":                             "(myagent\nshow lists)",
		"ssh server superstep export t1 | superstep import -": "ssh server myagent export t1 | myagent import -",
		"  superstep                 # the debugger":          "  myagent                 # the debugger",
		"  superstep --db x.db":                               "  myagent --db x.db",
		"(see superstep graphs)":                              "(see myagent graphs)",
		"$XDG_DATA_HOME/superstep/superstep.db":               "$XDG_DATA_HOME/superstep/superstep.db",
		"?schema=superstep), which":                           "?schema=superstep), which",
		"a database that is not superstep's":                  "a database that is not superstep's",
		"made by an older superstep: its records":             "made by an older superstep: its records",
		"the number of supersteps":                            "the number of supersteps",
		"superstep":                                           "superstep",
		"Exit 0 when every superstep matches; at the first":   "Exit 0 when every superstep matches; at the first",
		"A\nreplay with no superstep to compare is an error":  "A\nreplay with no superstep to compare is an error",
		"would be: a superstep of one task then runs it":      "would be: a superstep of one task then runs it",
		"checkpoints every superstep and each reaches":        "checkpoints every superstep and each reaches",
		"before the next superstep starts, so":                "before the next superstep starts, so",
		"the next superstep runs first":                       "the next superstep runs first",
	} {
		if got := renameCommands(in, "myagent", commands); got != want {
			t.Errorf("renameCommands(%q) = %q, want %q", in, got, want)
		}
	}
}
