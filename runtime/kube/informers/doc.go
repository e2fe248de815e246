// Package informers provides generated informers for Kubernetes APIs: those
// of k8s.io/client-go/informers, with its exported API, on ctrlgen's
// runtime. They take client-go's kubernetes.Interface.
//
//	factory := informers.NewSharedInformerFactory(kubernetes.NewForConfigOrDie(config), 0)
//	configMaps := factory.Core().V1().ConfigMaps()
//
// ctrlgen generates every file here but this one; see package
// github.com/ctrlgen/ctrlgen/runtime/kube.
package informers
