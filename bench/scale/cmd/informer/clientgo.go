package main

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	mydemoclient "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
)

// clientGoConfigMaps is the ConfigMap informer of client-go's factory, with
// its defaults.
func clientGoConfigMaps(client kubernetes.Interface) runner {
	return informers.NewSharedInformerFactory(client, 0).Core().V1().ConfigMaps().Informer()
}

// clientGoMydemos is the Mydemo informer code-generator v0.37.2's
// informer-gen writes (NewTypedMydemoInformerWithOptions, as its
// factory's defaultInformer calls it), over the same generated clientset.
func clientGoMydemos(client mydemoclient.Interface) runner {
	gvr := schema.GroupVersionResource{Group: "crddemo.k8s.io", Version: "v1", Resource: "mydemos"}
	return cache.NewSharedIndexInformerWithOptions(
		cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
			ListFunc: func(opts metav1.ListOptions) (runtime.Object, error) {
				return client.CrddemoV1().Mydemos(metav1.NamespaceAll).List(context.Background(), opts)
			},
			WatchFunc: func(opts metav1.ListOptions) (watch.Interface, error) {
				return client.CrddemoV1().Mydemos(metav1.NamespaceAll).Watch(context.Background(), opts)
			},
			ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				return client.CrddemoV1().Mydemos(metav1.NamespaceAll).List(ctx, opts)
			},
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				return client.CrddemoV1().Mydemos(metav1.NamespaceAll).Watch(ctx, opts)
			},
		}, client),
		&crddemov1.Mydemo{},
		cache.SharedIndexInformerOptions{
			Indexers:   cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
			Identifier: (*cache.InformerName)(nil).WithResource(gvr), // an unnamed factory's
		},
	)
}
