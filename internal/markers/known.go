package markers

import (
	"errors"
	"fmt"
	"go/token"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"regexp"
	"slices"
	"strings"
)

// Verbs are the client verbs client-gen knows, in its order.
var Verbs = []string{
	"create", "update", "updateStatus", "delete", "deleteCollection",
	"get", "list", "watch", "patch", "apply", "applyStatus",
}

// The markers ctrlgen reads. Their meaning follows code-generator v0.37
// (client-gen, lister-gen, informer-gen, deepcopy-gen, register-gen) and
// controller-tools for the kubebuilder ones.
var (
	GenClient = Define("genclient", TargetType, genclient, "+genclient",
		"generate a typed client, a lister and an informer for the type")
	NonNamespaced = Define("genclient:nonNamespaced", TargetType, Flag, "+genclient:nonNamespaced",
		"the type is cluster-scoped")
	NoStatus = Define("genclient:noStatus", TargetType, Flag, "+genclient:noStatus",
		"no UpdateStatus even though the type has a Status field")
	NoVerbs = Define("genclient:noVerbs", TargetType, Flag, "+genclient:noVerbs",
		"a client without the standard verbs (only +genclient:method ones)")
	Readonly = Define("genclient:readonly", TargetType, Flag, "+genclient:readonly",
		"only get, list and watch")
	OnlyVerbs = Define("genclient:onlyVerbs", TargetType, ListOf(Verbs...), "+genclient:onlyVerbs=<verb>[,<verb>...]",
		"only these verbs")
	SkipVerbs = Define("genclient:skipVerbs", TargetType, ListOf(Verbs...), "+genclient:skipVerbs=<verb>[,<verb>...]",
		"all verbs but these")
	Method = Define("genclient:method", TargetType, method,
		"+genclient:method=<Name>,verb=<verb>[,subresource=<path>][,input=[<pkg>.]<Type>][,result=[<pkg>.]<Type>]",
		"an extra client method, e.g. GetScale on the scale subresource").Repeated()
	ResourceName = Define("resourceName", TargetType, resourceName, "+resourceName=<plural>",
		"the resource name (plural) when it differs from the pluralised kind")

	GroupName = Define("groupName", TargetPackage, groupName, "+groupName=<group>",
		"the package's API group; empty for the core group")
	GroupGoName = Define("groupGoName", TargetPackage, groupGoName, "+groupGoName=<GoName>",
		"the group's Go name when its first DNS label is not a good one")

	DeepCopyPackage = Define("k8s:deepcopy-gen", TargetPackage, deepCopyPackage, "+k8s:deepcopy-gen=package|false[,register[=true|false]]",
		"deep-copy functions for every type of the package, or none")
	DeepCopyType = Define("k8s:deepcopy-gen", TargetType, deepCopyType, "+k8s:deepcopy-gen=true|false",
		"deep-copy functions for this type, or not")
	DeepCopyInterfaces = Define("k8s:deepcopy-gen:interfaces", TargetType, typeNames,
		"+k8s:deepcopy-gen:interfaces=<pkg>.<Interface>[,...]",
		"also generate DeepCopy<Interface>, e.g. DeepCopyObject for k8s.io/apimachinery/pkg/runtime.Object").Repeated()
	DeepCopyNonPointer = Define("k8s:deepcopy-gen:nonpointer-interfaces", TargetType, Bool,
		"+k8s:deepcopy-gen:nonpointer-interfaces=true", "DeepCopy<Interface> methods on the value receiver")
	ClientGen = Define("k8s:client-gen", TargetPackage|TargetType, Bool, "+k8s:client-gen=false",
		"no typed clients")
	ListerGen = Define("k8s:lister-gen", TargetPackage|TargetType, Bool, "+k8s:lister-gen=false",
		"no listers")
	InformerGen = Define("k8s:informer-gen", TargetPackage|TargetType, Bool, "+k8s:informer-gen=false",
		"no informers")
	RegisterGen = Define("k8s:register-gen", TargetPackage, Bool, "+k8s:register-gen=true|false",
		"generate zz_generated.register.go (on by default with +groupName)")

	ObjectRoot = Define("kubebuilder:object:root", TargetType, BoolOrFlag, "+kubebuilder:object:root=true",
		"the type is a root object: it gets DeepCopyObject")
	ObjectGenerate = Define("kubebuilder:object:generate", TargetPackage|TargetType, BoolOrFlag,
		"+kubebuilder:object:generate=true|false", "deep-copy functions (like +k8s:deepcopy-gen)")
	Resource = DefineArgs("kubebuilder:resource", TargetType, resource,
		"+kubebuilder:resource:path=<plural>,scope=Cluster|Namespaced[,shortName=<name>;...][,categories=<name>;...][,singular=<name>]",
		"the resource's names and scope")
	StatusSubresource = Define("kubebuilder:subresource:status", TargetType, Flag,
		"+kubebuilder:subresource:status", "the resource has a status subresource")

	Controller = Define("ctrlgen:controller", TargetType, Flag, "+ctrlgen:controller",
		"generate a controller for the type")
	ControllerOwns = Define("ctrlgen:controller:owns", TargetType, owns,
		"+ctrlgen:controller:owns=<group>/<version>.<Kind>[,adopt=<selector field path>][,metadataOnly]",
		"the controller watches objects of this kind that the type owns; with adopt=, it adopts orphans its label selector matches and releases children it stops matching; with metadataOnly, it caches their metadata alone").Repeated()
	ControllerFinalizer = Define("ctrlgen:controller:finalizer", TargetType, finalizer,
		"+ctrlgen:controller:finalizer=<domain>/<name>", "the controller's finalizer")
	ControllerExpectations = Define("ctrlgen:controller:expectations", TargetType, Flag,
		"+ctrlgen:controller:expectations",
		"Reconcile is put off until the creations and deletions of owned objects it expects are observed")
	ControllerStatusApply = Define("ctrlgen:controller:statusApply", TargetType, Flag,
		"+ctrlgen:controller:statusApply",
		"write status by server-side apply as field manager <controller name>, instead of UpdateStatus: only the status fields Reconcile set; a conflict with another manager's field is an error, never forced (needs the apply configurations and a status subresource)")
	ControllerFilter = Define("ctrlgen:controller:filter", TargetType, controllerFilter,
		"+ctrlgen:controller:filter=<filter>[,<filter>...] (generationChanged, labelsChanged, annotationsChanged, ownStatusWrites)",
		"which updates of the kind are reconciled (adds, deletes and owned objects' events always are): an update passes if any of generationChanged, labelsChanged, annotationsChanged given passes, as controller-runtime's predicate.Or of its GenerationChanged, LabelChanged and AnnotationChangedPredicate; a FilterUpdate(old, obj) method written on the Controller joins them; ownStatusWrites drops the update the controller's own status write made (needs a status the controller writes)")
)

// ControllerFilters are the values of +ctrlgen:controller:filter=.
var ControllerFilters = []string{"generationChanged", "labelsChanged", "annotationsChanged", "ownStatusWrites"}

func controllerFilter(arg string) ([]string, error) {
	list, err := ListOf(ControllerFilters...)(arg)
	if err != nil {
		return nil, err
	}
	for i, f := range list {
		if slices.Contains(list[:i], f) {
			return nil, fmt.Errorf("%s given twice", f)
		}
	}
	return list, nil
}

// All is the registry of every marker ctrlgen reads. "+ctrlgen:…" is its
// own: an unknown marker there is an error. "+genclient…" and
// "+kubebuilder:…" it shares with code-generator and controller-gen, which
// ignore markers they do not know: an unknown marker there is a warning
// (an error in a strict run). Anywhere else, "+k8s:…" included, a marker
// it does not know is a warning only as a near miss of one it knows:
// "+k8s:" is also the namespace of code-generator's generators ctrlgen
// does not replace (openapi-gen, conversion-gen, defaulter-gen,
// prerelease-lifecycle-gen, validation-gen), whose markers most inputs
// carry.
var All = NewRegistry(Namespaces{Owned: []string{"ctrlgen:"}, Shared: []string{"genclient", "kubebuilder:"}}, append([]Def{
	GenClient, NonNamespaced, NoStatus, NoVerbs, Readonly, OnlyVerbs, SkipVerbs, Method, ResourceName,
	GroupName, GroupGoName,
	DeepCopyPackage, DeepCopyType, DeepCopyInterfaces, DeepCopyNonPointer,
	ClientGen, ListerGen, InformerGen, RegisterGen,
	ObjectRoot, ObjectGenerate, Resource, StatusSubresource,
	Controller, ControllerOwns, ControllerFinalizer, ControllerExpectations, ControllerStatusApply, ControllerFilter, KindWebhook,
}, crdDefs()...)...)

func genclient(arg string) (bool, error) {
	if arg != "" {
		return false, errors.New("takes no value: write +genclient to generate a client, remove it to not generate one")
	}
	return true, nil
}

// TypeName names a Go type; Pkg is empty for the marker's own package.
type TypeName struct {
	Pkg, Name string
}

// ParseTypeName parses "Name" or "import/path.Name".
func ParseTypeName(s string) (TypeName, error) {
	i := strings.LastIndex(s, ".")
	t := TypeName{Name: s}
	if i >= 0 {
		t = TypeName{Pkg: s[:i], Name: s[i+1:]}
		if t.Pkg == "" {
			return t, fmt.Errorf("%q has an empty package path", s)
		}
	}
	if !token.IsIdentifier(t.Name) {
		return t, fmt.Errorf("%q does not end in a Go type name", s)
	}
	return t, nil
}

func typeNames(arg string) ([]TypeName, error) {
	v, err := String(arg)
	if err != nil {
		return nil, err
	}
	var out []TypeName
	for _, s := range strings.Split(v, ",") {
		if s == "" {
			continue
		}
		t, err := ParseTypeName(s)
		if err != nil {
			return nil, err
		}
		if t.Pkg == "" {
			return nil, fmt.Errorf("%q needs its package: <import path>.%s", s, t.Name)
		}
		out = append(out, t)
	}
	return out, nil
}

// MethodSpec is a "+genclient:method=" value.
type MethodSpec struct {
	Name, Verb, Subresource string
	// Input and Result are zero when not given.
	Input, Result TypeName
}

var (
	methodVerbs = []string{"create", "update", "get", "list", "patch", "apply", "applyStatus"}
	inputVerbs  = []string{"create", "update", "apply"}
	resultVerbs = []string{"create", "update", "get", "list", "patch", "apply"}
)

func method(arg string) (MethodSpec, error) {
	var m MethodSpec
	v, err := String(arg)
	if err != nil {
		return m, err
	}
	name, rest, _ := strings.Cut(v, ",")
	if !token.IsIdentifier(name) || !token.IsExported(name) {
		return m, fmt.Errorf("method name %q is not an exported Go identifier", name)
	}
	m.Name = name
	var kvs []KeyValue
	if rest != "" {
		if kvs, err = SplitArgs(rest); err != nil {
			return m, err
		}
	}
	seen := map[string]bool{}
	for _, kv := range kvs {
		if seen[kv.Key] {
			return m, fmt.Errorf("%s given twice", kv.Key)
		}
		seen[kv.Key] = true
		if kv.Value == "" {
			return m, fmt.Errorf("empty %s", kv.Key)
		}
		switch kv.Key {
		case "verb":
			if err := member(kv.Value, methodVerbs); err != nil {
				return m, fmt.Errorf("verb: %w", err)
			}
			m.Verb = kv.Value
		case "subresource":
			m.Subresource = kv.Value
		case "input":
			m.Input, err = ParseTypeName(kv.Value)
		case "result":
			m.Result, err = ParseTypeName(kv.Value)
		default:
			err = fmt.Errorf("unknown argument %q (want verb, subresource, input or result)", kv.Key)
		}
		if err != nil {
			return m, err
		}
	}
	switch {
	case m.Verb == "":
		return m, errors.New("verb= is required")
	case m.Input.Name != "" && member(m.Verb, inputVerbs) != nil:
		return m, fmt.Errorf("input= works only with verbs %s", strings.Join(inputVerbs, ", "))
	case m.Result.Name != "" && member(m.Verb, resultVerbs) != nil:
		return m, fmt.Errorf("result= works only with verbs %s", strings.Join(resultVerbs, ", "))
	}
	return m, nil
}

var (
	dnsLabel     = `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
	dnsSubdomain = regexp.MustCompile(`^` + dnsLabel + `(\.` + dnsLabel + `)*$`)
	resourceRE   = regexp.MustCompile(`^` + dnsLabel + `$`)
	versionRE    = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)
	finalizerRE  = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
)

// IsVersion reports whether s is a Kubernetes API version such as v1 or
// v2beta1.
func IsVersion(s string) bool { return versionRE.MatchString(s) }

func resourceName(arg string) (string, error) {
	v, err := String(arg)
	if err == nil && !resourceRE.MatchString(v) {
		err = fmt.Errorf("%q is not a lower-case resource name", v)
	}
	return v, err
}

func groupName(arg string) (string, error) {
	v, err := String(arg)
	if err == nil && v != "" && (len(v) > 253 || !dnsSubdomain.MatchString(v)) {
		err = fmt.Errorf("%q is not a DNS subdomain (or empty, for the core group)", v)
	}
	return v, err
}

func groupGoName(arg string) (string, error) {
	v, err := String(arg)
	if err == nil && !token.IsIdentifier(v) {
		err = fmt.Errorf("%q is not a Go identifier", v)
	}
	return v, err
}

// DeepCopyPackageValue is a package's "+k8s:deepcopy-gen=" value.
type DeepCopyPackageValue struct {
	// Enabled is true for "package", false for "false".
	Enabled bool
	// Register is deepcopy-gen's ",register" parameter: true for a bare
	// "register" or any value but "false". deepcopy-gen v0.37 parses it
	// and then ignores it (it once made the package register its copy
	// functions with a scheme, which apimachinery no longer has), and so
	// does ctrlgen.
	Register bool
}

func deepCopyPackage(arg string) (DeepCopyPackageValue, error) {
	value, register, err := deepCopyValue(arg, []string{"package", "false"})
	return DeepCopyPackageValue{Enabled: value == "package", Register: register}, err
}

func deepCopyType(arg string) (bool, error) {
	value, _, err := deepCopyValue(arg, []string{"true", "false"})
	return value == "true", err
}

// deepCopyValue parses "=<value>[,register[=<v>]]" as deepcopy-gen's
// extractEnabledTag does: the value must be one of values; the only
// parameter is register, bare or with a value, "false" turning it off.
func deepCopyValue(arg string, values []string) (value string, register bool, err error) {
	v, err := String(arg)
	if err != nil {
		return "", false, err
	}
	value, params, hasParams := strings.Cut(v, ",")
	if err := member(value, values); err != nil {
		return "", false, err
	}
	if !hasParams {
		return value, false, nil
	}
	for _, p := range strings.Split(params, ",") {
		key, val, hasVal := strings.Cut(p, "=")
		if key != "register" {
			return "", false, fmt.Errorf("unknown parameter %q (the only one is register, register=true or register=false)", p)
		}
		register = !hasVal || val != "false"
	}
	return value, register, nil
}

// ResourceSpec is a "+kubebuilder:resource" value.
type ResourceSpec struct {
	Path string
	// Scope is "Cluster", "Namespaced" or empty.
	Scope                 string
	ShortName, Categories []string
	Singular              string
}

func resource(arg string) (ResourceSpec, error) {
	var r ResourceSpec
	if !strings.HasPrefix(arg, ":") {
		return r, errors.New("needs arguments: +kubebuilder:resource:key=value,...")
	}
	err := args(arg, nil, func(key string, v *valueScanner) error {
		switch key {
		case "path":
			r.Path = v.str(false)
			if !resourceRE.MatchString(r.Path) {
				return fmt.Errorf("path %q is not a lower-case resource name", r.Path)
			}
		case "scope":
			r.Scope = v.str(false)
			if err := member(r.Scope, []string{"Cluster", "Namespaced"}); err != nil {
				return fmt.Errorf("scope: %w", err)
			}
		case "shortName":
			r.ShortName = v.strings()
		case "categories":
			r.Categories = v.strings()
		case "singular":
			r.Singular = v.str(false)
		default:
			return unknownArg(key, "path", "scope", "shortName", "categories", "singular")
		}
		return nil
	})
	return r, err
}

// Owns is a "+ctrlgen:controller:owns=" value.
type Owns struct {
	schema.GroupVersionKind
	// Adopt is the path of the owner's label selector field, as written
	// ("spec.selector"), when the owner adopts orphans.
	Adopt string
	// MetadataOnly caches the owned objects' metadata alone
	// (metav1.PartialObjectMetadata), through the metadata client.
	MetadataOnly bool
}

func owns(arg string) (Owns, error) {
	gvk, options, hasOptions := strings.Cut(arg, ",")
	var o Owns
	var err error
	if o.GroupVersionKind, err = groupVersionKind(gvk); err != nil || !hasOptions {
		return o, err
	}
	for option := range strings.SplitSeq(options, ",") {
		key, path, hasValue := strings.Cut(option, "=")
		switch {
		case key == "adopt" && hasValue:
			for _, f := range strings.Split(path, ".") {
				if !token.IsIdentifier(f) {
					return o, fmt.Errorf("adopt=%s is not a field path like spec.selector", path)
				}
			}
			o.Adopt = path
		case option == "metadataOnly":
			o.MetadataOnly = true
		default:
			msg := fmt.Sprintf("%q after the kind is neither adopt=<selector field path> nor metadataOnly", option)
			if c := Closest(key, []string{"adopt", "metadataOnly"}); c != "" && c != key {
				msg += fmt.Sprintf("; did you mean %s?", c)
			}
			return o, errors.New(msg)
		}
	}
	return o, nil
}

func groupVersionKind(arg string) (schema.GroupVersionKind, error) {
	var gvk schema.GroupVersionKind
	v, err := String(arg)
	if err != nil {
		return gvk, err
	}
	gv, kind, ok := cutLast(v, ".")
	if !ok || !token.IsIdentifier(kind) || !token.IsExported(kind) {
		return gvk, fmt.Errorf("%q does not end in .<Kind>", v)
	}
	group, version, hasGroup := strings.Cut(gv, "/")
	if !hasGroup {
		group, version = "", gv
	}
	if group == "core" {
		group = ""
	}
	if group != "" && !dnsSubdomain.MatchString(group) {
		return gvk, fmt.Errorf("group %q is not a DNS subdomain", group)
	}
	if !IsVersion(version) {
		return gvk, fmt.Errorf("version %q is not like v1, v1beta1 or v2alpha1", version)
	}
	return schema.GroupVersionKind{Group: group, Version: version, Kind: kind}, nil
}

func finalizer(arg string) (string, error) {
	v, err := String(arg)
	if err != nil {
		return "", err
	}
	domain, name, ok := strings.Cut(v, "/")
	if !ok || !strings.Contains(domain, ".") || !dnsSubdomain.MatchString(domain) || !finalizerRE.MatchString(name) {
		return "", fmt.Errorf("%q is not a domain-qualified name like example.com/cleanup", v)
	}
	return v, nil
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}
