// Package redact owns which names hold secrets: the flags, headers and
// URL query parameters whose values superstep leaves out of what it
// records or prints (a lock file's command line, a database's URL in a
// message), and the mask it prints in their place.
package redact

import "strings"

// Mask stands in for a secret.
const Mask = "xxxxx"

// secretWords are what a name that holds a secret contains: --token,
// --api-key, password=, sslpassword=, --header (a header's value is a
// credential as often as not), sig= (a signed URL's signature).
var secretWords = [...]string{"token", "passw", "secret", "key", "auth", "credential", "header", "cookie", "sig"}

// Secret reports whether a flag, header or query parameter so named
// holds a secret. It errs on the side of masking.
func Secret(name string) bool {
	name = strings.ToLower(name)
	for _, word := range secretWords {
		if strings.Contains(name, word) {
			return true
		}
	}
	return false
}
