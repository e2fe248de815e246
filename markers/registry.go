package markers

import (
	"fmt"
	"sort"
	"strings"
)

// Registry knows a set of definitions and the namespaces it owns: in an
// owned namespace an unknown marker is an error, elsewhere it is someone
// else's marker ("+optional", "+listType") and is left alone.
type Registry struct {
	byName map[string][]Def
	names  []string // sorted, for suggestions
	owned  []string
}

// NewRegistry returns a registry of defs. owned are name prefixes, e.g.
// "genclient" (which owns "genclient:…" too) or "ctrlgen:".
func NewRegistry(owned []string, defs ...Def) *Registry {
	r := &Registry{byName: map[string][]Def{}, owned: owned}
	for _, d := range defs {
		if _, seen := r.byName[d.Name()]; !seen {
			r.names = append(r.names, d.Name())
		}
		r.byName[d.Name()] = append(r.byName[d.Name()], d)
	}
	sort.Strings(r.names)
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
func (r *Registry) Owns(name string) bool {
	for _, o := range r.owned {
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
			if r.Owns(name) {
				diags = append(diags, Diagnostic{Pos: l.Pos, Msg: r.unknown(name)})
			}
			continue
		}
		d := forTarget(defs, t)
		if d == nil {
			diags = append(diags, Diagnostic{
				Pos:     l.Pos,
				Msg:     fmt.Sprintf("+%s applies to %s, not %s; ignored here", defs[0].Name(), targets(defs), t),
				Warning: !r.Owns(name),
			})
			continue
		}
		if err := d.check(arg); err != nil {
			diags = append(diags, Diagnostic{Pos: l.Pos, Msg: fmt.Sprintf("+%s: %v; expected %s", l.Text, err, d.Syntax())})
			continue
		}
		if prev, dup := s.found[defKey{d.Name(), d.Target()}]; dup && !d.Repeatable() && prev[0].arg != arg {
			diags = append(diags, Diagnostic{Pos: l.Pos, Msg: fmt.Sprintf("+%s given twice with different values (first at %s)", d.Name(), position(prev[0].pos))})
			continue
		}
		s.add(d, arg, l.Pos)
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

func (r *Registry) unknown(name string) string {
	msg := fmt.Sprintf("unknown marker +%s", name)
	if s := r.closest(name); s != "" {
		return msg + fmt.Sprintf("; did you mean %s?", r.byName[s][0].Syntax())
	}
	var known []string
	for _, n := range r.names {
		if r.Owns(n) && strings.SplitN(n, ":", 2)[0] == strings.SplitN(name, ":", 2)[0] {
			known = append(known, "+"+n)
		}
	}
	if len(known) > 0 {
		msg += "; known ones: " + strings.Join(known, ", ")
	}
	return msg
}

// closest returns the owned marker name nearest to name, or "". The name
// as written may run on into arguments ("kubebuilder:rbca:groups"), so
// each prefix that ends before a colon is tried too.
func (r *Registry) closest(name string) string {
	var owned []string
	for _, n := range r.names {
		if r.Owns(n) {
			owned = append(owned, n)
		}
	}
	best, bestDist := "", -1
	for prefix := name; ; {
		// A shortened name stands for a marker whose arguments follow
		// after a colon; a flag marker (+ctrlgen:controller) never has
		// them, so a typo in +ctrlgen:controller:statusApply's last part
		// is not taken for it.
		if c := Closest(prefix, owned); c != "" && (len(prefix) == len(name) || r.byName[c][0].takesArgs()) {
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
		case r.Owns(markerName(l.Text)):
			diags = append(diags, Diagnostic{Pos: l.Pos, Msg: r.unknown(markerName(l.Text))})
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
