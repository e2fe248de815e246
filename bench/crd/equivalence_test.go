package crd

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"
	cgcrd "sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"
	cgloader "sigs.k8s.io/controller-tools/pkg/loader"
	cgmarkers "sigs.k8s.io/controller-tools/pkg/markers"
	"sigs.k8s.io/yaml"

	"github.com/ctrlgen/ctrlgen/bench/internal/cgout"
	ctrlgencrd "github.com/ctrlgen/ctrlgen/generators/crd"
	"github.com/ctrlgen/ctrlgen/internal/crdschema"
	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// Input is a set of API packages both tools read, from Dir.
type Input struct {
	Name     string
	Dir      string
	Patterns []string
}

// ControllerGen runs controller-gen v0.23.0's CRD generator, as
// `controller-gen crd paths=...` does, and returns its files by name.
func ControllerGen(in Input) (map[string][]byte, error) {
	roots, err := cgloader.LoadRootsWithConfig(&packages.Config{Dir: in.Dir}, in.Patterns...)
	if err != nil {
		return nil, err
	}
	gen := cgcrd.Generator{}
	reg := &cgmarkers.Registry{}
	if err := gen.RegisterMarkers(reg); err != nil {
		return nil, err
	}
	out := &cgout.Memory{}
	ctx := &genall.GenerationContext{
		Collector:  &cgmarkers.Collector{Registry: reg},
		Roots:      roots,
		Checker:    &cgloader.TypeChecker{NodeFilters: []cgloader.NodeFilter{gen.CheckFilter()}},
		OutputRule: out,
	}
	if err := gen.Generate(ctx); err != nil {
		return nil, err
	}
	if err := packageErrors(roots); err != nil {
		return nil, err
	}
	return out.Files(), nil
}

// packageErrors are the errors controller-gen's runtime would print and
// fail on: all but type-checking errors, in the roots and what they import.
func packageErrors(roots []*cgloader.Package) error {
	var msgs []string
	seen := map[*cgloader.Package]bool{}
	var visit func(p *cgloader.Package)
	visit = func(p *cgloader.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, e := range p.Errors {
			if e.Kind != packages.TypeError {
				msgs = append(msgs, e.Error())
			}
		}
		for _, imp := range p.Imports() {
			visit(imp)
		}
	}
	for _, r := range roots {
		visit(r)
	}
	if len(msgs) > 0 {
		return fmt.Errorf("controller-gen: %s", strings.Join(msgs, "\n"))
	}
	return nil
}

// Ctrlgen runs ctrlgen's CRD generation on the same packages and returns
// its files by name.
func Ctrlgen(in Input) (map[string][]byte, error) {
	prog, err := loader.Load(loader.Config{Dir: in.Dir, Patterns: in.Patterns})
	if err != nil {
		return nil, err
	}
	graph := typegraph.New(prog, prog.Fset)
	var roots []string
	for _, r := range prog.Roots {
		graph.Add(r)
		roots = append(roots, r.Path)
	}
	crds, err := crdschema.Build(prog, graph, roots, crdschema.Options{Dir: "out"})
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, c := range crds {
		content, err := ctrlgencrd.Marshal(c)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(c.Path)] = content
	}
	return files, nil
}

// Differences compares two sets of CRD files as parsed YAML and returns
// each difference as "file: path: controller-gen … / ctrlgen …". The
// controller-gen.kubebuilder.io/version annotation, which names the tool,
// is not compared.
func Differences(cg, ours map[string][]byte) ([]string, error) {
	var diffs []string
	names := map[string]bool{}
	for n := range cg {
		names[n] = true
	}
	for n := range ours {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		a, inCG := cg[n]
		b, inOurs := ours[n]
		switch {
		case !inCG:
			diffs = append(diffs, n+": only ctrlgen writes it")
			continue
		case !inOurs:
			diffs = append(diffs, n+": only controller-gen writes it")
			continue
		}
		var av, bv any
		if err := yaml.Unmarshal(a, &av); err != nil {
			return nil, fmt.Errorf("controller-gen's %s: %w", n, err)
		}
		if err := yaml.Unmarshal(b, &bv); err != nil {
			return nil, fmt.Errorf("ctrlgen's %s: %w", n, err)
		}
		if md, ok := av.(map[string]any)["metadata"].(map[string]any); ok {
			if ann, ok := md["annotations"].(map[string]any); ok {
				delete(ann, "controller-gen.kubebuilder.io/version")
				if len(ann) == 0 {
					delete(md, "annotations")
				}
			}
		}
		compare(n, "", av, bv, &diffs)
	}
	return diffs, nil
}

func compare(file, path string, a, b any, diffs *[]string) {
	am, aIsMap := a.(map[string]any)
	bm, bIsMap := b.(map[string]any)
	if aIsMap && bIsMap {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			compare(file, path+"."+k, am[k], bm[k], diffs)
		}
		return
	}
	as, aIsSlice := a.([]any)
	bs, bIsSlice := b.([]any)
	if an, bn := names(as), names(bs); aIsSlice && bIsSlice && an != nil && bn != nil && len(as) != len(bs) {
		*diffs = append(*diffs, fmt.Sprintf("%s: %s: controller-gen has %v / ctrlgen has %v", file, path, an, bn))
		return
	}
	if aIsSlice && bIsSlice && len(as) == len(bs) {
		for i := range as {
			compare(file, fmt.Sprintf("%s[%d]", path, i), as[i], bs[i], diffs)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*diffs = append(*diffs, fmt.Sprintf("%s: %s: controller-gen %s / ctrlgen %s", file, path, short(a), short(b)))
	}
}

// names are the "name" values of a list of objects, nil if one has none.
func names(list []any) []string {
	var out []string
	for _, e := range list {
		m, _ := e.(map[string]any)
		n, ok := m["name"].(string)
		if !ok {
			return nil
		}
		out = append(out, n)
	}
	return out
}

func short(v any) string {
	if v == nil {
		return "<absent>"
	}
	b, _ := yaml.Marshal(v)
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.ReplaceAll(s, "\n", "⏎")
}

// tempModule writes a module holding src's files, which requires what
// this module requires, so that both tools resolve its imports from the
// module cache.
func tempModule(t testing.TB, src, module string) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		target := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	bench, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	benchDir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var mod strings.Builder
	mod.WriteString("module " + module + "\n\ngo " + bench.Go.Version + "\n\nrequire (\n")
	for _, r := range bench.Require {
		mod.WriteString("\t" + r.Mod.Path + " " + r.Mod.Version + "\n")
	}
	mod.WriteString(")\n")
	replaces, err := testmod.Replaces(filepath.Join(benchDir, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range replaces {
		mod.WriteString("\nreplace " + r + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
