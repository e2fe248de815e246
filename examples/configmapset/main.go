// Command configmapset runs the ConfigMapSet controller under
// runtime/manager. A ConfigMapSet (sets.ctrlgen.io/v1) keeps spec.replicas
// ConfigMaps, created by generateName, as a ReplicaSet keeps Pods; the
// controller's expectations (+ctrlgen:controller:expectations) keep it
// from creating duplicates while its cache has not yet seen its own
// creates.
//
//	kubectl apply -f config/crd/
//	go run ./examples/configmapset --kubeconfig ~/.kube/config --leader-elect=false
package main

//go:generate go run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --output-dir generated --crd-dir config/crd --rbac-dir config/rbac ./apis/...

import (
	"context"
	"flag"

	"k8s.io/klog/v2"

	"github.com/ctrlgen/ctrlgen/examples/configmapset/controllers/configmapset"
	"github.com/ctrlgen/ctrlgen/examples/configmapset/controllers/secretset"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

func main() {
	opts := manager.DefaultOptions()
	opts.LeaderElectionID = "configmapset-controller"
	klog.InitFlags(flag.CommandLine)
	opts.AddFlags(flag.CommandLine)
	flag.Parse()

	manager.Register(configmapset.ControllerName, configmapset.Init)
	manager.Register(secretset.ControllerName, secretset.Init)
	if err := manager.New(opts).RunWithSignals(context.Background()); err != nil {
		klog.ErrorS(err, "configmapset controller manager failed")
		klog.FlushAndExit(klog.ExitFlushTimeout, 1)
	}
	klog.Flush()
}
