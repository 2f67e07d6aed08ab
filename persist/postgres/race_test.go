//go:build race

package postgres_test

// raceEnabled is true under the race detector, which slows the value codec
// tenfold: long tests use cheaper values and fewer threads.
const raceEnabled = true
