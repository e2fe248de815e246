package rbac

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/model"
)

// Roles sorts rules into roles and normalizes each as controller-gen v0.23
// does (sigs.k8s.io/controller-tools/pkg/rbac GenerateRoles), so that the
// same markers give the same role.yaml: a role per namespace and role
// name (defaultName when none), ClusterRoles first; in each, rules split
// per resource, "core" read as "", then merged when only their verbs
// differ, then when only their resources, then groups, then URLs differ;
// every list sorted and deduplicated; the rules sorted; "*" standing for
// all of a rule's verbs.
func Roles(rules []*model.RBACRule, defaultName string) []Role {
	type roleKey struct{ namespace, name string }
	byRole := map[roleKey][]*rule{}
	for _, r := range rules {
		key := roleKey{r.Namespace, cmp.Or(r.RoleName, defaultName)}
		split := func(resources []string) {
			byRole[key] = append(byRole[key], &rule{groups: clone(r.Groups), resources: resources,
				names: clone(r.ResourceNames), urls: clone(r.URLs), verbs: clone(r.Verbs)})
		}
		if len(r.Resources) == 0 {
			split(nil)
		}
		for _, res := range r.Resources {
			split([]string{res})
		}
	}
	keys := make([]roleKey, 0, len(byRole))
	for k := range byRole {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b roleKey) int {
		return cmp.Or(strings.Compare(a.namespace, b.namespace), strings.Compare(a.name, b.name))
	})
	var out []Role
	for _, k := range keys {
		if policy := normalize(byRole[k]); len(policy) > 0 {
			out = append(out, Role{Namespace: k.namespace, Name: k.name, Rules: policy})
		}
	}
	return out
}

type rule struct {
	groups, resources, names, urls, verbs []string
}

func clone(s []string) []string { return append([]string(nil), s...) }

// set sorts and deduplicates s; empty is nil.
func set(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func (r *rule) normalize() {
	r.groups, r.resources, r.names, r.urls, r.verbs = set(r.groups), set(r.resources), set(r.names), set(r.urls), set(r.verbs)
}

func join(s []string) string { return strings.Join(s, "&") }

// key is controller-gen's ruleKey: what the rule is about.
func (r *rule) key() string {
	r.normalize()
	return join(r.groups) + " + " + join(r.resources) + " + " + join(r.names) + " + " + join(r.urls)
}

// merge merges the rules that agree on everything but the field field
// picks into the first of them, in input order.
func merge(rules []*rule, field func(*rule) *[]string) []*rule {
	var order []string
	groups := map[string][]*rule{}
	for _, r := range rules {
		r.normalize()
		f := field(r)
		saved := *f
		*f = nil
		k := r.key() + " + " + join(r.verbs)
		*f = saved
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []*rule
	for _, k := range order {
		first := groups[k][0]
		for _, other := range groups[k][1:] {
			*field(first) = append(*field(first), *field(other)...)
		}
		out = append(out, first)
	}
	return collapse(out)
}

// collapse merges the verbs of rules about the same thing (the same
// key), in the first of them. After a merge step two rules can end up
// about the same thing; controller-gen then keeps one of them, by map
// order, and drops the other's verbs.
func collapse(rules []*rule) []*rule {
	byKey := map[string]*rule{}
	var out []*rule
	for _, r := range rules {
		k := r.key()
		if first, ok := byKey[k]; ok {
			first.verbs = set(append(first.verbs, r.verbs...))
			continue
		}
		byKey[k] = r
		out = append(out, r)
	}
	return out
}

// normalize is controller-gen's NormalizeRules.
func normalize(rules []*rule) []PolicyRule {
	for _, r := range rules {
		for i, g := range r.groups {
			if g == "core" {
				r.groups[i] = ""
			}
		}
	}
	merged := collapse(rules)
	merged = merge(merged, func(r *rule) *[]string { return &r.resources })
	merged = merge(merged, func(r *rule) *[]string { return &r.groups })
	merged = merge(merged, func(r *rule) *[]string { return &r.urls })
	slices.SortStableFunc(merged, func(a, b *rule) int { return strings.Compare(a.key(), b.key()) })
	out := make([]PolicyRule, 0, len(merged))
	for _, r := range merged {
		verbs := r.verbs
		if slices.Contains(verbs, "*") {
			verbs = []string{"*"}
		}
		out = append(out, PolicyRule{APIGroups: r.groups, Resources: r.resources, ResourceNames: r.names, NonResourceURLs: r.urls, Verbs: verbs})
	}
	return out
}
