// Package crd writes the CustomResourceDefinitions the model holds, one
// file per kind, <CRDDir>/<group>_<plural>.yaml, formatted as controller-gen
// formats them: the object as JSON, written as YAML with sorted keys by
// sigs.k8s.io/yaml, after a "---" line.
package crd

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/yamlemit"
)

// Generator is the "crd" generator.
type Generator struct{}

func (Generator) Name() string { return "crd" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{CRDs: true, OnRequest: true} }

// Owns is true for the YAML files directly in the CRD directory.
func (Generator) Owns(p *model.Project, path string) bool {
	return p.CRDDir != "" && filepath.Dir(path) == filepath.Clean(p.CRDDir) && strings.HasSuffix(path, ".yaml")
}

// Generate returns a file per CRD, marshalled in parallel.
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	files := make([]*gen.File, len(p.CRDs))
	errs := make([]error, len(p.CRDs))
	var wg sync.WaitGroup
	for i, c := range p.CRDs {
		wg.Go(func() {
			var content []byte
			content, errs[i] = Marshal(c)
			files[i] = gen.NewText(c.Path, content)
		})
	}
	wg.Wait()
	return files, errors.Join(errs...)
}

// Marshal returns the manifest of c with ctrlgen's header: the YAML
// sigs.k8s.io/yaml writes for it (what controller-gen writes with), its
// JSON object with keys sorted, written straight from the model.
func Marshal(c *model.CRD) ([]byte, error) {
	n, err := crdNode(c)
	if err != nil {
		return nil, err
	}
	return append([]byte(gen.YAMLHeader+"\n---\n"), yamlemit.Marshal(n)...), nil
}
