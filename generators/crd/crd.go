// Package crd writes the CustomResourceDefinitions the model holds, one
// file per kind, <CRDDir>/<group>_<plural>.yaml, formatted as controller-gen
// formats them: the object marshalled to JSON, then to YAML with sorted
// keys, after a "---" line.
package crd

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"

	"go.yaml.in/yaml/v2"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/model"
)

// Generator is the "crd" generator.
type Generator struct{}

func (Generator) Name() string { return "crd" }

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

// Marshal returns the manifest of c with ctrlgen's header. The YAML is
// sigs.k8s.io/yaml's (what controller-gen writes with): the JSON object,
// keys sorted; decoding the JSON here instead of parsing it as YAML, as
// yaml.JSONToYAML does, halves the time.
func Marshal(c *model.CRD) ([]byte, error) {
	j, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var obj any
	if err := d.Decode(&obj); err != nil {
		return nil, err
	}
	y, err := yaml.Marshal(numbers(obj))
	if err != nil {
		return nil, err
	}
	return append([]byte(gen.YAMLHeader+"\n---\n"), y...), nil
}

// numbers turns the JSON numbers of a decoded value into the int64 or
// float64 that YAML would have read them as.
func numbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	}
	return v
}
