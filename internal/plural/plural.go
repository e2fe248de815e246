// Package plural turns kinds into resource names the way client-gen does
// (k8s.io/gengo/v2/namer's plural namer): Policy → Policies, Ingress →
// Ingresses, Leaf → Leaves, with exceptions for the irregular ones.
package plural

import "strings"

// DefaultExceptions are the exceptions Kubernetes generates its own
// clients with (hack/update-codegen.sh's PLURAL_EXCEPTIONS).
var DefaultExceptions = map[string]string{"Endpoints": "Endpoints"}

// Of returns the plural of kind, in the kind's case: exceptions[kind]
// when there is one, otherwise by gengo's English rules.
func Of(kind string, exceptions map[string]string) string {
	if p, ok := exceptions[kind]; ok {
		return p
	}
	if len(kind) < 2 {
		return kind
	}
	last, prev := kind[len(kind)-1], kind[len(kind)-2]
	switch {
	case last == 's' || last == 'x' || last == 'z':
		return kind + "es"
	case last == 'y' && isConsonant(prev):
		return kind[:len(kind)-1] + "ies"
	case last == 'h' && (prev == 'c' || prev == 's'):
		return kind + "es"
	case last == 'e' && prev == 'f':
		return kind[:len(kind)-2] + "ves"
	case last == 'f':
		return kind[:len(kind)-1] + "ves"
	}
	return kind + "s"
}

func isConsonant(c byte) bool { return strings.IndexByte("bcdfghjklmnpqrstvwxyz", c) >= 0 }
