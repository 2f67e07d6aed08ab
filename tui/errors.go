package tui

import (
	"errors"
	"fmt"

	"github.com/superstep/superstep/engine"
)

// ErrThreadMoved is returned when the debugger would resume a thread's
// head that another process has since moved on (a PostgreSQL database has
// many writers): the answer would go to a checkpoint the screen never
// showed. The concrete error is a *ThreadMovedError.
var ErrThreadMoved = errors.New("the thread was advanced by another process")

// ThreadMovedError names the thread, the head the screen showed and the
// one the database holds now.
type ThreadMovedError struct {
	Thread string // the thread the answer was for
	Shown  string // the checkpoint the screen showed as the head
	Now    string // the thread's latest checkpoint in the database
	Step   int    // Now's step
}

// Error says what moved and how to see it.
func (e *ThreadMovedError) Error() string {
	// Short enough for one status line: what to do comes before the detail.
	return fmt.Sprintf("nothing written: another process moved thread %q on to %s (step %d) since %s was read; T reopens it",
		e.Thread, engine.ShortID(e.Now), e.Step, engine.ShortID(e.Shown))
}

// Is reports whether target is ErrThreadMoved.
func (e *ThreadMovedError) Is(target error) bool { return target == ErrThreadMoved }
