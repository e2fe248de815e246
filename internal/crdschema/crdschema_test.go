package crdschema

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/model"
)

func ptr[T any](v T) *T { return &v }

func TestStructural(t *testing.T) {
	str := &model.Schema{Type: "string"}
	for _, tc := range []struct {
		name   string
		schema *model.Schema
		want   string // "" for structural
	}{
		{"object", &model.Schema{Type: "object", Properties: map[string]*model.Schema{"a": str}}, ""},
		{"preserve unknown", &model.Schema{Type: "object", Properties: map[string]*model.Schema{"x": {XPreserveUnknownFields: ptr(true)}}}, ""},
		{"int or string", &model.Schema{Type: "object", Properties: map[string]*model.Schema{
			"q": {XIntOrString: true, AnyOf: []*model.Schema{{Type: "integer"}, {Type: "string"}}}}}, ""},
		{"no type", &model.Schema{Type: "object", Properties: map[string]*model.Schema{"x": {}}}, ".x: type is required"},
		{"root", &model.Schema{Type: "string"}, "the root must be of type object"},
		{"array without items", &model.Schema{Type: "object", Properties: map[string]*model.Schema{"l": {Type: "array"}}}, ".l: an array needs items"},
		{"both", &model.Schema{Type: "object", Properties: map[string]*model.Schema{"a": str}, AdditionalProperties: str}, "mutually exclusive"},
		{"type in allOf", &model.Schema{Type: "object", AllOf: []*model.Schema{{Type: "object"}}}, "<root>.allOf[0]: type is forbidden"},
		{"default in anyOf", &model.Schema{Type: "object", Properties: map[string]*model.Schema{"a": str},
			AnyOf: []*model.Schema{{Properties: map[string]*model.Schema{"a": {Default: json.RawMessage(`"x"`)}}}}}, "default and nullable are forbidden"},
		{"undeclared in allOf", &model.Schema{Type: "object", AllOf: []*model.Schema{{Properties: map[string]*model.Schema{"b": {}}}}}, "property b is not declared"},
		{"int-or-string with type", &model.Schema{Type: "object", Properties: map[string]*model.Schema{"q": {Type: "string", XIntOrString: true}}}, "needs an empty type"},
	} {
		errs := structural(tc.schema)
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		got := strings.Join(msgs, "; ")
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: %s", tc.name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMerge follows controller-gen's flattenAllOfInto: a conflicting
// pointer value is kept on both sides in an allOf, CEL rules come src
// first, required is a sorted union, equal min/maxProperties merge.
func TestMerge(t *testing.T) {
	dst := &model.Schema{Type: "integer", Maximum: ptr(10.0), Required: []string{"b"}, MaxProperties: ptr(int64(3)),
		XValidations: []model.ValidationRule{{Rule: "dst"}}, Description: "kept"}
	src := &model.Schema{Type: "integer", Maximum: ptr(5.0), Minimum: ptr(1.0), Required: []string{"a", "b"}, MaxProperties: ptr(int64(3)),
		XValidations: []model.ValidationRule{{Rule: "src"}}, Description: "dropped"}
	var errs []error
	mergeInto(dst, src, &errs)
	got, _ := json.Marshal(dst)
	want := `{"description":"kept","type":"integer","minimum":1,"maxProperties":3,"required":["a","b"],"allOf":[{"maximum":10},{"maximum":5}],"x-kubernetes-validations":[{"rule":"src"},{"rule":"dst"}]}`
	if string(got) != want || len(errs) != 0 {
		t.Errorf("merged = %s (%v)\nwant       %s", got, errs, want)
	}
	mergeInto(dst, &model.Schema{Type: "string"}, &errs)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "conflicting types") {
		t.Errorf("errs = %v", errs)
	}
}

func TestExtractDoc(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"// A is\n// two lines.\n// +optional\n", "A is\ntwo lines."},
		{"// A.\n//\n// B.\n", "A.\n\nB."},
		{"// A.\n// TODO: later\n// B.\n// ---\n// hidden\n", "A.\nB."},
		{"// ```\n// --- kept in code\n// ```\n", "```\n--- kept in code\n```"},
	} {
		if got := extractDoc(commentGroup(tc.src)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.src, got, tc.want)
		}
	}
}

func commentGroup(src string) *ast.CommentGroup {
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package p\n\n"+src+"type T int\n", parser.ParseComments)
	if err != nil {
		panic(err)
	}
	return f.Decls[0].(*ast.GenDecl).Doc
}
