// Command mydemo runs the Mydemo controller of seed 000 under
// runtime/manager: for every Mydemo (crddemo.k8s.io/v1) it keeps a
// ConfigMap "<name>-config" rendered from the spec, owned by the Mydemo so
// that the garbage collector deletes it with the Mydemo.
//
//	kubectl apply -f config/crd/crddemo.k8s.io_mydemos.yaml
//	go run ./examples/mydemo --kubeconfig ~/.kube/config --leader-elect=false
//	kubectl apply -f config/sample.yaml
//
// Flags: the manager's (--kubeconfig, --controllers, --workers, --resync,
// --leader-elect*, --metrics-bind-address (default :8443),
// --metrics-secure (default true: HTTPS, and only for tokens allowed to
// get /metrics; false for plain HTTP), --metrics-cert-dir/-name/-key,
// --health-probe-bind-address (default :8081), --kube-api-qps/burst) and
// klog's (-v, --logtostderr, ...). SIGINT or SIGTERM stops it gracefully:
// in-flight reconciles finish and the leader Lease is released; a second
// signal exits at once.
//
// config/default deploys it (kustomize build config/default), from the
// image Dockerfile builds.
package main

//go:generate go run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --output-dir generated --crd-dir config/crd --rbac-dir config/rbac ./apis/...

import (
	"context"
	"flag"
	"os"

	"k8s.io/klog/v2"

	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

func main() {
	opts, _ := parseFlags(flag.CommandLine, os.Args[1:]) // flag.CommandLine exits on a bad flag

	manager.Register(mydemo.ControllerName, mydemo.Init)
	if err := manager.New(opts).RunWithSignals(context.Background()); err != nil {
		klog.ErrorS(err, "mydemo controller manager failed")
		klog.FlushAndExit(klog.ExitFlushTimeout, 1)
	}
	klog.Flush()
}

// parseFlags reads the manager's and klog's flags from args into fs.
func parseFlags(fs *flag.FlagSet, args []string) (manager.Options, error) {
	opts := manager.DefaultOptions()
	opts.LeaderElectionID = "mydemo-controller"
	klog.InitFlags(fs)
	opts.AddFlags(fs)
	return opts, fs.Parse(args)
}
