// The deepcopy-gen markers here and on the kinds, which kueue does
// without, make code-generator's deep copies for bench/apisurface's
// comparison.

// +k8s:deepcopy-gen=package

package v1beta1
