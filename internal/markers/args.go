package markers

import (
	"errors"
	"fmt"
	"strings"
)

// Flag parses a marker that takes no value: "+genclient".
func Flag(arg string) (bool, error) {
	if arg != "" {
		return false, errors.New("takes no value")
	}
	return true, nil
}

// String parses "=<text>"; the text may be empty.
func String(arg string) (string, error) {
	v, ok := strings.CutPrefix(arg, "=")
	if !ok {
		return "", errors.New("needs a value after =")
	}
	return v, nil
}

// Bool parses "=true" or "=false".
func Bool(arg string) (bool, error) {
	switch arg {
	case "=true":
		return true, nil
	case "=false":
		return false, nil
	}
	return false, errors.New("value must be true or false")
}

// BoolOrFlag is Bool that also takes the bare marker as true, as
// controller-tools does.
func BoolOrFlag(arg string) (bool, error) {
	if arg == "" {
		return true, nil
	}
	return Bool(arg)
}

// ListOf parses "=a,b,c" where each element is one of values.
func ListOf(values ...string) Parser[[]string] {
	return func(arg string) ([]string, error) {
		v, err := String(arg)
		if err != nil {
			return nil, err
		}
		if v == "" {
			return nil, errors.New("needs at least one value")
		}
		list := strings.Split(v, ",")
		for _, e := range list {
			if err := member(e, values); err != nil {
				return nil, err
			}
		}
		return list, nil
	}
}

func member(v string, values []string) error {
	for _, a := range values {
		if v == a {
			return nil
		}
	}
	msg := fmt.Sprintf("%q is not one of %s", v, strings.Join(values, ", "))
	if c := Closest(v, values); c != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", c)
	}
	return errors.New(msg)
}

// KeyValue is one "key=value" argument.
type KeyValue struct {
	Key, Value string
}

// SplitArgs splits "k=v,k2=v2" into its arguments. Commas inside braces or
// double quotes do not split, so "shortName={a,b}" is one argument; quotes
// around a value are removed.
func SplitArgs(s string) ([]KeyValue, error) {
	var out []KeyValue
	for _, part := range splitTopLevel(s) {
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("argument %q is not key=value", part)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		out = append(out, KeyValue{k, v})
	}
	return out, nil
}

func splitTopLevel(s string) []string {
	var parts []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}
