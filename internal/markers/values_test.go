package markers

import (
	"encoding/json"
	"testing"
)

// TestValueSyntax: values read as controller-tools v0.23 reads them (its
// guessType and parse); bench/crd checks the same against controller-gen
// on whole inputs.
func TestValueSyntax(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"=1", `1`},
		{"=-3", `-3`},
		{"=1.5", `1.5`},
		{"=true", `true`},
		{"=abc", `"abc"`},
		{`="a,b"`, `"a,b"`},
		{"=`x;y`", `"x;y"`},
		{"=100Mi", `"100Mi"`},
		{"=2024-01-15", `"2024-01-15"`},
		{"=x;y", `["x","y"]`},
		{"={x,y}", `["x","y"]`},
		{"={1, 2}", `[1,2]`},
		{"={}", `{}`},
		{`={a: 1, b: "two", c: {x, y}, d: {e: 1.5}}`, `{"a":1,"b":"two","c":["x","y"],"d":{"e":1.5}}`},
		{"=two words", `"two words"`},
	} {
		v, err := anyValue(tc.arg)
		if err != nil {
			t.Errorf("%s: %v", tc.arg, err)
			continue
		}
		got, _ := json.Marshal(v)
		if string(got) != tc.want {
			t.Errorf("%s = %s, want %s", tc.arg, got, tc.want)
		}
	}
	for _, bad := range []string{"", "={a: 1", `="open`, "={x,y}z"} {
		if v, err := anyValue(bad); err == nil {
			t.Errorf("%q = %v, want an error", bad, v)
		}
	}
}

func TestEnumAndArgs(t *testing.T) {
	e, err := anySlice(`=a;b;"c"`)
	if got, _ := json.Marshal(e); err != nil || string(got) != `["a","b","c"]` {
		t.Errorf("enum = %s, %v", got, err)
	}
	r, err := xValidation(`:message="Must have port",rule="(size(self.group) == 0 && self.kind == 'Service') ? has(self.port) : true",reason=FieldValueForbidden`)
	if err != nil || r.Message != "Must have port" || r.Rule != "(size(self.group) == 0 && self.kind == 'Service') ? has(self.port) : true" || r.Reason != "FieldValueForbidden" {
		t.Errorf("XValidation = %+v, %v", r, err)
	}
	if _, err := xValidation(`:rule="x",reason=Nope`); err == nil {
		t.Error("an unknown reason was accepted")
	}
	c, err := printColumn(":name=\"Ready\",type=string,JSONPath=`.status.conditions[?(@.type==\"Ready\")].status`,priority=1")
	if err != nil || c.Name != "Ready" || c.JSONPath != `.status.conditions[?(@.type=="Ready")].status` || c.Priority != 1 {
		t.Errorf("printcolumn = %+v, %v", c, err)
	}
	if _, err := printColumn(":name=IP,type=string"); err == nil {
		t.Error("a printcolumn without JSONPath was accepted")
	}
	res, err := resource(":path=vessels,shortName=vs;vsl,categories={fleet,all},singular=vessel,scope=Cluster")
	if err != nil || res.Path != "vessels" || len(res.ShortName) != 2 || res.Categories[1] != "all" || res.Singular != "vessel" || res.Scope != "Cluster" {
		t.Errorf("resource = %+v, %v", res, err)
	}
}

// TestColonEquals: "+name:=value" is "+name=value", as controller-tools
// reads it (gateway-api writes +kubebuilder:validation:Minimum:=1).
func TestColonEquals(t *testing.T) {
	s, diags := All.Collect(lines("kubebuilder:validation:Minimum:=1"), TargetField)
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	if v, ok := Minimum.Field.Get(s); !ok || v != 1 {
		t.Errorf("Minimum = %v, %v", v, ok)
	}
}
