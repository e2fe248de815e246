package plural

import "testing"

func TestOf(t *testing.T) {
	for kind, want := range map[string]string{
		"Pod": "Pods", "Policy": "Policies", "NetworkPolicy": "NetworkPolicies", "Ingress": "Ingresses",
		"Endpoints": "Endpoints", "EndpointSlice": "EndpointSlices", "Gateway": "Gateways", "Box": "Boxes",
		"Quiz": "Quizes", "Batch": "Batches", "Mesh": "Meshes", "Graph": "Graphs", "Leaf": "Leaves",
		"Knife": "Knives", "Safe": "Saves", "X": "X", "Status": "Statuses", "ComponentStatus": "ComponentStatuses",
	} {
		if got := Of(kind, DefaultExceptions); got != want {
			t.Errorf("Of(%q) = %q, want %q", kind, got, want)
		}
	}
	if got := Of("Foo", map[string]string{"Foo": "Feet"}); got != "Feet" {
		t.Errorf("exception ignored: %q", got)
	}
}
