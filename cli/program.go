package cli

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// The command line speaks with the name of the program the user runs: the
// superstep binary's is "superstep", a program of the user's own that hands
// its arguments to Main (README's "Debugging your own graph") has its own.
// App.Name owns it for one invocation; Run puts it, with the --db the
// command was given, in the command's context, so that messages built
// below a command (a thread not found, an unknown namespace) can name a
// command to run on the same database (hintLine).

// defaultProgram is the superstep binary's name, App.Name's default.
const defaultProgram = "superstep"

// programName is the name the user typed to run the program at path
// (os.Args[0]): its base name without a Windows .exe; the default when
// there is none.
func programName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".exe")
	if name == "" || name == "." || name == string(filepath.Separator) {
		return defaultProgram
	}
	return name
}

// invocation is what a hint's command line repeats of the command the
// user ran: the program and the --db it was given ("" for the default).
type invocation struct {
	program, db string
}

type invocationKey struct{}

// withInvocation is ctx carrying the running program's name and --db.
func withInvocation(ctx context.Context, program, db string) context.Context {
	return context.WithValue(ctx, invocationKey{}, invocation{program: program, db: db})
}

func invocationOf(ctx context.Context) invocation {
	inv, _ := ctx.Value(invocationKey{}).(invocation)
	if inv.program == "" {
		inv.program = defaultProgram
	}
	return inv
}

// program is the running program's name, as commands to run in hints and
// errors name it.
func program(ctx context.Context) string { return invocationOf(ctx).program }

// hintLine is a command line for a hint to tell the user to run: the
// running program's command with words, on the database the command that
// gives the hint read (commandLine).
func hintLine(ctx context.Context, command string, words ...string) string {
	inv := invocationOf(ctx)
	return commandLine(inv.program, inv.db, command, words...)
}

// renameHelp makes the help of root and its commands (descriptions and
// examples; flags that name a command are given the name) name the
// program name where it names a superstep command: the texts are written
// as the superstep binary's, and a command line there is "superstep" at
// the start of a line or after a space, a parenthesis, a pipe or a quote,
// followed by one of root's commands, a flag or a comment (or, at the very
// start of a text, by a space: the root's own description). The word
// "superstep" of the engine's vocabulary ("every superstep matches") is
// left alone. Only help texts are renamed here, never a message that holds
// the user's data.
func renameHelp(root *cobra.Command, name string) {
	if name == defaultProgram {
		return
	}
	var commands []string
	for _, c := range root.Commands() {
		commands = append(commands, c.Name())
	}
	for _, c := range append(root.Commands(), root) {
		c.Short = renameCommands(c.Short, name, commands)
		c.Long = renameCommands(c.Long, name, commands)
		c.Example = renameCommands(c.Example, name, commands)
	}
}

// renameCommands replaces each "superstep" that starts a command line in
// text (see renameHelp) with name; commands are the names a command line
// may go on with.
func renameCommands(text, name string, commands []string) string {
	var b strings.Builder
	start := true
	for {
		i := strings.Index(text, defaultProgram)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := i + len(defaultProgram)
		before := i == 0 || strings.ContainsRune(" \t\n(|`'\"", rune(text[i-1]))
		after := end < len(text) && strings.ContainsRune(" \n", rune(text[end])) &&
			(start && i == 0 || startsCommand(text[end:], commands))
		b.WriteString(text[:i])
		if before && after {
			b.WriteString(name)
		} else {
			b.WriteString(defaultProgram)
		}
		text, start = text[end:], false
	}
}

// startsCommand reports whether rest, what follows "superstep" and a
// space, goes on as a command line: a command's name, a flag or a comment.
func startsCommand(rest string, commands []string) bool {
	rest = strings.TrimLeft(rest, " \n")
	if strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "#") {
		return true
	}
	for _, c := range commands {
		if after, ok := strings.CutPrefix(rest, c); ok && (after == "" || !isWordByte(after[0])) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// commandLine is a command for a hint to tell the user to run: prog, the
// command name and its argument (the first of words), --db when the
// command that gives the hint was given one (db, as typed), so that
// pasting it reads the same database, and the rest of words. Each word is
// already a shell word (shellWord) or a placeholder such as ANSWER.
func commandLine(prog, db, command string, words ...string) string {
	line := []string{prog, command}
	if len(words) > 0 {
		line, words = append(line, words[0]), words[1:]
	}
	if db != "" {
		line = append(line, "--db", shellWord(displayDB(db)))
	}
	return strings.Join(append(line, words...), " ")
}
