package generators_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/template"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/generators/jsondecode"
	"github.com/ctrlgen/ctrlgen/internal/output"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

var update = flag.Bool("update", false, "rewrite the expected trees under testdata/<case>/out")

// TestGolden runs ctrlgen on each testdata/<case>: in/ is copied into a
// temporary module (which also requires the modules listed in the
// optional file require) and generated with the flags in args; every generated
// file must equal the one in out/, and the module, generated files
// included, must build and vet. With -update, out/ is rewritten through
// the same write path ctrlgen uses.
func TestGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/*/args")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, argsFile := range cases {
		dir := filepath.Dir(argsFile)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			reqs := requires(t, dir)
			tmp := testmod.New(t, filepath.Join(dir, "in"), "example.com/"+filepath.Base(dir), reqs...)
			if len(reqs) > 0 {
				testmod.Download(t, tmp)
			}
			cfg := config(t, argsFile, tmp)
			changes, err := ctrlgen.Plan(cfg)
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(dir, "out")
			if *update {
				rewrite(t, changes.Files, tmp, want)
			}
			compareTree(t, changes.Files, tmp, want)
			if err := changes.Apply(); err != nil {
				t.Fatal(err)
			}
			again, err := ctrlgen.Plan(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !again.Empty() {
				t.Errorf("a second run would change %d files and remove %d", len(again.Writes), len(again.Removes))
			}
			if !testing.Short() {
				cmds := [][]string{{"build", "./..."}, {"vet", "./..."}}
				checked := addJSONDecodeChecks(t, tmp, "example.com/"+filepath.Base(dir))
				t.Logf("JSON decoders compared with apimachinery's in %v", checked)
				if hasTests(t, filepath.Join(dir, "in")) {
					// Tests of the generated code, such as the fake's server-side apply.
					cmds = append(cmds, []string{"test", "-count=1", "./..."})
				} else if len(checked) > 0 {
					cmds = append(cmds, append([]string{"test", "-count=1"}, checked...))
				}
				for _, cmd := range cmds {
					if out, err := testmod.Go(t, tmp, cmd...); err != nil {
						t.Errorf("go %s: %v\n%s", strings.Join(cmd, " "), err, out)
					}
				}
			}
		})
	}
}

// addJSONDecodeChecks writes testdata/jsondecode_check_test.go.tmpl into
// every typed client package of the module at dir that has generated JSON
// decoders, and returns those packages: each compares its decoders with
// apimachinery's serializer on random objects of its kinds.
func addJSONDecodeChecks(t *testing.T, dir, module string) []string {
	tmpl := template.Must(template.ParseFiles(filepath.Join("testdata", "jsondecode_check_test.go.tmpl")))
	var pkgs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != jsondecode.FileName {
			return err
		}
		pkgDir := filepath.Dir(path)
		rel, err := filepath.Rel(dir, pkgDir)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		versioned, _, ok := strings.Cut(rel, "/typed/")
		if !ok {
			return fmt.Errorf("%s is not in a typed client package", path)
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var pkg string
		fmt.Sscanf(string(src[bytes.Index(src, []byte("\npackage "))+1:]), "package %s", &pkg)
		var out bytes.Buffer
		if err := tmpl.Execute(&out, map[string]string{"Package": pkg, "SchemePkg": module + "/" + versioned + "/scheme"}); err != nil {
			return err
		}
		pkgs = append(pkgs, "./"+rel)
		return os.WriteFile(filepath.Join(pkgDir, "zz_jsondecode_check_test.go"), out.Bytes(), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// hasTests reports whether the case's input holds Go tests.
func hasTests(t *testing.T, in string) bool {
	found := false
	err := filepath.WalkDir(in, func(path string, d fs.DirEntry, err error) error {
		found = found || err == nil && strings.HasSuffix(path, "_test.go")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// requires reads a case's require file: modules the case needs that
// ctrlgen does not, "<module> <version>" per line.
func requires(t *testing.T, dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "require"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// config reads a case's command line, as ctrlgen's own.
func config(t *testing.T, argsFile, dir string) ctrlgen.Config {
	data, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ctrlgen.ParseArgs(strings.Fields(string(data)), io.Discard)
	if err != nil {
		t.Fatalf("%s: %v", argsFile, err)
	}
	cfg.Dir, cfg.Stderr = dir, io.Discard
	return cfg
}

// rewrite makes want hold the generated files, through output's plan:
// only changed files are written, and stale generated files removed.
func rewrite(t *testing.T, files []output.File, tmp, want string) {
	abs, err := filepath.Abs(want)
	if err != nil {
		t.Fatal(err)
	}
	var moved []output.File
	for _, f := range files {
		rel, _ := filepath.Rel(tmp, f.Path)
		path := filepath.Join(abs, rel)
		if f.Once {
			// Written once in a user's tree, but the expected copy follows
			// the template.
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
		}
		moved = append(moved, output.File{Path: path, Content: f.Content, Once: f.Once})
	}
	plan, err := output.Compute(moved, output.Scope{OutputDir: abs})
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Apply(abs); err != nil {
		t.Fatal(err)
	}
}

// compareTree checks that the generated files are exactly the files
// under want, byte for byte.
func compareTree(t *testing.T, files []output.File, tmp, want string) {
	t.Helper()
	got := map[string][]byte{}
	for _, f := range files {
		rel, _ := filepath.Rel(tmp, f.Path)
		got[filepath.ToSlash(rel)] = f.Content
	}
	expected := map[string][]byte{}
	filepath.WalkDir(want, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(want, path)
			expected[filepath.ToSlash(rel)], err = os.ReadFile(path)
		}
		return err
	})
	var names []string
	for n := range got {
		names = append(names, n)
	}
	for n := range expected {
		if _, ok := got[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		g, inGot := got[n]
		w, inWant := expected[n]
		switch {
		case !inWant:
			t.Errorf("%s: generated but not expected (run go test ./generators/ -update)", n)
		case !inGot:
			t.Errorf("%s: expected but not generated", n)
		case !bytes.Equal(g, w):
			var diff bytes.Buffer
			output.Diff(&diff, n, w, g)
			t.Errorf("%s differs from the expected file:\n%s", n, diff.String())
		}
	}
}

func TestMain(m *testing.M) {
	// Temporary modules resolve against the module cache and their own
	// go.mod, not a workspace around the checkout.
	os.Setenv("GOFLAGS", "-mod=mod")
	os.Setenv("GOWORK", "off")
	os.Exit(m.Run())
}
