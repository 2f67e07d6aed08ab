//go:build race

package persist_test

// raceEnabled is true when the tests run under the race detector, which
// slows the engine's value codec tenfold; long tests use cheaper values.
const raceEnabled = true
