package markers

import (
	"go/parser"
	"go/token"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"reflect"
	"strings"
	"testing"
)

func lines(texts ...string) []Line {
	var out []Line
	for i, t := range texts {
		out = append(out, Line{Text: t, Pos: token.Position{Filename: "types.go", Line: i + 1}})
	}
	return out
}

func TestCollectTypedValues(t *testing.T) {
	s, diags := All.Collect(lines(
		"genclient",
		"genclient:nonNamespaced",
		"genclient:onlyVerbs=get,list,watch",
		"genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale",
		"genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale",
		"kubebuilder:resource:path=policies,scope=Cluster,shortName={po,pol}",
		"k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object",
		"k8s:openapi-gen=true",
		"listType=atomic",
	), TargetType)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if !GenClient.Has(s) || !NonNamespaced.Has(s) || NoStatus.Has(s) {
		t.Errorf("flags wrong")
	}
	if v, _ := OnlyVerbs.Get(s); !reflect.DeepEqual(v, []string{"get", "list", "watch"}) {
		t.Errorf("onlyVerbs = %v", v)
	}
	ms := Method.All(s)
	if len(ms) != 2 || ms[0].V.Name != "GetScale" || ms[1].V.Input != (TypeName{"k8s.io/api/autoscaling/v1", "Scale"}) || ms[1].Pos.Line != 5 {
		t.Errorf("methods = %+v", ms)
	}
	if r, _ := Resource.Get(s); !reflect.DeepEqual(r, ResourceSpec{Path: "policies", Scope: "Cluster", ShortName: []string{"po", "pol"}}) {
		t.Errorf("resource = %+v", r)
	}
	if in, _ := DeepCopyInterfaces.Get(s); len(in) != 1 || in[0].Name != "Object" {
		t.Errorf("interfaces = %+v", in)
	}
}

func TestCollectDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		line   string
		target Target
		want   string // substring; "" means no diagnostic
		warn   bool
	}{
		{"genclient=true", TargetType, "takes no value", false},
		{"genclient:nonNamspaced", TargetType, "did you mean +genclient:nonNamespaced?; ignored", true},
		{"genclient:onlyVerbs=get,lsit", TargetType, `"lsit" is not one of`, false},
		{"genclient:onlyVerbs=get,lsit", TargetType, "did you mean list?", false},
		{"genclient:method=GetScale", TargetType, "verb= is required", false},
		{"genclient:method=GetScale,verb=watch", TargetType, `verb: "watch" is not one of`, false},
		{"genclient:method=Foo,verb=get,input=Scale", TargetType, "input= works only with verbs create, update, apply", false},
		{"genclient:method=foo,verb=get", TargetType, "not an exported Go identifier", false},
		{"genclientx", TargetType, "unknown marker +genclientx; did you mean +genclient?", true},
		// A marker controller-gen does not know either, which it ignores.
		{"kubebuilder:validation:OneOf=Record,Alert", TargetField, "unknown marker +kubebuilder:validation:OneOf", true},
		{"kubebuilder:objet:root=true", TargetType, "did you mean +kubebuilder:object:root=true?", true},
		// Near misses outside the shared namespaces.
		{"genclinet", TargetType, "unknown marker +genclinet; did you mean +genclient?; ignored", true},
		{"groupname=apps", TargetPackage, "did you mean +groupName=<group>?", true},
		{"k8s:deepcopy-gen:interface=k8s.io/apimachinery/pkg/runtime.Object", TargetType, "did you mean +k8s:deepcopy-gen:interfaces=", true},
		{"ctrlgen:controler", TargetType, "did you mean +ctrlgen:controller?", false},
		{"ctrlgen:controller:stausAply", TargetType, "did you mean +ctrlgen:controller:statusApply?", false},
		{"ctrlgen:controller:owns=apps/v1.deployment", TargetType, "does not end in .<Kind>", false},
		{"ctrlgen:controller:owns=apps/1.Deployment", TargetType, "version \"1\"", false},
		{"ctrlgen:controller:finalizer=cleanup", TargetType, "domain-qualified", false},
		{"ctrlgen:controller:filter=generationChanged,lablesChanged", TargetType, `types.go:1: error: +ctrlgen:controller:filter=generationChanged,lablesChanged: "lablesChanged" is not one of generationChanged, labelsChanged, annotationsChanged, ownStatusWrites (did you mean labelsChanged?)`, false},
		{"ctrlgen:controller:filter=", TargetType, "needs at least one value", false},
		{"ctrlgen:controller:filter=ownStatusWrites,ownStatusWrites", TargetType, "ownStatusWrites given twice", false},
		{"ctrlgen:controller:filtr=ownStatusWrites", TargetType, "did you mean +ctrlgen:controller:filter=", false},
		{"ctrlgen:controller:filter=generationChanged,ownStatusWrites", TargetType, "", false},
		{"genclient", TargetPackage, "+genclient applies to types, not packages", true},
		{"ctrlgen:controller", TargetPackage, "+ctrlgen:controller applies to types, not packages", false},
		{"groupName=apps", TargetType, "+groupName applies to packages, not types; ignored here", true},
		{"groupName=Apps", TargetPackage, "not a DNS subdomain", false},
		{"k8s:deepcopy-gen=package", TargetType, `"package" is not one of true, false`, false},
		{"k8s:deepcopy-gen=package,regsiter", TargetPackage, `unknown parameter "regsiter" (the only one is register`, false},
		{"k8s:deepcopy-gen=package,", TargetPackage, `unknown parameter ""`, false},
		{"k8s:deepcopy-gen=true", TargetPackage, `"true" is not one of package, false`, false},
		{"kubebuilder:resource:scope=Clustr", TargetType, "did you mean Cluster?", false},
		{"kubebuilder:validation:Minimum=1", TargetType, "", false},
		{"optional", TargetField, "", false},
		// Other tools' markers.
		{"k8s:openapi-gen=true", TargetPackage, "", false},
		{"k8s:prerelease-lifecycle-gen:introduced=1.20", TargetType, "", false},
		{"k8s:conversion-gen=k8s.io/kubernetes/pkg/apis/apps", TargetPackage, "", false},
		{"k8s:defaulter-gen=TypeMeta", TargetPackage, "", false},
		{"k8s:protobuf=true", TargetType, "", false},
		{"enum", TargetType, "", false},
		{"listType=atomic", TargetField, "", false},
		{"structType=atomic", TargetType, "", false},
		{"kubebuilder:webhook:path=/mutate-batch-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.example.com,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob.kb.io,admissionReviewVersions=v1", TargetPackage, "", false},
		{"groupName=", TargetPackage, "", false},
		{"k8s:deepcopy-gen=package,register=true", TargetPackage, "", false},
		{"k8s:deepcopy-gen=package,register", TargetPackage, "", false},
		{"k8s:deepcopy-gen=package,register=false", TargetPackage, "", false},
		{"k8s:deepcopy-gen=true,register", TargetType, "", false},
		{"ctrlgen:controller:owns=v1.ConfigMap", TargetType, "", false},
	} {
		_, diags := All.Collect(lines(tc.line), tc.target)
		if tc.want == "" {
			if len(diags) != 0 {
				t.Errorf("+%s: unexpected %v", tc.line, diags)
			}
			continue
		}
		if len(diags) != 1 || !strings.Contains(diags[0].Error(), tc.want) || diags[0].Warning != tc.warn {
			t.Errorf("+%s: got %v, want one %q (warning %v)", tc.line, diags, tc.want, tc.warn)
			continue
		}
		if diags[0].Lenient != tc.warn {
			t.Errorf("+%s: lenient %v, want %v: a warning, and only a warning, is an error in a strict run", tc.line, diags[0].Lenient, tc.warn)
		}
		if !strings.HasPrefix(diags[0].Error(), "types.go:1: ") {
			t.Errorf("+%s: %q lacks file:line", tc.line, diags[0].Error())
		}
	}
}

// TestDeepCopyRegister follows deepcopy-gen's extractEnabledTag: a bare
// "register" and any value but "false" turn the parameter on.
func TestDeepCopyRegister(t *testing.T) {
	for _, tc := range []struct {
		line               string
		enabled, registers bool
	}{
		{"k8s:deepcopy-gen=package", true, false},
		{"k8s:deepcopy-gen=package,register", true, true},
		{"k8s:deepcopy-gen=package,register=true", true, true},
		{"k8s:deepcopy-gen=package,register=false", true, false},
		{"k8s:deepcopy-gen=false", false, false},
	} {
		s, diags := All.Collect(lines(tc.line), TargetPackage)
		v, ok := DeepCopyPackage.Get(s)
		if len(diags) != 0 || !ok || v.Enabled != tc.enabled || v.Register != tc.registers {
			t.Errorf("+%s: got %+v (%v), diagnostics %v; want enabled %v, register %v", tc.line, v, ok, diags, tc.enabled, tc.registers)
		}
	}
}

func TestCollectRepeats(t *testing.T) {
	_, diags := All.Collect(lines("genclient", "genclient"), TargetType)
	if len(diags) != 0 {
		t.Errorf("identical repeat: %v", diags)
	}
	_, diags = All.Collect(lines("resourceName=a", "resourceName=b"), TargetType)
	if len(diags) != 1 || !strings.Contains(diags[0].Msg, "twice with different values (first at types.go:1)") {
		t.Errorf("conflicting repeat: %v", diags)
	}
}

func TestOwns(t *testing.T) {
	for in, want := range map[string]Owns{
		"=apps/v1.Deployment":                       {schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "", false},
		"=core/v1.ConfigMap,adopt=spec.selector":    {schema.GroupVersionKind{Group: "", Version: "v1", Kind: "ConfigMap"}, "spec.selector", false},
		"=crd.example.com/v1.Foo,adopt=Spec.Select": {schema.GroupVersionKind{Group: "crd.example.com", Version: "v1", Kind: "Foo"}, "Spec.Select", false},
		"=core/v1.Secret,metadataOnly":              {schema.GroupVersionKind{Group: "", Version: "v1", Kind: "Secret"}, "", true},
		"=core/v1.Secret,metadataOnly,adopt=a.b":    {schema.GroupVersionKind{Group: "", Version: "v1", Kind: "Secret"}, "a.b", true},
	} {
		got, err := owns(in)
		if err != nil || got != want {
			t.Errorf("%s: got %+v, %v", in, got, err)
		}
	}
	for in, want := range map[string]string{
		"=core/v1.ConfigMap,selector=spec.selector": `"selector=spec.selector" after the kind is neither adopt=<selector field path> nor metadataOnly`,
		"=core/v1.Secret,metadataonly":              `"metadataonly" after the kind is neither adopt=<selector field path> nor metadataOnly; did you mean metadataOnly?`,
		"=core/v1.Secret,":                          `"" after the kind is neither adopt=<selector field path> nor metadataOnly`,
		"=core/v1.ConfigMap,adopt=spec..selector":   "adopt=spec..selector is not a field path like spec.selector",
		"=core/v1.ConfigMap,adopt=":                 "adopt= is not a field path like spec.selector",
	} {
		if _, err := owns(in); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}

func TestGroupVersionKind(t *testing.T) {
	for in, want := range map[string]schema.GroupVersionKind{
		"=apps/v1.Deployment":          {Group: "apps", Version: "v1", Kind: "Deployment"},
		"=v1.ConfigMap":                {Group: "", Version: "v1", Kind: "ConfigMap"},
		"=core/v1.Pod":                 {Group: "", Version: "v1", Kind: "Pod"},
		"=crd.example.com/v1beta1.Foo": {Group: "crd.example.com", Version: "v1beta1", Kind: "Foo"},
	} {
		got, err := groupVersionKind(in)
		if err != nil || got != want {
			t.Errorf("%s: got %+v, %v", in, got, err)
		}
	}
}

const attachSrc = `// Package v1 is an API.
// +groupName=example.com
package v1

// +genclient
// Foo is attached as CommentLines.
type Foo struct {
	// +optional
	Spec string

	// +listType=atomic

	Items []string
}

// +genclient
// +genclient:nonNamespaced

// Bar has a second-closest block.
type Bar struct{}

// +genclient

type Baz struct{}

// +genclient

// +k8s:deepcopy-gen=true

// Qux is too far from its first block.
type Qux struct{}

// +genclient
func notAType() {}

type (
	// +genclient
	Grouped struct{}
)

// +genclient
type OneLine struct{ Meta string }
`

func TestScanAttachment(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "types.go", attachSrc, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := Scan(fset, f, false)
	texts := func(ls []Line) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.Text)
		}
		return out
	}
	if want := []string{"groupName=example.com"}; !reflect.DeepEqual(texts(got.Package), want) {
		t.Errorf("package = %v", texts(got.Package))
	}
	types := map[string][]string{}
	for _, tl := range got.Types {
		types[tl.Spec.Name.Name] = texts(tl.Lines)
	}
	want := map[string][]string{
		"Foo":     {"genclient"},
		"Bar":     {"genclient", "genclient:nonNamespaced"},
		"Baz":     {"genclient"},
		"Qux":     {"k8s:deepcopy-gen=true"},
		"Grouped": {"genclient"},
		"OneLine": {"genclient"},
	}
	if !reflect.DeepEqual(types, want) {
		t.Errorf("types = %v, want %v", types, want)
	}
	fields := map[string][]string{}
	for _, fl := range got.Fields {
		fields[fl.Field.Names[0].Name] = texts(fl.Lines)
	}
	// OneLine's field Meta shares its line with the type: the block above
	// is OneLine's alone.
	if want := map[string][]string{"Spec": {"optional"}}; !reflect.DeepEqual(fields, want) {
		t.Errorf("fields = %v, want %v", fields, want)
	}
	var detached []string
	for _, d := range got.Detached {
		for _, diag := range All.Detached(d) {
			detached = append(detached, diag.Error())
		}
	}
	wantDetached := []string{
		"types.go:11: warning: +listType not attached to any type or package; ignored",
		"types.go:26: warning: +genclient ignored: 4 line(s) above type Qux is too far",
		"types.go:33: warning: +genclient not attached to any type or package; ignored",
	}
	if len(detached) != len(wantDetached) {
		t.Fatalf("detached = %q", detached)
	}
	for i := range wantDetached {
		if !strings.HasPrefix(detached[i], wantDetached[i]) {
			t.Errorf("detached[%d] = %q, want prefix %q", i, detached[i], wantDetached[i])
		}
	}
}

func TestScanDocFileIsAllPackage(t *testing.T) {
	src := "// +k8s:deepcopy-gen=package\n\n// +groupName=apps\npackage v1\n\n// +groupGoName=Apps\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "doc.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := Scan(fset, f, true)
	if len(got.Package) != 3 || len(got.Detached) != 0 {
		t.Errorf("package = %+v, detached = %+v", got.Package, got.Detached)
	}
}

// FuzzMarkers feeds arbitrary comment text through the scanner and every
// registry path: nothing may panic, and every diagnostic has a position.
func FuzzMarkers(f *testing.F) {
	for _, s := range []string{
		"+genclient", "+genclient=true", "+genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale",
		"+kubebuilder:resource:path=foos,scope=Cluster,shortName={a,b}", "+kubebuilder:resource:\"", "+k8s:deepcopy-gen=package,register",
		"+ctrlgen:controller:owns=apps/v1.Deployment", "+ctrlgen:controller:owns=.", "+genclient:onlyVerbs=", "+=", "+", "+:",
		"+genclient:method=,", "+genclient:method=A,verb=get,verb=list", "+groupName=", "+k8s:deepcopy-gen:interfaces=,,.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		src := "package p\n\n/*\n" + strings.ReplaceAll(text, "*/", "") + "\n*/\ntype T struct{}\n"
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "f.go", src, parser.ParseComments)
		if err != nil {
			return
		}
		scanned := Scan(fset, file, false)
		var all []Line
		for _, tl := range scanned.Types {
			all = append(all, tl.Lines...)
		}
		for _, target := range []Target{TargetPackage, TargetType, TargetField} {
			s, diags := All.Collect(all, target)
			for _, d := range diags {
				if d.Pos.Line == 0 {
					t.Errorf("diagnostic without position: %v", d)
				}
			}
			for _, def := range All.Defs() {
				def.parseArg(strings.TrimPrefix(text, "+"))
			}
			Method.All(s)
			Resource.All(s)
			ControllerOwns.All(s)
		}
		for _, d := range scanned.Detached {
			All.Detached(d)
		}
	})
}

func TestUnknownListsKnown(t *testing.T) {
	_, diags := All.Collect(lines("genclient:frobnicate"), TargetType)
	want := "unknown marker +genclient:frobnicate; known ones: +genclient, +genclient:method, +genclient:noStatus"
	if len(diags) != 1 || !strings.Contains(diags[0].Msg, want) {
		t.Errorf("got %v, want %q", diags, want)
	}
}

// TestWebhook reads controller-gen's webhook markers as kubebuilder v3
// scaffolds them, and refuses what controller-tools refuses, at the line.
func TestWebhook(t *testing.T) {
	vals, diags := Webhook.Read(lines(
		// Given twice, the last value counts, as in controller-tools.
		"kubebuilder:webhook:path=/mutate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=true,verbs=delete,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob.kb.io,sideEffects=None,admissionReviewVersions=v1",
		`kubebuilder:webhook:url="https://example.com:8443/validate",mutating=false,failurePolicy=ignore,matchPolicy=Exact,timeoutSeconds=5,groups="",resources=pods,verbs={create,delete},versions=v1,name=vpod.example.com,admissionReviewVersions=v1;v1beta1,servicePort=9443,reinvocationPolicy=Never`,
		"kubebuilder:webhook:path=/x,mutating=true,failurePolicy=fail,groups=g,resources=r,verbs=create,versions=v1,admissionReviewVersions=v1",
		"kubebuilder:webhook:path=/x,url=https://x,mutating=true,failurePolicy=fail,groups=g,resources=r,verbs=create,versions=v1,name=n,admissionReviewVersions=v1",
		"kubebuilder:webhook:path=/x,mutating=yes,failurePolicy=fail,groups=g,resources=r,verbs=create,versions=v1,name=n,admissionReviewVersions=v1",
		"kubebuilder:webhook:paht=/x,mutating=true,failurePolicy=fail,groups=g,resources=r,verbs=create,versions=v1,name=n,admissionReviewVersions=v1",
	))
	if len(vals) != 2 {
		t.Fatalf("read %d webhooks, want 2: %+v", len(vals), vals)
	}
	m, v := vals[0].V, vals[1].V
	if !m.Mutating || m.Path != "/mutate-batch-tutorial-kubebuilder-io-v1-cronjob" || m.SideEffects != "None" ||
		!reflect.DeepEqual(m.Verbs, []string{"create", "update"}) || m.Name != "mcronjob.kb.io" || !reflect.DeepEqual(m.AdmissionReviewVersions, []string{"v1"}) {
		t.Errorf("mutating webhook = %+v", m)
	}
	if v.Mutating || v.URL != "https://example.com:8443/validate" || v.TimeoutSeconds != 5 || v.MatchPolicy != "Exact" ||
		!reflect.DeepEqual(v.Groups, []string{""}) || !reflect.DeepEqual(v.Verbs, []string{"create", "delete"}) ||
		v.ServicePort == nil || *v.ServicePort != 9443 || !reflect.DeepEqual(v.AdmissionReviewVersions, []string{"v1", "v1beta1"}) {
		t.Errorf("validating webhook = %+v", v)
	}
	want := []string{"types.go:3: error: ", "missing argument name",
		"types.go:4: error: ", "needs path= or url=, and not both",
		"types.go:5: error: ", "true or false",
		"types.go:6: error: ", `unknown argument "paht"`}
	if len(diags) != len(want)/2 {
		t.Fatalf("diagnostics %v, want %d", diags, len(want)/2)
	}
	for i, d := range diags {
		if !strings.HasPrefix(d.Error(), want[2*i]) || !strings.Contains(d.Error(), want[2*i+1]) || !strings.Contains(d.Error(), "expected +kubebuilder:webhook:path=<path>|url=<url>") {
			t.Errorf("diagnostic %d = %q, want %q…%q and the expected form", i, d.Error(), want[2*i], want[2*i+1])
		}
	}
}

// TestKindWebhook reads ctrlgen's one-line webhook marker on a kind.
func TestKindWebhook(t *testing.T) {
	vals, diags := KindWebhook.Read(lines(
		"ctrlgen:webhook:defaulting,validation",
		"ctrlgen:webhook:conversion",
		"ctrlgen:webhook:defaulting,validaton",
		"ctrlgen:webhook",
	))
	if len(vals) != 2 || vals[0].V != (KindWebhooks{Defaulting: true, Validation: true}) || vals[1].V != (KindWebhooks{Conversion: true}) {
		t.Errorf("values %+v", vals)
	}
	if len(diags) != 2 || !strings.Contains(diags[0].Error(), "types.go:3: error: ") || !strings.Contains(diags[0].Error(), "did you mean validation?") ||
		!strings.Contains(diags[1].Error(), "types.go:4: error: ") {
		t.Errorf("diagnostics %v", diags)
	}
}
