// Package podwebhook is a hand-written webhook for a built-in kind, laid
// out as kubebuilder v4 lays out internal/webhook: its marker is read
// from a package given on the command line.
package podwebhook

// +kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=ignore,sideEffects=None,groups=core,resources=pods,verbs=create,versions=v1,name=mpod.shop.example.com,admissionReviewVersions=v1,reinvocationPolicy=IfNeeded

// PodDefaulter would label pods.
type PodDefaulter struct{}
