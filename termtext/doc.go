// Package termtext makes untrusted text safe to print on a terminal.
//
// Thread ids, checkpoint ids, node, channel and graph names come from
// files superstep did not write (exports, scenario files, databases passed
// around); printed raw, an escape sequence in one of them can write the
// clipboard (OSC 52), retitle the terminal or forge lines of output. Every
// command and the debugger print such names through Name, the one rule for
// what a name may show. Values are printed as JSON, which escapes them
// already. The package stands on the standard library alone, below both
// cli and tui.
package termtext
