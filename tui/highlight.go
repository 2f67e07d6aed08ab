package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// chromaKit is the lexer, style and formatters, built once: building a
// lexer compiles its regular expressions, far too slow to do per frame.
//
// The lexer and style are the debugger's own, made with chroma's API,
// rather than taken from chroma's lexers and styles packages: importing
// those registers every lexer and style chroma has, which left about
// 0.6 MB of live heap in every program that links the debugger (the
// superstep command, a service embedding it, the engine's own example
// tests) for the collector to mark on every cycle.
type chromaKit struct {
	lexer chroma.Lexer
	style *chroma.Style
	mu    sync.Mutex
	fmts  map[termenv.Profile]chroma.Formatter
}

var kit = sync.OnceValue(func() *chromaKit {
	return &chromaKit{lexer: chroma.Coalesce(jsonLineLexer()), style: jsonStyle(), fmts: map[termenv.Profile]chroma.Formatter{}}
})

// jsonLineLexer tokenises one line of indented JSON (see
// highlightJSONLine). A string left open on its line (indented JSON makes
// none) is taken to the end of the line, so every line lexes.
func jsonLineLexer() chroma.Lexer {
	return chroma.MustNewLexer(&chroma.Config{Name: "JSON line", Aliases: []string{"json"}}, func() chroma.Rules {
		str := `"(?:[^"\\]|\\.)*`
		return chroma.Rules{"root": {
			{Pattern: `\s+`, Type: chroma.Whitespace},
			{Pattern: str + `"(?=\s*:)`, Type: chroma.NameTag},
			{Pattern: str + `(?:"|\\?$)`, Type: chroma.LiteralStringDouble},
			{Pattern: `-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`, Type: chroma.LiteralNumber},
			{Pattern: `(?:true|false|null)\b`, Type: chroma.KeywordConstant},
			{Pattern: `[{}\[\],:]`, Type: chroma.Punctuation},
			{Pattern: `.`, Type: chroma.Text},
		}}
	})
}

// formatter picks the chroma formatter for the color profile lipgloss
// renders with, or nil for no color (Ascii: tests and dumb terminals).
func (k *chromaKit) formatter() chroma.Formatter {
	p := lipgloss.ColorProfile()
	k.mu.Lock()
	defer k.mu.Unlock()
	if f, ok := k.fmts[p]; ok {
		return f
	}
	var f chroma.Formatter
	switch p {
	case termenv.TrueColor:
		f = formatters.Get("terminal16m")
	case termenv.ANSI256:
		f = formatters.Get("terminal256")
	case termenv.ANSI:
		f = formatters.Get("terminal8")
	}
	k.fmts[p] = f
	return f
}

// highlightJSONLine colors one line of indented JSON. Indented JSON has no
// token spanning lines (strings cannot hold raw newlines), so lines can be
// colored alone — which lets a viewer color only what is on screen.
func highlightJSONLine(line string) string {
	k := kit()
	f := k.formatter()
	if f == nil || strings.TrimSpace(line) == "" {
		return line
	}
	it, err := k.lexer.Tokenise(nil, line)
	if err != nil {
		return line
	}
	var b bytes.Buffer
	if err := f.Format(&b, k.style, it); err != nil {
		return line
	}
	return strings.TrimRight(b.String(), "\n")
}

// prose is text the debugger wrote for people (why a node runs), which
// the inspector shows as it is: a value of type string is shown quoted,
// as the JSON it is.
type prose string

// prettyLines renders v for the inspector: indented JSON, or the text
// itself for a string with line breaks (a report reads better as text).
// isJSON tells whether the lines should be highlighted.
func prettyLines(v any) (lines []string, isJSON bool) {
	if p, ok := v.(prose); ok {
		return textLines(string(p)), false
	}
	if s, ok := v.(string); ok && strings.Contains(s, "\n") {
		return textLines(s), false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(jsonable(v)); err != nil {
		lines = strings.Split(fmt.Sprintf("%#v", v), "\n")
	} else {
		lines, isJSON = strings.Split(strings.TrimRight(b.String(), "\n"), "\n"), true
	}
	// JSON escapes C0 controls in strings, but not C1 controls,
	// bidirectional overrides or zero-width characters.
	for i, l := range lines {
		lines[i] = termtext.Name(l)
	}
	return lines, isJSON
}

// textLines is text s as the lines it shows: a tab is spaces, a CRLF
// line ends at its LF, and the rest a terminal would act on rather than
// show (escape sequences, bidirectional overrides) is escaped.
func textLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimSuffix(strings.ReplaceAll(l, "\t", "    "), "\r")
		lines[i] = termtext.Name(l)
	}
	return lines
}

// jsonable maps engine values that encoding/json would render poorly.
func jsonable(v any) any {
	switch x := v.(type) {
	case engine.Send:
		return map[string]any{"send": x.Node, "arg": jsonable(x.Arg)}
	case []engine.Send:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = jsonable(s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonable(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonable(e)
		}
		return out
	case error:
		return x.Error()
	}
	return v
}

// preview renders v on one line in about max cells. It stops walking once
// the budget is spent, so a megabyte value costs no more than a small one.
func preview(v any, max int) string {
	var b strings.Builder
	p := previewer{b: &b, left: max}
	p.value(v)
	s := b.String()
	if p.left < 0 {
		s += "…"
	}
	return s
}

type previewer struct {
	b    *strings.Builder
	left int
}

func (p *previewer) write(s string) bool {
	if p.left < 0 {
		return false
	}
	if len(s) > p.left+1 {
		// Over the budget: what fits, on a character's boundary, and no more.
		p.b.WriteString(headBytes(s, p.left+1))
		p.left = -1
		return false
	}
	p.b.WriteString(s)
	p.left -= len(s)
	return p.left >= 0
}

// headBytes is s's longest prefix of at most n bytes that does not split
// a UTF-8 character: a byte cut in the middle of one would be quoted as
// \xe6\x8… or drawn as a replacement character.
func headBytes(s string, n int) string {
	if n >= len(s) {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (p *previewer) value(v any) bool {
	switch x := v.(type) {
	case nil:
		return p.write("null")
	case string:
		x = headBytes(x, p.left+2)
		q := strconv.Quote(x)
		return p.write(q)
	case bool:
		return p.write(strconv.FormatBool(x))
	case float64:
		return p.write(engine.FormatNumber(x))
	case int:
		return p.write(strconv.Itoa(x))
	case int64:
		return p.write(strconv.FormatInt(x, 10))
	case engine.Send:
		if !p.write("Send(" + x.Node + ", ") {
			return false
		}
		if !p.value(x.Arg) {
			return false
		}
		return p.write(")")
	case []any:
		if !p.write("[") {
			return false
		}
		for i, e := range x {
			if i > 0 && !p.write(", ") {
				return false
			}
			if !p.value(e) {
				return false
			}
		}
		return p.write("]")
	case []engine.Send:
		as := make([]any, len(x))
		for i := range x {
			as[i] = x[i]
		}
		return p.value(as)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !p.write("{") {
			return false
		}
		for i, k := range keys {
			if i > 0 && !p.write(", ") {
				return false
			}
			if !p.write(k + ": ") {
				return false
			}
			if !p.value(x[k]) {
				return false
			}
		}
		return p.write("}")
	}
	return p.write(fmt.Sprint(v))
}
