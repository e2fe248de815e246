// Package crd writes the CustomResourceDefinitions the model holds, one
// file per kind, <CRDDir>/<group>_<plural>.yaml, formatted as controller-gen
// formats them: the object marshalled to JSON, then to YAML with sorted
// keys, after a "---" line.
package crd

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

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

// Generate returns a file per CRD.
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	var files []*gen.File
	for _, c := range p.CRDs {
		content, err := Marshal(c)
		if err != nil {
			return nil, err
		}
		files = append(files, gen.NewText(c.Path, content))
	}
	return files, nil
}

// Marshal returns the manifest of c with ctrlgen's header.
func Marshal(c *model.CRD) ([]byte, error) {
	j, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return nil, err
	}
	return append([]byte(gen.YAMLHeader+"\n---\n"), y...), nil
}
