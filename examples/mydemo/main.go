// Command mydemo runs the Mydemo controller of seed 000 under
// runtime/manager: for every Mydemo (crddemo.k8s.io/v1) it keeps a
// ConfigMap "<name>-config" rendered from the spec, owned by the Mydemo so
// that the garbage collector deletes it with the Mydemo.
//
//	kubectl apply -f config/crd/crddemo.k8s.io_mydemos.yaml
//	go run ./examples/mydemo --kubeconfig ~/.kube/config --leader-elect=false
//	kubectl apply -f config/sample.yaml
//
// It also serves the Mydemo webhooks (webhooks/mydemo: a port defaulted
// to 80, spec.ip checked to be an IP address, deletes of protected
// Mydemos refused; webhooks: the conversion between v1, the stored
// version, and v2) over HTTPS on --webhook-bind-address (default :9443;
// empty turns them off), with the manager's own certificates unless
// --webhook-cert-dir gives cert-manager's.
//
// Flags: the manager's (--kubeconfig, --controllers, --workers, --resync,
// --leader-elect*, --metrics-bind-address (default :8443), --webhook-*,
// --metrics-secure (default true: HTTPS, and only for tokens allowed to
// get /metrics; false for plain HTTP), --metrics-cert-dir/-name/-key,
// --health-probe-bind-address (default :8081), --kube-api-qps/burst),
// klog's (-v, --logtostderr, ...), and its own --reconcile-trace-file (a
// line per reconcile, which e2e/shards_test.go reads to check that no
// Mydemo is reconciled by two --shards processes at once). SIGINT or
// SIGTERM stops it gracefully: in-flight reconciles finish and the leader
// Lease is released; a second signal exits at once.
//
// config/default deploys it (kustomize build config/default), from the
// image Dockerfile builds.
package main

//go:generate go run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --output-dir generated --crd-dir config/crd --rbac-dir config/rbac --webhook-dir config/webhook ./apis/...

// config/rbac-namespaced is the RBAC of the manager run with --namespaces
// limited to the namespace it is deployed to (the "system" placeholder,
// which config/default's namespace replaces): Roles there, and a
// ClusterRole for the cluster-scoped resources only.
//go:generate go run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --generators rbac --output-dir generated --rbac-dir config/rbac-namespaced --rbac-namespaces system ./apis/...

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"

	"k8s.io/klog/v2"

	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/webhooks"
	mydemowebhook "github.com/ctrlgen/ctrlgen/examples/mydemo/webhooks/mydemo"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

func main() {
	f, _ := parseFlags(flag.CommandLine, os.Args[1:]) // flag.CommandLine exits on a bad flag
	if err := run(f); err != nil {
		klog.ErrorS(err, "mydemo controller manager failed")
		klog.FlushAndExit(klog.ExitFlushTimeout, 1)
	}
	klog.Flush()
}

// flags are the manager's options and this command's own.
type flags struct {
	manager.Options
	reconcileTraceFile string
}

// parseFlags reads the manager's, klog's and this command's flags from
// args into fs.
func parseFlags(fs *flag.FlagSet, args []string) (flags, error) {
	f := flags{Options: manager.DefaultOptions()}
	f.LeaderElectionID = "mydemo-controller"
	klog.InitFlags(fs)
	f.AddFlags(fs)
	fs.StringVar(&f.reconcileTraceFile, "reconcile-trace-file", "", "Append a line per reconcile (controller, namespace/name, start and end in Unix ns) to this file.")
	err := fs.Parse(args)
	return f, err
}

func run(f flags) error {
	ctx := context.Background()
	if f.reconcileTraceFile != "" {
		file, err := os.OpenFile(f.reconcileTraceFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("reconcile trace: %w", err)
		}
		defer file.Close()
		ctx = controller.WithReconcileObserver(ctx, traceReconciles(file))
	}
	manager.Register(mydemo.ControllerName, mydemo.Init)
	m := manager.New(f.Options)
	mydemowebhook.Register(m)
	webhooks.RegisterConversion(m)
	return m.RunWithSignals(ctx)
}

// traceReconciles writes a line per reconcile to w: "<controller>
// <namespace>/<name> <start> <end>", the times in Unix nanoseconds. Each
// line is written at once, so a killed process leaves whole lines.
func traceReconciles(w io.Writer) func(controller.Reconciled) {
	var mu sync.Mutex
	return func(r controller.Reconciled) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "%s %s %d %d\n", r.Controller, r.Key, r.Start.UnixNano(), r.End.UnixNano())
	}
}
