package manager

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	clientcache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
	"github.com/ctrlgen/ctrlgen/runtime/manager/internal/servingcert"
	"github.com/ctrlgen/ctrlgen/runtime/manager/internal/webhookcert"
)

// WebhookInitFunc builds the handler of one webhook endpoint, usually an
// admission.Webhook or a conversion.Webhook from runtime/webhook.
type WebhookInitFunc func(ctx context.Context, mc *Context) (http.Handler, error)

// ConversionPath is where conversion webhooks are served, as
// controller-runtime serves them and kubebuilder's CRD patches call them:
// the CRDs get the CA bundle when a webhook is registered there.
const ConversionPath = "/convert"

type webhookRegistration struct {
	path string
	init WebhookInitFunc
}

var globalWebhooks []webhookRegistration

// RegisterWebhook adds an endpoint at path (such as
// "/validate-crddemo-k8s-io-v1-mydemo" or "/convert") to every Manager
// created afterwards; the generated webhook wiring calls it from an init
// function, as controllers call Register.
func RegisterWebhook(path string, init WebhookInitFunc) {
	globalLock.Lock()
	defer globalLock.Unlock()
	globalWebhooks = append(globalWebhooks, webhookRegistration{path: path, init: init})
}

// RegisterWebhook adds an endpoint to this manager.
func (m *Manager) RegisterWebhook(path string, init WebhookInitFunc) {
	m.webhooks = append(m.webhooks, webhookRegistration{path: path, init: init})
}

// webhookServer is the HTTPS server of the webhooks, and where its
// certificate comes from.
type webhookServer struct {
	handler http.Handler
	tls     *tls.Config
	// valid reports whether the certificate served is valid now.
	valid func() error
	// sync, when the manager keeps its own certificates, renews them and
	// injects the CA bundle; it runs until ctx is done.
	sync func(ctx context.Context)
	// listening is set once the server accepts connections.
	listening atomic.Bool
}

// ready says why the webhook server cannot serve yet, or nil.
func (s *webhookServer) ready() error {
	if !s.listening.Load() {
		return errors.New("the webhook server is not listening yet")
	}
	return s.valid()
}

// buildWebhooks runs the webhooks' init functions and prepares their
// server; nil when there are none or WebhookAddr is empty.
func (m *Manager) buildWebhooks(ctx context.Context, mc *Context, cfg *rest.Config) (*webhookServer, error) {
	if len(m.webhooks) == 0 || m.opts.WebhookAddr == "" {
		return nil, nil
	}
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "webhook_requests_total",
		Help: "Requests to each webhook endpoint, by HTTP status code.",
	}, []string{"webhook", "code"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "webhook_latency_seconds",
		Help:    "Time to answer a request to each webhook endpoint.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 15),
	}, []string{"webhook"})
	inFlight := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "webhook_requests_in_flight",
		Help: "Requests being answered by each webhook endpoint.",
	}, []string{"webhook"})
	m.registry.MustRegister(requests, latency, inFlight)

	mux := http.NewServeMux()
	for _, w := range m.webhooks {
		h, err := w.init(ctx, mc)
		if err != nil {
			return nil, fmt.Errorf("webhook %s: %w", w.path, err)
		}
		labels := prometheus.Labels{"webhook": w.path}
		mux.Handle(w.path, promhttp.InstrumentHandlerInFlight(inFlight.With(labels),
			promhttp.InstrumentHandlerDuration(latency.MustCurryWith(labels),
				promhttp.InstrumentHandlerCounter(requests.MustCurryWith(labels), h))))
	}
	s := &webhookServer{handler: mux}
	var getCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	if m.opts.WebhookCertDir != "" {
		files, err := servingcert.NewFiles(filepath.Join(m.opts.WebhookCertDir, m.opts.WebhookCertName),
			filepath.Join(m.opts.WebhookCertDir, m.opts.WebhookCertKey), nil, klog.FromContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("webhook certificate: %w", err)
		}
		getCertificate = files.GetCertificate
		s.valid = func() error {
			c, err := files.GetCertificate(nil)
			if err != nil {
				return err
			}
			if now := time.Now(); now.Before(c.Leaf.NotBefore) || now.After(c.Leaf.NotAfter) {
				return fmt.Errorf("the webhook certificate in %s is valid from %s to %s, not now", m.opts.WebhookCertDir, c.Leaf.NotBefore, c.Leaf.NotAfter)
			}
			return nil
		}
	} else {
		authority, sync, err := m.webhookAuthority(cfg)
		if err != nil {
			return nil, err
		}
		getCertificate, s.valid, s.sync = authority.GetCertificate, authority.Valid, sync
	}
	s.tls = &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: getCertificate,
		// HTTP/1.1, as kubebuilder's default: HTTP/2 measured no cheaper
		// per review (bench/admission), and needs no rapid-reset guard.
		NextProtos: []string{"http/1.1"},
	}
	return s, nil
}

// namespaced reads "namespace/name", or a name in the manager's
// namespace.
func (m *Manager) namespaced(s string) types.NamespacedName {
	if ns, name, ok := strings.Cut(s, "/"); ok {
		return types.NamespacedName{Namespace: ns, Name: name}
	}
	return types.NamespacedName{Namespace: m.opts.LeaderElectionNamespace, Name: s}
}

// webhookAuthority is the manager's own CA and certificate, and the loop
// that renews them and writes the CA bundle where the apiserver reads it.
func (m *Manager) webhookAuthority(cfg *rest.Config) (*webhookcert.Authority, func(context.Context), error) {
	kube, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return nil, nil, err
	}
	dyn, err := dynamic.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return nil, nil, err
	}
	service := m.namespaced(m.opts.WebhookService)
	hosts := []string{service.Name + "." + service.Namespace + ".svc", service.Name + "." + service.Namespace + ".svc.cluster.local"}
	hosts = append(hosts, m.opts.WebhookHosts...)
	authority := webhookcert.New(kube.CoreV1(), webhookcert.Options{
		Secret:       m.namespaced(m.opts.WebhookSecret),
		Hosts:        hosts,
		CAValidity:   m.opts.WebhookCAValidity,
		CertValidity: m.opts.WebhookCertValidity,
		Grace:        m.opts.WebhookCARotationGrace,
	})
	// Conversion webhooks are served at /convert, as controller-runtime's.
	conversion := slices.ContainsFunc(m.webhooks, func(w webhookRegistration) bool { return w.path == ConversionPath })
	target := webhookcert.Target{Service: service, Hosts: normalizeHosts(m.opts.WebhookHosts), CRDs: conversion}
	period := m.opts.WebhookCertSyncPeriod
	if period <= 0 {
		period = time.Minute
	}
	sync := func(ctx context.Context) {
		logger := klog.FromContext(ctx)
		// A webhook configuration (or CRD) created or applied anew gets
		// the bundle at once, not at the next period: a watch pokes the
		// loop.
		poke := make(chan struct{}, 1)
		stopWatches := watchWebhookTargets(ctx, kube, cfg, conversion, func() {
			select {
			case poke <- struct{}{}:
			default:
			}
		})
		defer stopWatches()
		backoff := wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Steps: 1 << 30, Cap: period}
		for {
			err := authority.Sync(ctx)
			if err == nil {
				bundle := authority.Bundle()
				var n int
				if n, err = webhookcert.Inject(ctx, kube, dyn, target, bundle); err == nil {
					if n > 0 {
						logger.Info("Wrote the webhook CA bundle", "objects", n)
					}
					err = authority.MarkInjected(ctx, bundle)
				}
			}
			delay := period
			if err != nil {
				logger.Error(err, "Webhook certificates")
				delay = backoff.Step()
			} else {
				backoff.Steps = 1 << 30
				backoff.Duration = 200 * time.Millisecond
			}
			select {
			case <-ctx.Done():
				return
			case <-poke:
			case <-time.After(delay):
			}
		}
	}
	return authority, sync, nil
}

// watchWebhookTargets calls changed whenever a mutating or validating
// webhook configuration, or with crds a CRD, is added or updated; it
// returns a function that stops watching.
func watchWebhookTargets(ctx context.Context, kube kubernetes.Interface, cfg *rest.Config, crds bool, changed func()) func() {
	ctx, cancel := context.WithCancel(ctx)
	handler := clientcache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { changed() },
		UpdateFunc: func(any, any) { changed() },
	}
	factory := kubeinformers.NewSharedInformerFactory(kube, 0)
	factory.Admissionregistration().V1().MutatingWebhookConfigurations().Informer().AddEventHandler(handler)
	factory.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer().AddEventHandler(handler)
	factory.Start(ctx.Done())
	var metaFactory metadatainformer.SharedInformerFactory
	if crds {
		if client, err := metadata.NewForConfig(rest.CopyConfig(cfg)); err == nil {
			metaFactory = metadatainformer.NewSharedInformerFactory(client, 0)
			metaFactory.ForResource(webhookcert.CRDs).Informer().AddEventHandler(handler)
			metaFactory.Start(ctx.Done())
		}
	}
	return func() {
		cancel()
		factory.Shutdown()
		if metaFactory != nil {
			metaFactory.Shutdown()
		}
	}
}

// normalizeHosts writes IP addresses as net.IP does, as URLs are matched.
func normalizeHosts(hosts []string) []string {
	out := slices.Clone(hosts)
	for i, h := range out {
		if ip := net.ParseIP(h); ip != nil {
			out[i] = ip.String()
		}
	}
	return out
}
