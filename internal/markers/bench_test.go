package markers

import "testing"

// BenchmarkCollectOtherToolsMarkers collects the marker lines of a
// k8s.io/api type: mostly other tools' markers, which ctrlgen passes over
// after looking for a near miss of its own (once per name: they repeat on
// every type and field of an input).
func BenchmarkCollectOtherToolsMarkers(b *testing.B) {
	ls := lines(
		"genclient",
		"k8s:prerelease-lifecycle-gen:introduced=1.9",
		"k8s:prerelease-lifecycle-gen:deprecated=1.21",
		"k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object",
		"k8s:openapi-gen=true",
		"protobuf.options.(gogoproto.goproto_stringer)=false",
		"featureGate=DeploymentPodReplacementPolicy",
		"enum",
		"k8s:supportsSubresource=/status",
		"k8s:validation-gen=TypeMeta",
	)
	b.ReportAllocs()
	for b.Loop() {
		All.Collect(ls, TargetType)
	}
}
