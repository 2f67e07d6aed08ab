package enginetest_test

import (
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
)

func TestMemorySaver_SaverSuite(t *testing.T) {
	enginetest.SaverSuite(t, func(*testing.T) engine.Saver { return engine.NewMemorySaver() }, nil)
}
