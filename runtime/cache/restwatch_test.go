package cache

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/ctrlgen/ctrlgen/runtime/wire"
)

// A response body read by the wire package is an EventStream, left after
// a streamed list's initial events.
var (
	_ EventStream[*corev1.ConfigMap] = (*wire.Stream[*corev1.ConfigMap])(nil)
	_ LeftAfterInitialEvents         = (*wire.Stream[*corev1.ConfigMap])(nil)
)

// TestRESTWatchStreamNotForNilClients: without a REST client (a fake
// clientset's is a nil *rest.RESTClient) there is no stream function, and
// the ListWatch keeps its WatchFunc.
func TestRESTWatchStreamNotForNilClients(t *testing.T) {
	var nilClient *rest.RESTClient
	if f := RESTWatchStream[*corev1.ConfigMap](RESTResource{Client: nilClient, Resource: "configmaps",
		ParameterCodec: scheme.ParameterCodec, Serializer: scheme.Codecs.WithoutConversion()}, nil); f != nil {
		t.Error("a stream function, want none")
	}
}
