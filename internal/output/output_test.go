package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/genfile"
)

const ours = genfile.Header + "\n\npackage x\n"

func setup(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestComputeAndApply(t *testing.T) {
	dir := setup(t, map[string]string{
		"out/same.go":                 ours,
		"out/changed.go":              ours,
		"out/old/stale.go":            ours,
		"out/handwritten.go":          "package x\n",
		"out/notes.txt":               genfile.Header + "\n",
		"apis/v1/zz_generated.old.go": ours,
		"apis/v1/types.go":            ours,
		"elsewhere/zz_generated.x.go": ours,
	})
	scope := Scope{OutputDir: filepath.Join(dir, "out"), TypeDirs: []string{filepath.Join(dir, "apis/v1")}}
	files := []File{
		{Path: filepath.Join(dir, "out/same.go"), Content: []byte(ours)},
		{Path: filepath.Join(dir, "out/changed.go"), Content: []byte(ours + "// more\n")},
		{Path: filepath.Join(dir, "out/new/new.go"), Content: []byte(ours)},
		{Path: filepath.Join(dir, "apis/v1/zz_generated.deepcopy.go"), Content: []byte(ours)},
	}
	plan, err := Compute(files, scope)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Unchanged != 1 || len(plan.Writes) != 3 {
		t.Errorf("unchanged %d, writes %d", plan.Unchanged, len(plan.Writes))
	}
	wantRemoved := []string{filepath.Join(dir, "apis/v1/zz_generated.old.go"), filepath.Join(dir, "out/old/stale.go")}
	if strings.Join(plan.Removes, " ") != strings.Join(wantRemoved, " ") {
		t.Errorf("removes %v, want %v", plan.Removes, wantRemoved)
	}
	var report bytes.Buffer
	plan.Report(&report, func(p string) string { r, _ := filepath.Rel(dir, p); return r })
	for _, want := range []string{"+++ b/out/changed.go", "+// more", "new: out/new/new.go", "stale: out/old/stale.go"} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, report.String())
		}
	}
	if err := plan.Apply(scope.OutputDir); err != nil {
		t.Fatal(err)
	}
	for name, present := range map[string]bool{
		"out/new/new.go": true, "out/handwritten.go": true, "out/notes.txt": true, "apis/v1/types.go": true,
		"elsewhere/zz_generated.x.go": true, "out/old": false, "apis/v1/zz_generated.old.go": false,
	} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != present {
			t.Errorf("%s: present %v, want %v", name, err == nil, present)
		}
	}
}

func TestComputeRefuses(t *testing.T) {
	dir := setup(t, map[string]string{"out/mine.go": "package x\n", "apis/v1/types.go": "package v1\n"})
	scope := Scope{OutputDir: filepath.Join(dir, "out"), TypeDirs: []string{filepath.Join(dir, "apis/v1")}}
	for _, tc := range []struct {
		files []File
		want  string
	}{
		{[]File{{Path: filepath.Join(dir, "out/mine.go")}}, "is not a generated file; not overwriting it"},
		{[]File{{Path: filepath.Join(dir, "apis/v1/types_gen.go")}}, "is outside the output directory"},
		{[]File{{Path: filepath.Join(dir, "out/a.go")}, {Path: filepath.Join(dir, "out/a.go")}}, "is generated twice"},
	} {
		if _, err := Compute(tc.files, scope); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	once := []File{{Path: filepath.Join(dir, "out/mine.go"), Content: []byte("package y\n"), Once: true}}
	if plan, err := Compute(once, scope); err != nil || !plan.Empty() {
		t.Errorf("a file written once was to be rewritten: %v %+v", err, plan)
	}
}

func TestControllersDir(t *testing.T) {
	dir := setup(t, map[string]string{
		"ctrl/a/zz_generated.controller.go": ours,
		"ctrl/a/reconcile.go":               "package a\n",
		"ctrl/b/zz_generated.controller.go": ours,
		"ctrl/b/zz_generated.mine.go":       "package b\n",
		"ctrl/b/deeper/zz_generated.x.go":   ours,
	})
	scope := Scope{OutputDir: filepath.Join(dir, "out"), PackageDirs: []string{filepath.Join(dir, "ctrl")}}
	files := []File{
		{Path: filepath.Join(dir, "ctrl/a/zz_generated.controller.go"), Content: []byte(ours)},
		{Path: filepath.Join(dir, "ctrl/a/reconcile.go"), Content: []byte("package a // new\n"), Once: true},
		{Path: filepath.Join(dir, "ctrl/c/reconcile.go"), Content: []byte("package c\n"), Once: true},
	}
	plan, err := Compute(files, scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Writes) != 1 || plan.Writes[0].Path != filepath.Join(dir, "ctrl/c/reconcile.go") {
		t.Errorf("writes %+v", plan.Writes)
	}
	// Only generated files of the controller packages themselves go.
	if want := []string{filepath.Join(dir, "ctrl/b/zz_generated.controller.go")}; strings.Join(plan.Removes, " ") != strings.Join(want, " ") {
		t.Errorf("removes %v, want %v", plan.Removes, want)
	}
}

// TestManifestDir: CRDs are written in the manifest directory; a stale
// one that ctrlgen wrote is removed, a hand-written one is neither removed
// nor overwritten, and nothing below the directory is touched.
func TestManifestDir(t *testing.T) {
	yamlOurs := genfile.YAMLHeader + "\n---\nkind: CustomResourceDefinition\n"
	dir := setup(t, map[string]string{
		"config/crd/a_kept.yaml":      yamlOurs,
		"config/crd/a_stale.yaml":     yamlOurs,
		"config/crd/handwritten.yaml": "kind: CustomResourceDefinition\n",
		"config/crd/sub/stale.yaml":   yamlOurs,
	})
	crdDir := filepath.Join(dir, "config/crd")
	scope := Scope{OutputDir: filepath.Join(dir, "out"), ManifestDirs: []string{crdDir}}
	files := []File{
		{Path: filepath.Join(crdDir, "a_kept.yaml"), Content: []byte(yamlOurs)},
		{Path: filepath.Join(crdDir, "b_new.yaml"), Content: []byte(yamlOurs)},
	}
	p, err := Compute(files, scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Writes) != 1 || filepath.Base(p.Writes[0].Path) != "b_new.yaml" {
		t.Errorf("writes = %v", p.Writes)
	}
	if len(p.Removes) != 1 || filepath.Base(p.Removes[0]) != "a_stale.yaml" {
		t.Errorf("removes = %v", p.Removes)
	}
	files = append(files, File{Path: filepath.Join(crdDir, "handwritten.yaml"), Content: []byte(yamlOurs)})
	if _, err := Compute(files, scope); err == nil || !strings.Contains(err.Error(), "handwritten.yaml exists and is not a generated file") {
		t.Errorf("overwriting a hand-written manifest: err = %v", err)
	}
	if _, err := Compute([]File{{Path: filepath.Join(crdDir, "sub", "x.yaml"), Content: []byte(yamlOurs)}}, scope); err == nil {
		t.Error("a file below the manifest directory was allowed")
	}
}
