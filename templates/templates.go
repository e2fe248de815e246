// Package templates holds the text/templates of the generated clients,
// listers, informers, controllers and webhooks, one per output file, laid out as the output is:
// clientset/typed/kind.go.tmpl becomes clientset/versioned/typed/<group>/<version>/<kind>.go.
//
// Templates read names from the model (model.Project, Group, Version,
// Kind) and ask the file for import qualifiers; they compute nothing. The
// functions they may call are documented in generators/tmpl.
package templates

import "embed"

// FS holds every template, by its path below this directory.
//
//go:embed clientset controller informers listers webhook
var FS embed.FS
