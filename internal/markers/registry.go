package markers

import (
	"fmt"
	"go/token"
	"sort"
	"strings"
	"sync"
)

// Registry knows a set of definitions and what to say of a marker it does
// not know, by the namespace its name is in (see Namespaces).
type Registry struct {
	byName map[string][]Def
	names  []string // sorted, for suggestions
	lower  []string // names in lower case, for nearMiss
	owned  []string // the names in owned namespaces, sorted
	ns     Namespaces
	// nearMisses caches nearMiss by name: other tools' markers repeat
	// on every type and field (+k8s:prerelease-lifecycle-gen:introduced,
	// +featureGate), and most are none.
	nearMisses sync.Map
}

// Namespaces sort the markers a registry does not know. Each entry is a
// name prefix: "genclient" (which covers "genclient:…" too) or "ctrlgen:".
type Namespaces struct {
	// Owned are the registry's own: a marker there that it does not know
	// is an error, as no other tool reads it.
	Owned []string
	// Shared are read by other tools too (code-generator, controller-gen),
	// which ignore what they do not know: a marker there that the registry
	// does not know is a warning that names the closest known marker.
	Shared []string
}

// NewRegistry returns a registry of defs. Outside ns's namespaces, a
// marker it does not know is someone else's ("+optional", "+listType"),
// and is reported only when it is a near miss of one it knows
// ("+genclinet", "+groupname").
func NewRegistry(ns Namespaces, defs ...Def) *Registry {
	r := &Registry{byName: map[string][]Def{}, ns: ns}
	for _, d := range defs {
		if _, seen := r.byName[d.Name()]; !seen {
			r.names = append(r.names, d.Name())
		}
		r.byName[d.Name()] = append(r.byName[d.Name()], d)
	}
	sort.Strings(r.names)
	for _, n := range r.names {
		r.lower = append(r.lower, strings.ToLower(n))
		if r.Owns(n) {
			r.owned = append(r.owned, n)
		}
	}
	return r
}

// Defs returns every definition, sorted by name.
func (r *Registry) Defs() []Def {
	var out []Def
	for _, n := range r.names {
		out = append(out, r.byName[n]...)
	}
	return out
}

// Owns reports whether a marker name is in a namespace the registry owns.
func (r *Registry) Owns(name string) bool { return inNamespace(name, r.ns.Owned) }

// shares reports whether a marker name is in a namespace the registry
// reads alongside other tools.
func (r *Registry) shares(name string) bool { return inNamespace(name, r.ns.Shared) }

func inNamespace(name string, prefixes []string) bool {
	for _, o := range prefixes {
		if strings.HasPrefix(name, o) || name == strings.TrimSuffix(o, ":") {
			return true
		}
	}
	return false
}

// Collect matches marker lines found on something of kind t and returns
// the ones it knows, with errors for malformed markers and unknown markers
// in owned namespaces, and warnings for known markers that have no effect
// where they are.
func (r *Registry) Collect(lines []Line, t Target) (Set, []Diagnostic) {
	var s Set
	var diags []Diagnostic
	for _, l := range lines {
		defs, arg := r.match(l.Text)
		name := markerName(l.Text)
		if anywhere(defs) {
			continue
		}
		if defs == nil {
			if d, ok := r.unknown(l.Pos, name); ok {
				diags = append(diags, d)
			}
			continue
		}
		d := forTarget(defs, t)
		if d == nil {
			diags = append(diags, Diagnostic{
				Pos:     l.Pos,
				Msg:     fmt.Sprintf("+%s applies to %s, not %s; ignored here", defs[0].Name(), targets(defs), t),
				Warning: !r.Owns(name),
				Lenient: !r.Owns(name),
			})
			continue
		}
		value, err := d.parseArg(arg)
		if err != nil {
			diags = append(diags, Diagnostic{Pos: l.Pos, Msg: fmt.Sprintf("+%s: %v; expected %s", l.Text, err, d.Syntax())})
			continue
		}
		if prev := s.first(defKey{d.Name(), d.Target()}); prev != nil && !d.Repeatable() && prev.arg != arg {
			diags = append(diags, Diagnostic{Pos: l.Pos, Msg: fmt.Sprintf("+%s given twice with different values (first at %s)", d.Name(), position(prev.pos))})
			continue
		}
		s.add(d, arg, value, l.Pos)
	}
	return s, diags
}

// match finds the definitions with the longest name that text starts
// with, followed by nothing, "=" or (for argument markers) ":".
func (r *Registry) match(text string) ([]Def, string) {
	name := text
	for {
		if defs, ok := r.byName[name]; ok {
			arg := text[len(name):]
			// controller-tools reads "+name:=value" as "+name=value".
			if strings.HasPrefix(arg, ":=") {
				arg = arg[1:]
			}
			if arg == "" || arg[0] == '=' || (arg[0] == ':' && defs[0].takesArgs()) {
				return defs, arg
			}
		}
		i := strings.LastIndexAny(name, ":=")
		if i < 0 {
			return nil, ""
		}
		name = name[:i]
	}
}

// anywhere reports whether defs are of a marker read wherever it is, which
// its reader checks.
func anywhere(defs []Def) bool { return len(defs) > 0 && defs[0].readAnywhere() }

func forTarget(defs []Def, t Target) Def {
	for _, d := range defs {
		if d.Target()&t != 0 {
			return d
		}
	}
	return nil
}

func targets(defs []Def) Target {
	var t Target
	for _, d := range defs {
		t |= d.Target()
	}
	return t
}

// markerName is the marker's name as written: up to the first "=".
func markerName(text string) string {
	name, _, _ := strings.Cut(text, "=")
	return name
}

// unknown reports a marker the registry does not know, by its namespace:
// an error in an owned one, a warning in a shared one, and elsewhere a
// warning only for a near miss of a known marker.
func (r *Registry) unknown(pos token.Position, name string) (Diagnostic, bool) {
	switch {
	case r.Owns(name):
		return Diagnostic{Pos: pos, Msg: r.unknownMsg(name, r.owned)}, true
	case r.shares(name):
		return Diagnostic{Pos: pos, Msg: r.unknownMsg(name, r.names) + "; ignored", Warning: true, Lenient: true}, true
	}
	// Most markers here are other tools' (+k8s:openapi-gen, +enum): only
	// names whose length allows a near miss are compared at all.
	if c := r.nearMiss(name); c != "" {
		return Diagnostic{Pos: pos, Msg: fmt.Sprintf("unknown marker +%s; did you mean %s?; ignored", name, r.byName[c][0].Syntax()),
			Warning: true, Lenient: true}, true
	}
	return Diagnostic{}, false
}

// unknownMsg says that name is unknown, with the closest of candidates
// or else the candidates of its namespace.
func (r *Registry) unknownMsg(name string, candidates []string) string {
	msg := fmt.Sprintf("unknown marker +%s", name)
	if c := r.closest(name, candidates); c != "" {
		return msg + fmt.Sprintf("; did you mean %s?", r.byName[c][0].Syntax())
	}
	var known []string
	for _, n := range candidates {
		if strings.SplitN(n, ":", 2)[0] == strings.SplitN(name, ":", 2)[0] {
			known = append(known, "+"+n)
		}
	}
	if len(known) > 0 {
		msg += "; known ones: " + strings.Join(known, ", ")
	}
	return msg
}

// nearMiss returns the known marker name, or its prefix before arguments,
// is written so close to that it is surely a typo of it, or "": the same
// but for case, or up to two edits apart in a name of some length. Other
// tools' markers ("+k8s:openapi-gen", "+enum") are further away. As in
// closest, a shortened name stands only for a marker that takes
// arguments.
func (r *Registry) nearMiss(name string) string {
	if c, ok := r.nearMisses.Load(name); ok {
		return c.(string)
	}
	c := r.findNearMiss(name)
	r.nearMisses.Store(name, c)
	return c
}

// findNearMiss is nearMiss uncached. Only names whose length allows two
// edits or fewer are compared.
func (r *Registry) findNearMiss(name string) string {
	const most = 2
	best, bestDist := "", most+1
	for prefix := strings.ToLower(name); ; {
		for i, n := range r.lower {
			if len(n) < len(prefix)-most || len(n) > len(prefix)+most || len(prefix) < len(name) && !r.byName[r.names[i]][0].takesArgs() {
				continue
			}
			if d := editDistance(prefix, n); d < bestDist && (d == 0 || len(n) >= 8) {
				best, bestDist = r.names[i], d
			}
		}
		i := strings.LastIndex(prefix, ":")
		if i < 0 {
			return best
		}
		prefix = prefix[:i]
	}
}

// closest returns the candidate nearest to name, or "". The name as
// written may run on into arguments ("kubebuilder:rbca:groups"), so each
// prefix that ends before a colon is tried too.
func (r *Registry) closest(name string, candidates []string) string {
	best, bestDist := "", -1
	for prefix := name; ; {
		// A shortened name stands for a marker whose arguments follow
		// after a colon; a flag marker (+ctrlgen:controller) never has
		// them, so a typo in +ctrlgen:controller:statusApply's last part
		// is not taken for it.
		if c := Closest(prefix, candidates); c != "" && (len(prefix) == len(name) || r.byName[c][0].takesArgs()) {
			if d := editDistance(strings.ToLower(prefix), strings.ToLower(c)); bestDist < 0 || d < bestDist {
				best, bestDist = c, d
			}
		}
		i := strings.LastIndex(prefix, ":")
		if i < 0 || !strings.Contains(prefix[:i], ":") {
			return best
		}
		prefix = prefix[:i]
	}
}

// Closest returns the candidate nearest to s by edit distance, or "" when
// none is near enough to be a plausible typo.
func Closest(s string, candidates []string) string {
	best, bestDist := "", len(s)/3+2
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Detached reports a comment block that no declaration reads: an error
// for an unknown marker in an owned namespace, and one warning for the
// known markers in it, which code-generator would silently ignore.
func (r *Registry) Detached(d Detached) []Diagnostic {
	var diags []Diagnostic
	var known []string
	var where Target
	for _, l := range d.Lines {
		defs, _ := r.match(l.Text)
		switch {
		case anywhere(defs):
		case defs != nil:
			known = append(known, "+"+defs[0].Name())
			where |= targets(defs)
		default:
			if d, ok := r.unknown(l.Pos, markerName(l.Text)); ok {
				diags = append(diags, d)
			}
		}
	}
	if len(known) == 0 {
		return diags
	}
	what := strings.Join(known, ", ")
	msg := fmt.Sprintf("%s not attached to any type or package; ignored", what)
	switch {
	case where&TargetType == 0:
		msg = fmt.Sprintf("%s ignored: package markers are read from doc.go and from comments above the package clause", what)
	case d.Next != nil:
		msg = fmt.Sprintf("%s ignored: %d line(s) above type %s is too far; code-generator reads only the comment block right above a type and the one block above that separated by a single blank line",
			what, d.Gap, d.Next.Name.Name)
	}
	return append(diags, Diagnostic{Pos: d.Lines[0].Pos, Msg: msg, Warning: true})
}
