package model

import (
	"path/filepath"
	"testing"
)

func TestSelections(t *testing.T) {
	g := &Group{Name: "g"}
	v1 := &Version{Group: g, Name: "v1"}
	v2 := &Version{Group: g, Name: "v2"}
	g.Versions = []*Version{v1, v2}
	full := &Kind{Name: "Full", Client: true, Lister: true, Informer: true, Methods: []*Method{
		{Name: "GetScale", Verb: VerbGet}, {Name: "ApplyScale", Verb: VerbApply}, {Name: "UpdateScale", Verb: VerbUpdate},
	}}
	clientOnly := &Kind{Name: "ClientOnly", Client: true}
	noClient := &Kind{Name: "NoClient", Lister: true, Informer: true}
	v1.Kinds = []*Kind{clientOnly, full, noClient}
	v2.Kinds = []*Kind{clientOnly}
	p := &Project{Groups: []*Group{g}}

	if got := p.ClientVersions(); len(got) != 2 {
		t.Errorf("ClientVersions: %d, want 2", len(got))
	}
	if got := g.InformerVersions(); len(got) != 1 || got[0] != v1 {
		t.Errorf("InformerVersions: %v", got)
	}
	if got := p.InformerGroups(); len(got) != 1 {
		t.Errorf("InformerGroups: %v", got)
	}
	if got := v1.InformerKinds(); len(got) != 1 || got[0] != full {
		t.Errorf("InformerKinds: %v", got)
	}
	if got := v1.ListerKinds(); len(got) != 2 || got[0] != full {
		t.Errorf("ListerKinds: %v", got)
	}
	var names []string
	for _, m := range full.ClientMethods() {
		names = append(names, m.Name)
	}
	if len(names) != 2 || names[0] != "GetScale" || names[1] != "UpdateScale" {
		t.Errorf("ClientMethods: %v", names)
	}
	status := &Kind{HasStatus: true, Verbs: map[Verb]bool{VerbUpdateStatus: true, VerbDeleteCollection: true}}
	if !status.HasStatusVerb() || !status.HasListClient() {
		t.Error("HasStatusVerb or HasListClient false")
	}
	if (&Kind{Verbs: map[Verb]bool{VerbUpdateStatus: true}}).HasStatusVerb() {
		t.Error("HasStatusVerb without a status")
	}
}

func TestDirOf(t *testing.T) {
	p := &Project{OutputDir: "/out", OutputPkg: "example.com/m/gen"}
	if dir, err := p.DirOf("example.com/m/gen/listers/apps/v1"); err != nil || dir != filepath.FromSlash("/out/listers/apps/v1") {
		t.Errorf("DirOf = %q, %v", dir, err)
	}
	if dir, err := p.DirOf("example.com/m/gen"); err != nil || dir != "/out" {
		t.Errorf("DirOf(OutputPkg) = %q, %v", dir, err)
	}
	if _, err := p.DirOf("example.com/m/generated"); err == nil {
		t.Error("DirOf of a package outside OutputPkg: no error")
	}
}
