package fakeclient

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/testing"
)

// Invoke runs action through fake's reactors and returns the result as R:
// empty when no reactor returned an object. A reactor that returns an
// object of another type is an error, not a panic: the object tracker
// answers a subresource action with the parent object, so a test of a
// method like GetScale needs a reactor of its own.
func Invoke[R runtime.Object](fake *testing.Fake, action testing.Action, empty R) (R, error) {
	obj, err := fake.Invokes(action, empty)
	if obj == nil {
		return empty, err
	}
	r, ok := obj.(R)
	if !ok {
		return empty, fmt.Errorf("fake: %s %s%s returned %T, want %T; add a reactor for it",
			action.GetVerb(), action.GetResource().Resource, subresource(action), obj, empty)
	}
	return r, err
}

func subresource(action testing.Action) string {
	if s := action.GetSubresource(); s != "" {
		return "/" + s
	}
	return ""
}

// NewListSubresourceAction returns the action of a list of a subresource
// of the object called name, which client-go's testing package lacks.
func NewListSubresourceAction(resource schema.GroupVersionResource, kind schema.GroupVersionKind, namespace, subresource, name string, opts metav1.ListOptions) testing.ListActionImpl {
	action := testing.NewListActionWithOptions(resource, kind, namespace, opts)
	action.Subresource = subresource
	action.Name = name
	return action
}
