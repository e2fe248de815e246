package applyconfiguration_test

import (
	"bytes"
	"fmt"
	"go/format"
	"io"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

// TestWrittenAsGofmt: the apply configurations are written formatted
// (gen.File.Formatted), not run through gofmt; over all of k8s.io/api,
// with every shape of field and comment it has, gofmt changes none of
// them.
func TestWrittenAsGofmt(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOWORK", "off")
	dir := testmod.New(t, "", "example.com/k8sapi")
	changes, err := ctrlgen.Plan(ctrlgen.Config{Dir: dir, Patterns: []string{"k8s.io/api/..."}, OutputDir: "generated",
		Generators: []string{"applyconfiguration"}, ExternalApplyConfigurations: map[model.TypeRef]string{}, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range changes.Files {
		if !strings.Contains(f.Path, "/generated/applyconfiguration/") {
			continue
		}
		n++
		want, err := format.Source(f.Content)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if !bytes.Equal(f.Content, want) {
			t.Errorf("%s is not as gofmt writes it:\n%s", f.Path, firstDifference(want, f.Content))
		}
	}
	if n < 900 {
		t.Errorf("%d apply configurations of k8s.io/api, want all (more than 900)", n)
	}
}

func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\ngofmt: %q\nours:  %q", i+1, w[i], g[i])
		}
	}
	return "lengths differ"
}
