package builder

import (
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/model"
)

func TestDeriveClientNames(t *testing.T) {
	core := &model.Group{Name: "", GoName: "Core", PackageName: "core"}
	apps := &model.Group{Name: "apps", GoName: "Apps", PackageName: "apps"}
	v := &model.Version{Group: apps, Name: "v1", GoName: "V1", TypesAlias: "appsv1", GroupVersionGoName: "AppsV1"}
	rs := &model.Kind{Version: v, Name: "ReplicaSet", Plural: "replicasets", PluralGoName: "ReplicaSets",
		Methods: []*model.Method{{Name: "GetScale", Verb: model.VerbGet, Input: model.TypeRef{Name: "Scale"}}}}
	typ := &model.Kind{Version: v, Name: "Type", Plural: "types", PluralGoName: "Types"}
	sch := &model.Kind{Version: v, Name: "Scheme", Plural: "schemes", PluralGoName: "Schemes"}
	v.Kinds = []*model.Kind{rs, typ, sch}
	apps.Versions = []*model.Version{v}
	cv := &model.Version{Group: core, Name: "v1", TypesAlias: "corev1", GroupVersionGoName: "CoreV1"}
	pod := &model.Kind{Version: cv, Name: "Pod", Plural: "pods", PluralGoName: "Pods"}
	cv.Kinds = []*model.Kind{pod}
	core.Versions = []*model.Version{cv}
	p := &model.Project{Groups: []*model.Group{core, apps}}
	DeriveClientNames(p)

	for _, c := range []struct{ got, want string }{
		{core.APIPath, "/api"},
		{apps.APIPath, "/apis"},
		{v.ClientsetField, "appsV1"},
		{v.TypedClientAlias, "typedappsv1"},
		{v.TypedClientFakeAlias, "fakeappsv1"},
		{v.ListerAlias, "listersappsv1"},
		{rs.FileName, "replicaset"},
		{rs.LowerPluralGoName, "replicaSets"},
		{rs.VarName, "replicaSet"},
		{rs.QualifiedResource, "replicasets.v1.apps"},
		{rs.Methods[0].InputVar, "scale"},
		{typ.VarName, "typeObj"},   // keyword
		{sch.VarName, "schemeObj"}, // import alias
		{pod.QualifiedResource, "pods.v1"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
