package main

import (
	"k8s.io/client-go/kubernetes"

	mydemoclient "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	mydemoinformers "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
)

// ctrlgenConfigMaps is the ConfigMap informer of ctrlgen's shipped factory
// for k8s.io/api, with the factory's defaults.
func ctrlgenConfigMaps(client kubernetes.Interface) runner {
	return kubeinformers.NewSharedInformerFactory(client, 0).Core().V1().ConfigMaps().Informer()
}

// ctrlgenMydemos is the Mydemo informer of the example's generated factory.
func ctrlgenMydemos(client mydemoclient.Interface) runner {
	return mydemoinformers.NewSharedInformerFactory(client, 0).Crddemo().V1().Mydemos().Informer()
}
