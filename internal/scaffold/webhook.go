package scaffold

import (
	"errors"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v2"
)

// WebhookOptions are ctrlgen create webhook's.
type WebhookOptions struct {
	Group   string // webapp
	Version string // v1
	Kind    string // Guestbook
	// Defaulting, Validation and Conversion are the webhooks to add:
	// kubebuilder's --defaulting, --programmatic-validation and
	// --conversion.
	Defaulting, Validation, Conversion bool
}

const (
	webhookMarker        = "+ctrlgen:webhook:"
	storageVersionMarker = "+kubebuilder:storageversion"
)

// CreateWebhook returns the files that give a kind of the project in fsys
// webhooks: the +ctrlgen:webhook marker on its type (and, for conversion,
// +kubebuilder:storageversion on it when no version of the kind has it),
// the --webhook-dir flag of cmd/main.go's go:generate line and the
// webhooks' registration there, the webhook resources and the manager's
// webhook patch in config/default, for conversion the CRD's patch in
// config/crd, and PROJECT. The next ctrlgen run writes the webhook code
// and config/webhook. It reads fsys and changes nothing; it refuses when
// nothing is left to change.
func CreateWebhook(fsys fs.FS, o WebhookOptions) ([]File, error) {
	p, err := readProject(fsys)
	if err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	r := p.find(o.Group, o.Version, o.Kind)
	if r == nil {
		return nil, fmt.Errorf("%s/%s, Kind=%s is not in %s: ctrlgen gives webhooks to the kinds of the project; add it first with ctrlgen create api --group %s --version %s --kind %s",
			o.Group, o.Version, o.Kind, ProjectFile, o.Group, o.Version, o.Kind)
	}
	if token.IsKeyword(strings.ToLower(r.Kind)) {
		return nil, fmt.Errorf("%s: its webhook package would be called %s, a Go keyword", r, strings.ToLower(r.Kind))
	}
	c := &webhookChange{p: p, r: r, o: o, fsys: fsys}
	if err := c.types(); err != nil {
		return nil, err
	}
	if err := c.main(); err != nil {
		return nil, err
	}
	if err := c.configDefault(); err != nil {
		return nil, err
	}
	if o.Conversion {
		if err := c.configCRD(); err != nil {
			return nil, err
		}
	}
	if len(c.files) == 0 {
		return nil, fmt.Errorf("nothing to do: %s has %s already, and cmd/main.go and config have what it needs", r, webhookMarker+strings.Join(o.list(), ","))
	}
	w := r.Webhooks
	if w == nil {
		w = &Webhooks{}
	}
	r.Webhooks = &Webhooks{Defaulting: w.Defaulting || o.Defaulting, Validation: w.Validation || o.Validation, Conversion: w.Conversion || o.Conversion}
	project, err := marshalProject(*p)
	if err != nil {
		return nil, err
	}
	return append(c.files, File{Path: ProjectFile, Content: project, Update: true}), nil
}

func (o WebhookOptions) validate() error {
	var errs []string
	if o.Group == "" {
		errs = append(errs, "--group is required, e.g. --group webapp")
	}
	if o.Version == "" {
		errs = append(errs, "--version is required, e.g. --version v1")
	}
	if o.Kind == "" {
		errs = append(errs, "--kind is required, e.g. --kind Guestbook")
	}
	if !o.Defaulting && !o.Validation && !o.Conversion {
		errs = append(errs, "give at least one of --defaulting, --programmatic-validation and --conversion")
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// list is the marker's list of o's webhooks, in kubebuilder's order.
func (o WebhookOptions) list() []string {
	var l []string
	for _, w := range []struct {
		on   bool
		name string
	}{{o.Defaulting, "defaulting"}, {o.Validation, "validation"}, {o.Conversion, "conversion"}} {
		if w.on {
			l = append(l, w.name)
		}
	}
	return l
}

// webhookChange collects create webhook's files.
type webhookChange struct {
	p     *Project
	r     *Resource
	o     WebhookOptions
	fsys  fs.FS
	files []File
}

// types adds the marker to the kind's type and, for conversion, the
// storage version marker to it when no version has one; it refuses what
// the generator would.
func (c *webhookChange) types() error {
	r, o := c.r, c.o
	var versions []Resource
	for _, x := range c.p.Resources {
		if x.Group == r.Group && x.Kind == r.Kind {
			versions = append(versions, x)
		}
	}
	decls := map[string]*typeDecl{}
	var storage []string
	for _, x := range versions {
		d, err := findType(c.fsys, x.apiDir(), x.Kind)
		if err != nil {
			return err
		}
		decls[x.Version] = d
		if d.has(storageVersionMarker) {
			storage = append(storage, x.Version)
		}
		if x.Version == r.Version {
			continue
		}
		if w, _, err := d.webhooks(); err != nil {
			return err
		} else if (w.Defaulting || w.Validation) && (o.Defaulting || o.Validation) {
			return fmt.Errorf("%s has +ctrlgen:webhook with defaulting or validation in %s already: a kind's admission webhooks are served by one package, %s/%s, from one version's marker; add them to that version, --version %s",
				x.String(), d.path, WebhooksDir, strings.ToLower(x.Kind), x.Version)
		}
	}
	d := decls[r.Version]
	var edits []edit
	var changes []string
	if o.Conversion {
		switch {
		case len(versions) < 2:
			return fmt.Errorf("--conversion: %s has no other version in %s to convert to; add one first, e.g. ctrlgen create api --group %s --version %s --kind %s --controller=false",
				r, ProjectFile, r.Group, nextVersion(r.Version), r.Kind)
		case len(storage) > 1:
			return fmt.Errorf("--conversion: versions %s of %s/%s are all marked %s; mark exactly one, the hub the others convert through", strings.Join(storage, ", "), r.Group, r.Kind, storageVersionMarker)
		case len(storage) == 0:
			edits = append(edits, edit{at: d.lineStart, text: d.indent + "// " + storageVersionMarker + "\n"})
			changes = append(changes, storageVersionMarker+" (the hub)")
		}
	}
	have, line, err := d.webhooks()
	if err != nil {
		return err
	}
	want := WebhookOptions{Defaulting: have.Defaulting || o.Defaulting, Validation: have.Validation || o.Validation, Conversion: have.Conversion || o.Conversion}
	if want != have {
		text := "// " + webhookMarker + strings.Join(want.list(), ",")
		if line != nil {
			edits = append(edits, edit{at: line.start, end: line.end, text: text})
		} else {
			edits = append(edits, edit{at: d.lineStart, text: d.indent + text + "\n"})
		}
		changes = append(changes, webhookMarker+strings.Join(want.list(), ","))
	}
	if len(edits) == 0 {
		return nil
	}
	out, err := format.Source(apply(d.src, edits))
	if err != nil {
		return fmt.Errorf("%s: %w", d.path, err)
	}
	c.files = append(c.files, File{Path: d.path, Content: out, Update: true, Change: strings.Join(changes, ", ")})
	return nil
}

// nextVersion is a version after v for an example: v1 → v2.
func nextVersion(v string) string {
	if v == "v1" {
		return "v2"
	}
	return "v1"
}

// main adds the --webhook-dir flag to the go:generate line and the
// webhooks' registration to cmd/main.go.
func (c *webhookChange) main() error {
	src, err := fs.ReadFile(c.fsys, MainFile)
	if err != nil {
		return err
	}
	content := string(src)
	var changes []string
	if updated, change, err := addWebhookDirFlag(content); err != nil {
		return err
	} else if change != "" {
		content = updated
		changes = append(changes, change)
	}
	type registration struct{ alias, pkg, call string }
	var regs []registration
	if c.o.Defaulting || c.o.Validation {
		kind := strings.ToLower(c.r.Kind)
		regs = append(regs, registration{kind + "webhook", c.p.Repo + "/" + WebhooksDir + "/" + kind, kind + "webhook.Register(m)"})
	}
	if c.o.Conversion {
		regs = append(regs, registration{"", c.p.Repo + "/" + WebhooksDir, "webhooks.RegisterConversion(m)"})
	}
	for _, reg := range regs {
		if hasLine(content, reg.call) {
			continue
		}
		imp := strings.TrimSpace(reg.alias + ` "` + reg.pkg + `"`)
		if !strings.Contains(content, `"`+reg.pkg+`"`) {
			b, err := insertBefore(MainFile, []byte(content), importsPoint, imp)
			if err != nil {
				return err
			}
			content = string(b)
		}
		b, err := insertBefore(MainFile, []byte(content), webhooksPoint, reg.call)
		if err != nil {
			return err
		}
		content = string(b)
		changes = append(changes, reg.call)
	}
	if len(changes) == 0 {
		return nil
	}
	out, err := format.Source([]byte(content))
	if err != nil {
		return fmt.Errorf("%s: %w", MainFile, err)
	}
	c.files = append(c.files, File{Path: MainFile, Content: out, Update: true, Change: strings.Join(changes, ", ")})
	return nil
}

// webhookDirFlag is the go:generate line's flag for config/webhook; go
// generate runs it in cmd.
const webhookDirFlag = "--webhook-dir ../" + WebhookDir

// addWebhookDirFlag adds webhookDirFlag to the go:generate line that runs
// ctrlgen, before its packages; change is empty when the line has it.
func addWebhookDirFlag(content string) (updated, change string, err error) {
	lines := strings.SplitAfter(content, "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "//go:generate ") && slices.ContainsFunc(strings.Fields(l), func(f string) bool { return path.Base(f) == "ctrlgen" }) {
			if at >= 0 {
				return "", "", fmt.Errorf("%s has two //go:generate lines running ctrlgen; add %s to the project's by hand", MainFile, webhookDirFlag)
			}
			at = i
		}
	}
	if at < 0 {
		return "", "", fmt.Errorf("%s has no //go:generate line running ctrlgen, to which create webhook adds %s; add it by hand where ctrlgen runs", MainFile, webhookDirFlag)
	}
	fields := strings.Fields(lines[at])
	for i, f := range fields {
		name, value, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if !strings.HasPrefix(f, "-") || name != "webhook-dir" {
			continue
		}
		if !hasValue && i+1 < len(fields) {
			value = fields[i+1]
		}
		if path.Clean(value) != "../"+WebhookDir {
			return "", "", fmt.Errorf("%s's go:generate line has --webhook-dir %s; config/default deploys ../%s, so create webhook needs %s there", MainFile, value, path.Base(WebhookDir), webhookDirFlag)
		}
		return content, "", nil
	}
	// Before the first package: after ctrlgen, skip flags and their values.
	start := slices.IndexFunc(fields, func(f string) bool { return path.Base(f) == "ctrlgen" }) + 1
	insert := len(fields)
	for i := start; i < len(fields); i++ {
		f := fields[i]
		if !strings.HasPrefix(f, "-") {
			insert = i
			break
		}
		if name := strings.TrimLeft(f, "-"); !strings.Contains(name, "=") && !boolFlags[name] {
			i++ // its value
		}
	}
	fields = slices.Insert(fields, insert, webhookDirFlag)
	eol := lines[at][len(strings.TrimRight(lines[at], "\r\n")):]
	lines[at] = strings.Join(fields, " ") + eol
	return strings.Join(lines, ""), webhookDirFlag, nil
}

// boolFlags are ctrlgen's flags that take no separate value.
var boolFlags = map[string]bool{"json-decoders": true, "markers": true, "prefers-protobuf": true, "quiet": true,
	"single-directory": true, "strict-markers": true, "verify": true, "with-applyconfig": true}

// hasLine reports whether a line of content is line, but for spaces around.
// A lineInsert puts line before the insertion point unless the file
// already has the line check.
type lineInsert struct{ point, line, check string }

// insertLines makes the inserts into content, the file name, and adds
// the file to the change when any was made, naming them.
func (c *webhookChange) insertLines(name string, content []byte, inserts []lineInsert) error {
	var changes []string
	for _, u := range inserts {
		if hasLine(string(content), u.check) {
			continue
		}
		var err error
		if content, err = insertBefore(name, content, u.point, u.line); err != nil {
			return err
		}
		changes = append(changes, u.check)
	}
	if len(changes) > 0 {
		c.files = append(c.files, File{Path: name, Content: content, Update: true, Change: strings.Join(changes, ", ")})
	}
	return nil
}

func hasLine(content, line string) bool {
	for _, l := range strings.Split(content, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}

// defaultNames are config/default's namespace, prefix and suffix.
type defaultNames struct {
	Namespace  string `yaml:"namespace"`
	NamePrefix string `yaml:"namePrefix"`
	NameSuffix string `yaml:"nameSuffix"`
}

// configDefault adds config/webhook to config/default's resources, and
// the patches that give the manager its webhook port and the names that
// config/default gives its webhook Service and Secret, and the Service
// the selector of the manager's pods.
func (c *webhookChange) configDefault() error {
	name := path.Join(DefaultDir, "kustomization.yaml")
	src, err := fs.ReadFile(c.fsys, name)
	if err != nil {
		return err
	}
	var names defaultNames
	if err := yaml.Unmarshal(src, &names); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := c.insertLines(name, src, []lineInsert{
		{resourcesPoint, "- ../" + path.Base(WebhookDir), "- ../" + path.Base(WebhookDir)},
		{patchesPoint, "- path: " + managerWebhookPatch + "\n  target:\n    kind: Deployment\n    name: controller-manager", "- path: " + managerWebhookPatch},
		{patchesPoint, "- path: " + webhookServicePatch, "- path: " + webhookServicePatch},
	}); err != nil {
		return err
	}
	data := struct {
		Service, Secret, ProjectName string
	}{
		Service:     names.NamePrefix + "webhook-service" + names.NameSuffix,
		Secret:      names.NamePrefix + "webhook-server-cert" + names.NameSuffix,
		ProjectName: c.p.ProjectName,
	}
	for _, f := range []string{managerWebhookPatch, webhookServicePatch} {
		p := path.Join(DefaultDir, f)
		if _, err := fs.Stat(c.fsys, p); err == nil {
			continue // an earlier create webhook's, or yours
		}
		content, err := render("templates/webhook/"+f+".tmpl", data)
		if err != nil {
			return err
		}
		c.files = append(c.files, File{Path: p, Content: content})
	}
	return nil
}

const (
	managerWebhookPatch = "manager_webhook_patch.yaml"
	webhookServicePatch = "webhook_service_patch.yaml"
	crdKustomizeConfig  = "kustomizeconfig.yaml"
)

// configCRD lists the kind's conversion patch, which ctrlgen writes, in
// config/crd's patches, and adds the kustomize configuration that gives
// the Service it calls config/default's prefix.
func (c *webhookChange) configCRD() error {
	name := path.Join(CRDDir, "kustomization.yaml")
	content, err := fs.ReadFile(c.fsys, name)
	if err != nil {
		return err
	}
	if err := c.insertLines(name, content, []lineInsert{
		{crdPatchesPoint, "- path: patches/webhook_in_" + c.r.Plural + ".yaml", "- path: patches/webhook_in_" + c.r.Plural + ".yaml"},
		{crdConfigurationsPoint, "configurations:\n- " + crdKustomizeConfig, "- " + crdKustomizeConfig},
	}); err != nil {
		return err
	}
	p := path.Join(CRDDir, crdKustomizeConfig)
	if _, err := fs.Stat(c.fsys, p); err != nil {
		content, err := render("templates/webhook/crd_"+crdKustomizeConfig+".tmpl", nil)
		if err != nil {
			return err
		}
		c.files = append(c.files, File{Path: p, Content: content})
	}
	return nil
}

// typeDecl is where a kind's type is declared.
type typeDecl struct {
	path      string
	src       []byte
	lineStart int    // the offset of the line the declaration starts on
	indent    string // that line's
	comments  []commentLine
}

// commentLine is a // comment before the declaration, after the previous
// one: its doc comment and comment groups above it, where markers are
// read.
type commentLine struct {
	start, end int // offsets
	text       string
}

// findType finds the declaration of kind in the API package dir: in
// exactly one of its Go files (not tests, not generated ones).
func findType(fsys fs.FS, dir, kind string) (*typeDecl, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var found []*typeDecl
	for _, e := range entries {
		name := path.Join(dir, e.Name())
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(e.Name(), "zz_generated.") {
			continue
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		pos := typeLine(f, kind)
		if !pos.IsValid() {
			continue
		}
		tf := fset.File(pos)
		d := &typeDecl{path: name, src: src, lineStart: tf.Offset(tf.LineStart(tf.Line(pos)))}
		line := src[d.lineStart:]
		d.indent = string(line[:len(line)-len(strings.TrimLeft(string(line), " \t"))])
		// Comments between the previous declaration (or the package
		// clause) and this one.
		prev := f.Name.End()
		for _, decl := range f.Decls {
			if decl.End() < pos {
				prev = max(prev, decl.End())
			}
		}
		for _, g := range f.Comments {
			if g.Pos() < prev || g.End() > pos {
				continue
			}
			for _, cm := range g.List {
				if strings.HasPrefix(cm.Text, "//") {
					d.comments = append(d.comments, commentLine{start: tf.Offset(cm.Pos()), end: tf.Offset(cm.End()), text: strings.TrimSpace(cm.Text[2:])})
				}
			}
		}
		found = append(found, d)
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no type %s in %s, the kind's API package in %s; declare it, or fix %s", kind, dir, ProjectFile, ProjectFile)
	case 1:
		return found[0], nil
	}
	var files []string
	for _, d := range found {
		files = append(files, d.path)
	}
	return nil, fmt.Errorf("type %s is declared in %s; keep one", kind, strings.Join(files, " and "))
}

// has reports whether the comments before the declaration have marker.
func (d *typeDecl) has(marker string) bool {
	return slices.ContainsFunc(d.comments, func(c commentLine) bool { return c.text == marker })
}

// webhooks reads the +ctrlgen:webhook marker before the declaration, and
// returns its line; none gives nil. Two markers, or one that does not
// parse, are refused: create webhook would not know what to merge.
func (d *typeDecl) webhooks() (WebhookOptions, *commentLine, error) {
	var w WebhookOptions
	var found *commentLine
	for i, c := range d.comments {
		rest, ok := strings.CutPrefix(c.text, webhookMarker)
		if !ok {
			continue
		}
		if found != nil {
			return w, nil, fmt.Errorf("%s: two %s markers on one type; merge them by hand", d.path, webhookMarker)
		}
		found = &d.comments[i]
		for _, f := range strings.Split(rest, ",") {
			switch strings.TrimSpace(f) {
			case "defaulting":
				w.Defaulting = true
			case "validation":
				w.Validation = true
			case "conversion":
				w.Conversion = true
			default:
				return w, nil, fmt.Errorf("%s: %q: %q is none of defaulting, validation, conversion; fix the marker by hand", d.path, c.text, strings.TrimSpace(f))
			}
		}
	}
	return w, found, nil
}

// edit replaces src[at:end] (end 0: nothing) with text.
type edit struct {
	at, end int
	text    string
}

// apply applies edits, which do not overlap, to src.
func apply(src []byte, edits []edit) []byte {
	slices.SortStableFunc(edits, func(a, b edit) int { return b.at - a.at })
	out := slices.Clone(src)
	for _, e := range edits {
		end := max(e.end, e.at)
		out = slices.Concat(out[:e.at], []byte(e.text), out[end:])
	}
	return out
}
