package generator

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlgen/ctrlgen/bench/internal/genrun"
)

// TestGenerateOneGV runs each tool once as the benchmark does on the
// one-gv input and checks that both wrote deep copies, registration,
// clientset (with fake), listers and informers for both kinds — the same
// set of files, doc.go files included, but ctrlgen's JSON decoders — left
// go.mod alone,
// and (once, when the template is made) that the module builds with
// either output. It also checks that a second ctrlgen run writes nothing.
func TestGenerateOneGV(t *testing.T) {
	if testing.Short() {
		t.Skip("builds k8s.io/code-generator and runs it (~15 s)")
	}
	tpl := genrun.TemplateOf(t, oneGV)
	gomod, err := os.ReadFile(filepath.Join(tpl.Dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pkg/apis/samplecontroller/v1alpha1/zz_generated.deepcopy.go",
		"pkg/apis/samplecontroller/v1alpha1/zz_generated.register.go",
		"pkg/generated/clientset/versioned/clientset.go",
		"pkg/generated/clientset/versioned/fake/clientset_generated.go",
		"pkg/generated/clientset/versioned/scheme/register.go",
		"pkg/generated/informers/externalversions/factory.go",
		"pkg/generated/informers/externalversions/generic.go",
	}
	for _, kind := range []string{"foo", "bar"} {
		want = append(want,
			"pkg/generated/clientset/versioned/typed/samplecontroller/v1alpha1/"+kind+".go",
			"pkg/generated/clientset/versioned/typed/samplecontroller/v1alpha1/fake/fake_"+kind+".go",
			"pkg/generated/listers/samplecontroller/v1alpha1/"+kind+".go",
			"pkg/generated/informers/externalversions/samplecontroller/v1alpha1/"+kind+".go",
		)
	}

	// generated runs op on a fresh copy and returns the files it added.
	generated := func(t *testing.T, op func(root string) (genrun.Usage, error)) (root string, files []string) {
		root = tpl.Fresh(t)
		t.Cleanup(func() { os.RemoveAll(root) })
		before := tree(t, root)
		if _, err := op(root); err != nil {
			t.Fatal(err)
		}
		for f := range tree(t, root) {
			if _, ok := before[f]; !ok {
				files = append(files, f)
			}
		}
		slices.Sort(files)
		for _, f := range want {
			if _, found := slices.BinarySearch(files, f); !found {
				t.Errorf("missing %s", f)
			}
		}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(root, f))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(data, []byte("DO NOT EDIT")) {
				t.Errorf("%s: no \"DO NOT EDIT\" line", f)
			}
		}
		if now, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !bytes.Equal(now, gomod) {
			t.Errorf("go.mod changed (%v)", err)
		}
		return root, files
	}

	var ours, theirs []string
	t.Run("impl=ctrlgen", func(t *testing.T) {
		argv := append([]string{genrun.CtrlgenBin(t)}, oneGV.CtrlgenArgs...)
		root, files := generated(t, func(root string) (genrun.Usage, error) { return genrun.Run(root, nil, argv) })
		ours = files
		// The noop benchmark: a second run leaves every file as it was.
		mtimes := tree(t, root)
		time.Sleep(10 * time.Millisecond) // a rewrite would show in the mtime
		if _, err := genrun.Run(root, nil, argv); err != nil {
			t.Fatal(err)
		}
		for f, m := range tree(t, root) {
			if old, ok := mtimes[f]; !ok || !old.Equal(m) {
				t.Errorf("second run touched %s", f)
			}
		}
	})
	t.Run("impl=code-generator", func(t *testing.T) {
		bins := genrun.CodegenBinDir(t)
		_, theirs = generated(t, func(root string) (genrun.Usage, error) { return tpl.CodegenOp(oneGV.Codegen, root, bins) })
	})
	// ctrlgen's one addition: the JSON decoders next to each typed client
	// of custom resources (unexported, so the API is client-gen's).
	const decoders = "pkg/generated/clientset/versioned/typed/samplecontroller/v1alpha1/zz_generated.jsondecode.go"
	if ours != nil {
		if !slices.Contains(ours, decoders) {
			t.Errorf("ctrlgen wrote no %s", decoders)
		}
		ours = slices.DeleteFunc(ours, func(f string) bool { return f == decoders })
	}
	if ours != nil && theirs != nil && !slices.Equal(ours, theirs) {
		t.Errorf("the tools wrote different files:\nctrlgen:        %s\ncode-generator: %s",
			strings.Join(ours, " "), strings.Join(theirs, " "))
	}
}

// tree maps the files under root, relative, to their modification times.
func tree(t *testing.T, root string) map[string]time.Time {
	t.Helper()
	files := map[string]time.Time{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = info.ModTime()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestGenerateK8sAPI makes the k8s-api inputs' templates, which runs both
// tools on all of k8s.io/api and checks they wrote the same files
// (genrun.Input.SameFiles): clients, listers and informers, and, for
// k8s-api-applyconfig, the apply configurations kube_codegen.sh
// --with-applyconfig writes. It then checks that ctrlgen wrote apply
// configurations only when asked to, Scale's among them (apps/v1's
// ApplyScale takes autoscaling/v1's).
func TestGenerateK8sAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds k8s.io/code-generator and runs it on all of k8s.io/api (~1 min)")
	}
	for _, in := range []*genrun.Input{k8sAPI, k8sAPIApply} {
		t.Run(in.Name, func(t *testing.T) {
			tpl := genrun.TemplateOf(t, in)
			root := tpl.Fresh(t)
			defer os.RemoveAll(root)
			if _, err := genrun.Run(root, nil, append([]string{genrun.CtrlgenBin(t)}, in.CtrlgenArgs...)); err != nil {
				t.Fatal(err)
			}
			const scale = "pkg/generated/applyconfiguration/autoscaling/v1/scale.go"
			_, err := os.Stat(filepath.Join(root, scale))
			switch {
			case in.Codegen.ApplyConfig && err != nil:
				t.Errorf("%s: %v", scale, err)
			case !in.Codegen.ApplyConfig && err == nil:
				t.Errorf("%s written without --external-applyconfigurations", scale)
			}
		})
	}
}
