package cli

import "testing"

// TestRenameCommands: only a command line's "superstep" is renamed in
// help; the database's file name, schema and format keep theirs.
func TestRenameCommands(t *testing.T) {
	for in, want := range map[string]string{
		"  superstep run research":                            "  myagent run research",
		"superstep runs and debugs":                           "myagent runs and debugs",
		"(superstep\nshow lists)":                             "(myagent\nshow lists)",
		"ssh server superstep export t1 | superstep import -": "ssh server myagent export t1 | myagent import -",
		"$XDG_DATA_HOME/superstep/superstep.db":               "$XDG_DATA_HOME/superstep/superstep.db",
		"?schema=superstep), which":                           "?schema=superstep), which",
		"a database that is not superstep's":                  "a database that is not superstep's",
		"made by an older superstep: its records":             "made by an older superstep: its records",
		"the number of supersteps":                            "the number of supersteps",
		"superstep":                                           "superstep",
	} {
		if got := renameCommands(in, "myagent"); got != want {
			t.Errorf("renameCommands(%q) = %q, want %q", in, got, want)
		}
	}
}
