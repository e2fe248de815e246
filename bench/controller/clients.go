package controllerbench

import (
	"context"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/ctrlgen/ctrlgen/bench/internal/clientgen"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
)

// ClientStats counts the requests of a client and the time they waited on
// its client-side rate limiter.
type ClientStats struct {
	Requests int64
	Wait     time.Duration
}

// Sub returns s - t.
func (s ClientStats) Sub(t ClientStats) ClientStats {
	return ClientStats{Requests: s.Requests - t.Requests, Wait: s.Wait - t.Wait}
}

// countingLimiter is client-go's token bucket, counting the requests that
// pass and the time they wait.
type countingLimiter struct {
	flowcontrol.RateLimiter
	requests atomic.Int64
	wait     atomic.Int64
}

func (l *countingLimiter) Wait(ctx context.Context) error {
	start := time.Now()
	err := l.RateLimiter.Wait(ctx)
	l.wait.Add(int64(time.Since(start)))
	l.requests.Add(1)
	return err
}

func (l *countingLimiter) Stats() ClientStats {
	return ClientStats{Requests: l.requests.Load(), Wait: time.Duration(l.wait.Load())}
}

// Clients are the two clientsets the mydemo controller talks through, as
// its generated Init builds them: the example's generated clientset for
// Mydemos, and client-go's for ConfigMaps (and the other built-in kinds).
type Clients struct {
	Mydemo versioned.Interface
	Kube   kubernetes.Interface
}

// NewClient returns the two clientsets on kubeconfig configured as the
// ctrlgen manager configures a controller's (clientcmd, then ClientLimits,
// then one rate limiter shared by both, as manager.Context.ClientConfig
// gives them), whose stats the second result reports.
func NewClient(kubeconfig string) (Clients, func() ClientStats, error) {
	return newClients(kubeconfig, false)
}

// NewClientGenClient is NewClient with the Mydemo clientset's REST client
// as client-gen's NewForConfig makes it: apimachinery's JSON serializer
// (rest.CodecFactoryForGeneratedClient) instead of ctrlgen's generated
// decoders.
func NewClientGenClient(kubeconfig string) (Clients, func() ClientStats, error) {
	return newClients(kubeconfig, true)
}

func newClients(kubeconfig string, clientGen bool) (Clients, func() ClientStats, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return Clients{}, nil, err
	}
	cfg.QPS, cfg.Burst = ClientLimits()
	// The limiter NewForConfig would build from QPS and Burst, counted.
	limiter := &countingLimiter{RateLimiter: flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)}
	cfg.RateLimiter = limiter
	var md versioned.Interface
	if clientGen {
		md, err = clientgen.MydemoClient(cfg, "")
	} else {
		md, err = versioned.NewForConfig(rest.CopyConfig(cfg))
	}
	if err != nil {
		return Clients{}, nil, err
	}
	kube, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return Clients{}, nil, err
	}
	return Clients{Mydemo: md, Kube: kube}, limiter.Stats, nil
}
