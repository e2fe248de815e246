package markers

import (
	"errors"
	"fmt"
	"strings"
)

// RBACRule is a "+kubebuilder:rbac" value, controller-tools v0.23's
// rbac.Rule: the arguments with controller-gen's names and value syntax
// (lists as a;b or {a,b}, strings bare or quoted).
type RBACRule struct {
	Groups, Resources, ResourceNames, Verbs, URLs []string
	// Namespace puts the rule in a Role of that namespace instead of the
	// ClusterRole.
	Namespace string
	// RoleName names the role the rule goes to instead of the default.
	RoleName string
}

var rbacArgs = []string{"groups", "resources", "resourceNames", "verbs", "urls", "namespace", "roleName"}

// rbacRule reads a rule as controller-tools does, and refuses what the
// apiserver would refuse in a role (or what grants nothing): no verbs, a
// rule on neither resources nor URLs or on both, resources without
// groups, URLs in a namespaced Role.
func rbacRule(arg string) (RBACRule, error) {
	var r RBACRule
	seen := map[string]bool{}
	err := args(arg, []string{"verbs"}, func(key string, v *valueScanner) error {
		if seen[key] {
			return fmt.Errorf("%s given twice", key)
		}
		seen[key] = true
		switch key {
		case "groups":
			r.Groups = v.strings()
		case "resources":
			r.Resources = v.strings()
		case "resourceNames":
			r.ResourceNames = v.strings()
		case "verbs":
			r.Verbs = v.strings()
		case "urls":
			r.URLs = v.strings()
		case "namespace":
			r.Namespace = v.str(false)
		case "roleName":
			r.RoleName = v.str(false)
		default:
			return unknownArg(key, rbacArgs...)
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	for _, list := range []struct {
		name   string
		values []string
		empty  bool // may hold "" (the core group)
	}{{"verbs", r.Verbs, false}, {"resources", r.Resources, false}, {"resourceNames", r.ResourceNames, false}, {"urls", r.URLs, false}, {"groups", r.Groups, true}} {
		for _, v := range list.values {
			if v == "" && !list.empty || strings.ContainsAny(v, " \t") {
				return r, fmt.Errorf("%s: %q is not a name", list.name, v)
			}
		}
	}
	switch {
	case len(r.Verbs) == 0:
		return r, errors.New("verbs= needs at least one verb")
	case len(r.Resources) == 0 && len(r.URLs) == 0:
		return r, errors.New("needs resources= (with groups=) or urls=")
	case len(r.URLs) > 0 && (len(r.Resources) > 0 || len(r.Groups) > 0 || len(r.ResourceNames) > 0):
		return r, errors.New("urls= cannot be combined with groups=, resources= or resourceNames=: a rule is about resources or about non-resource URLs")
	case len(r.Resources) > 0 && len(r.Groups) == 0:
		return r, errors.New(`resources= needs groups= (groups="" or groups=core for the core group)`)
	case len(r.URLs) > 0 && r.Namespace != "":
		return r, errors.New("urls= cannot go in a namespaced Role (namespace=): non-resource URLs are cluster-wide")
	case r.Namespace != "" && !resourceRE.MatchString(r.Namespace):
		return r, fmt.Errorf("namespace %q is not a namespace name", r.Namespace)
	case strings.ContainsAny(r.RoleName, "/%") || seen["roleName"] && r.RoleName == "":
		return r, fmt.Errorf("roleName %q is not a role name", r.RoleName)
	}
	return r, nil
}
