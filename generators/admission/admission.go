// Package admission generates a package per +ctrlgen:webhook kind, next
// to the controllers, that serves its admission webhooks through
// runtime/manager with runtime/webhook/admission:
//
//   - zz_generated.webhook.go, rewritten every run: the paths the
//     manifests name, Register for the manager, and the Init functions
//     that build the handlers, decoding with the kind's generated JSON
//     decoder;
//   - webhook.go, written once for the user to edit: Defaulter and
//     Validator, with the typed methods the handlers call. It is written
//     only while the package declares neither type, and never
//     overwritten or removed.
//
// The webhook generator writes the MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration that call them.
package admission

import (
	"path/filepath"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/generators/tmpl"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

const (
	// WiringFile is rewritten on every run.
	WiringFile = "zz_generated.webhook.go"
	// UserFile is written once, for the user to edit.
	UserFile = "webhook.go"
)

// Generator is the "admission" generator.
type Generator struct{}

func (Generator) Name() string { return "admission" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{} }

// Owns is true for the wiring of a package in the webhooks directory;
// webhook.go is the user's and never removed.
func (Generator) Owns(p *model.Project, path string) bool {
	return filepath.Base(path) == WiringFile && p.WebhooksDir != "" &&
		filepath.Dir(filepath.Dir(path)) == filepath.Clean(p.WebhooksDir)
}

// Generate returns the files of every webhook package.
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	s := tmpl.NewSet(p)
	for _, k := range p.WebhookKinds() {
		w := k.Webhook
		data := tmpl.Data{P: p, G: k.Version.Group, V: k.Version, K: k}
		s.AddFile(gen.NewFile(filepath.Join(w.Dir, WiringFile), w.PkgName, w.Pkg), "webhook/zz_generated.webhook.go.tmpl", data)
		if w.WritesUserFile() {
			f := gen.NewFile(filepath.Join(w.Dir, UserFile), w.PkgName, w.Pkg)
			f.Generated = false
			s.AddFile(f, "webhook/webhook.go.tmpl", data)
		}
	}
	return s.Files()
}
