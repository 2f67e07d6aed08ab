package postgres

import (
	"strings"
	"testing"
)

// TestSplitSchema: the schema parameter is superstep's, taken out of the
// URL whatever it holds, and a name the server would not keep as given is
// refused: an empty one and one with ";" reached the server as a setting
// ("unrecognized configuration parameter"), and two names longer than 63
// bytes shared one schema (PostgreSQL cuts them), reading and deleting
// each other's threads. A name holding "$$" ended the quoted body of the
// functions the first migration makes: "syntax error at or near" at
// Open.
func TestSplitSchema(t *testing.T) {
	base := "postgres://u:p@127.0.0.1:5432/db"
	for raw, want := range map[string][2]string{
		base:                                        {base, DefaultSchema},
		base + "?schema=team_a":                     {base, "team_a"},
		base + "?sslmode=disable&schema=b":          {base + "?sslmode=disable", "b"},
		base + "?schema=semi%3Bcolon&x=1":           {base + "?x=1", "semi;colon"},
		base + "?schema=semi;colon":                 {base, "semi;colon"},
		base + "?schema=" + strings.Repeat("a", 63): {base, strings.Repeat("a", 63)},
	} {
		clean, schema, err := splitSchema(raw)
		if err != nil || clean != want[0] || schema != want[1] {
			t.Errorf("splitSchema(%s) = %s, %q, %v; want %s, %q", raw, clean, schema, err, want[0], want[1])
		}
	}
	for _, raw := range []string{
		base + "?schema=",
		base + "?schema=" + strings.Repeat("a", 64),
		base + "?schema=pg_catalog",
		base + "?schema=information_schema",
		base + "?schema=%00x",
		base + "?schema=x%24%24y", // x$$y
	} {
		if _, _, err := splitSchema(raw); err == nil {
			t.Errorf("splitSchema(%s): no error", raw)
		}
	}
}
