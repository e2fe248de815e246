package manager

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
)

func newEventSink(cfg *rest.Config) (record.EventSink, error) {
	client, err := typedcorev1.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("event client: %w", err)
	}
	return &typedcorev1.EventSinkImpl{Interface: client.Events("")}, nil
}

func eventSource(component string) corev1.EventSource {
	return corev1.EventSource{Component: component}
}
