// Package goname holds the spelling of Go names that the model and the
// generators share.
package goname

import (
	"unicode"
	"unicode/utf8"
)

// UpperFirst returns s with its first letter in upper case: "crddemo" →
// "Crddemo", the exported form of a name.
func UpperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// LowerFirst returns s with its first letter in lower case: "CrddemoV1"
// → "crddemoV1", a local or unexported form of a name.
func LowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}
