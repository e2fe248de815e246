package builder

import (
	"go/ast"
	"go/token"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// kindWebhook reads "+ctrlgen:webhook:" on a kind: its admission
// webhooks, and whether it converts.
func (b *builder) kindWebhook(m markers.Set, k *model.Kind) *model.KindWebhook {
	v, ok := markers.KindWebhook.Get(m)
	if !ok {
		return nil
	}
	pos := markers.KindWebhook.Pos(m)
	if v.Conversion {
		b.conversions = append(b.conversions, conversionMark{k, pos})
	}
	if !v.Defaulting && !v.Validation {
		return nil
	}
	return &model.KindWebhook{Defaulting: v.Defaulting, Validation: v.Validation, Pos: pos}
}

// webhookKinds fills the webhook fields of every +ctrlgen:webhook kind: its
// package, next to the controllers', its paths and names as kubebuilder
// derives them, and the rules the webhook generator writes for it.
func (b *builder) webhookKinds(p *model.Project) {
	if p.ControllersPkg != "" {
		// Set without webhook kinds too, so that the wiring of a kind that
		// lost its marker is found and removed.
		p.WebhooksDir = filepath.Join(filepath.Dir(p.ControllersDir), "webhooks")
		p.WebhooksPkg = path.Dir(p.ControllersPkg) + "/webhooks"
	}
	kinds := p.WebhookKinds()
	if len(kinds) == 0 {
		return
	}
	if p.ControllersPkg == "" {
		b.errorf(kinds[0].Webhook.Pos, "cannot tell the import path of the webhooks directory next to %s: put it in a Go module, or inside --output-dir", p.ControllersDir)
		return
	}
	packages := map[string]*model.Kind{}
	for _, k := range kinds {
		w := k.Webhook
		w.PkgName = strings.ToLower(k.Name)
		w.Pkg = p.WebhooksPkg + "/" + w.PkgName
		w.Dir = filepath.Join(p.WebhooksDir, w.PkgName)
		if other, dup := packages[w.Pkg]; dup {
			b.errorf(w.Pos, "%s and %s (%s) would share the webhook package %s; keep +ctrlgen:webhook on one version", gvkString(k), gvkString(other), other.Source, w.Pkg)
			continue
		}
		packages[w.Pkg] = k
		group, version := k.Version.Group.Name, k.Version.Name
		suffix := strings.ReplaceAll(group, ".", "-") + "-" + version + "-" + strings.ToLower(k.Name)
		w.DefaultingPath, w.ValidationPath = "/mutate-"+suffix, "/validate-"+suffix
		w.DefaultingName = "m" + strings.ToLower(k.Name) + "-" + version + ".kb.io"
		w.ValidationName = "v" + strings.ToLower(k.Name) + "-" + version + ".kb.io"
		rule := func(mutating bool, path, name string, verbs ...string) *model.WebhookRule {
			return &model.WebhookRule{Mutating: mutating, FailurePolicy: "fail", SideEffects: "None",
				Groups: []string{group}, Resources: []string{k.Plural}, Verbs: verbs, Versions: []string{version},
				Name: name, Path: path, AdmissionReviewVersions: []string{"v1"}, Pos: w.Pos}
		}
		if w.Defaulting {
			b.webhooks = append(b.webhooks, rule(true, w.DefaultingPath, w.DefaultingName, "create", "update"))
		}
		if w.Validation {
			// kubebuilder's scaffold leaves delete out, so that its
			// ValidateDelete is never called until the marker is edited;
			// ctrlgen's Validator is asked about deletes too.
			b.webhooks = append(b.webhooks, rule(false, w.ValidationPath, w.ValidationName, "create", "update", "delete"))
		}
		types, lines, err := declaredTypes(w.Dir)
		if err != nil {
			b.errs = append(b.errs, err)
			continue
		}
		b.anywhereMarkers(lines)
		w.HasDefaulter, w.HasValidator = types["Defaulter"], types["Validator"]
	}
}

// declaredTypes returns the names of the types declared by the
// hand-written Go files in dir, and their marker lines.
func declaredTypes(dir string) (map[string]bool, []markers.Line, error) {
	types := map[string]bool{}
	lines, err := handWritten(dir, func(f *ast.File) {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, s := range gd.Specs {
					types[s.(*ast.TypeSpec).Name.Name] = true
				}
			}
		}
	})
	return types, lines, err
}
