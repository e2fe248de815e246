package main

import (
	"reflect"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	mydemoclient "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	mydemoinformers "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
)

// dropin is a side as a drop-in user writes it, where the other sides
// are tuned for the benchmark:
//
//	clientset := kubernetes.NewForConfig(cfg)    // cfg as the kubeconfig gives it: no ContentType
//	factory := informers.NewSharedInformerFactory(clientset, 0)
//	inf := factory.Core().V1().ConfigMaps().Informer()
//	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: …, UpdateFunc: …, DeleteFunc: …})
//	factory.Start(stop)
//	factory.WaitForCacheSync(stop)
//
// with informers ctrlgen's github.com/ctrlgen/ctrlgen/runtime/kube/informers
// (ctrlgen-dropin) or k8s.io/client-go/informers (client-go-dropin). So,
// unlike the other sides: the clientset's rest.Config has no ContentType
// (its typed clients ask for protobuf by themselves, gentype's
// PrefersProtobuf; the other sides set ContentType to protobuf), the
// handler is a cache.ResourceEventHandlerFuncs (the other sides register
// a struct implementing cache.ResourceEventHandler), the informer is
// started by the factory, and "synced" is the factory's WaitForCacheSync,
// which waits for the informer (its store holds the initial list), not
// for the handler's registration (every add of the initial list
// delivered). The process then also waits for the registration, to check
// the adds, and reports when it was reached as the delivered time.
type dropin struct {
	informer cache.SharedIndexInformer
	start    func(stop <-chan struct{})
	// waitForCacheSync reports whether every informer synced before stop.
	waitForCacheSync func(stop <-chan struct{}) bool
}

// factory is what dropin uses of either factory.
type factory interface {
	Start(stopCh <-chan struct{})
	WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool
}

func dropinOf(f factory, inf cache.SharedIndexInformer) *dropin {
	return &dropin{informer: inf, start: f.Start, waitForCacheSync: func(stop <-chan struct{}) bool {
		for _, synced := range f.WaitForCacheSync(stop) {
			if !synced {
				return false
			}
		}
		return true
	}}
}

// ctrlgenDropinConfigMaps is ctrlgen's shipped factory as a drop-in user
// builds it.
func ctrlgenDropinConfigMaps(client kubernetes.Interface) *dropin {
	f := kubeinformers.NewSharedInformerFactory(client, 0)
	return dropinOf(f, f.Core().V1().ConfigMaps().Informer())
}

// clientGoDropinConfigMaps is client-go's factory as its users build it.
func clientGoDropinConfigMaps(client kubernetes.Interface) *dropin {
	f := informers.NewSharedInformerFactory(client, 0)
	return dropinOf(f, f.Core().V1().ConfigMaps().Informer())
}

// ctrlgenDropinMydemos is the example's generated factory as its users
// build it.
func ctrlgenDropinMydemos(client mydemoclient.Interface) *dropin {
	f := mydemoinformers.NewSharedInformerFactory(client, 0)
	return dropinOf(f, f.Crddemo().V1().Mydemos().Informer())
}

// clientGoDropinMydemos is client-go's side's Mydemo informer (the one
// informer-gen v0.37.2 writes, clientgo.go), started and waited for as
// informer-gen v0.37.2's factory does: Run in a goroutine, then
// cache.WaitFor on the informer's HasSyncedChecker (no polling).
func clientGoDropinMydemos(client mydemoclient.Interface) *dropin {
	inf := clientGoMydemos(client).(cache.SharedIndexInformer)
	return &dropin{
		informer: inf,
		start:    func(stop <-chan struct{}) { go inf.Run(stop) },
		waitForCacheSync: func(stop <-chan struct{}) bool {
			return cache.WaitFor(wait.ContextForChannel(stop), "", inf.HasSyncedChecker())
		},
	}
}
