package gen

import "testing"

func TestNeedsAnd(t *testing.T) {
	got := Needs{DeepCopies: true, OnRequest: true}.And(Needs{ApplyConfigurationTypes: true}).And(Needs{CRDs: true}).And(Needs{RBACDir: true, OnRequest: true})
	want := Needs{DeepCopies: true, ApplyConfigurationTypes: true, CRDs: true, RBACDir: true}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := (Needs{}).And(Needs{}); got != (Needs{}) {
		t.Errorf("nothing and nothing: %+v", got)
	}
}
