package persist

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DefaultPath returns where the database lives when no path is given:
// $SUPERSTEP_DB, else $XDG_DATA_HOME/superstep/superstep.db (when that is
// an absolute path, as the XDG spec requires), else
// ~/.local/share/superstep/superstep.db. Open creates the directory.
// It fails only when no home directory can be found.
func DefaultPath() (string, error) {
	if p := os.Getenv("SUPERSTEP_DB"); p != "" {
		return p, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "superstep", "superstep.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("persist: no default database path: %w", err)
	}
	if home == "" {
		return "", errors.New("persist: no default database path: home directory unknown")
	}
	return filepath.Join(home, ".local", "share", "superstep", "superstep.db"), nil
}
