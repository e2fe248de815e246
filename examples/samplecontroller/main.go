// Command samplecontroller is a controller written the way
// k8s.io/sample-controller's is: client-go's kubernetes clientset and
// informers for Deployments, and for its own kind, Foo
// (samplecontroller.example.com/v1alpha1), the clientset, informers and
// listers that k8s.io/code-generator would write, here written by ctrlgen.
// Nothing in it knows which tool wrote them: controller_test.go passes
// against either tool's output (bench/compat swaps code-generator's in).
//
//	go run ./examples/samplecontroller --kubeconfig ~/.kube/config
//
// SIGINT or SIGTERM stops it.
package main

//go:generate go run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --output-dir generated --crd-dir config/crd ./apis/...

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"
	"time"

	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	clientset "github.com/ctrlgen/ctrlgen/examples/samplecontroller/generated/clientset/versioned"
	informers "github.com/ctrlgen/ctrlgen/examples/samplecontroller/generated/informers/externalversions"
)

func main() {
	var masterURL, kubeconfig string
	flag.StringVar(&kubeconfig, "kubeconfig", "", "path to a kubeconfig; only needed out of cluster")
	flag.StringVar(&masterURL, "master", "", "the Kubernetes API server's address, overriding the kubeconfig's; only needed out of cluster")
	klog.InitFlags(nil)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := klog.FromContext(ctx)
	fail := func(err error, msg string) {
		logger.Error(err, msg)
		klog.FlushAndExit(klog.ExitFlushTimeout, 1)
	}

	cfg, err := clientcmd.BuildConfigFromFlags(masterURL, kubeconfig)
	if err != nil {
		fail(err, "Error building the client configuration")
	}
	kubeClient, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fail(err, "Error building the kubernetes clientset")
	}
	sampleClient, err := clientset.NewForConfig(cfg)
	if err != nil {
		fail(err, "Error building the samplecontroller clientset")
	}

	kubeInformerFactory := kubeinformers.NewSharedInformerFactory(kubeClient, 30*time.Second)
	sampleInformerFactory := informers.NewSharedInformerFactory(sampleClient, 30*time.Second)
	controller := NewController(ctx, kubeClient, sampleClient,
		kubeInformerFactory.Apps().V1().Deployments(),
		sampleInformerFactory.Samplecontroller().V1alpha1().Foos())

	// Start does not block: each informer runs in its own goroutine.
	kubeInformerFactory.Start(ctx.Done())
	sampleInformerFactory.Start(ctx.Done())
	if err := controller.Run(ctx, 2); err != nil {
		fail(err, "Error running the controller")
	}
}
