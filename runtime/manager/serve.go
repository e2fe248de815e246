package manager

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authenticationv1 "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1 "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/ctrlgen/ctrlgen/runtime/manager/internal/metricsauth"
	"github.com/ctrlgen/ctrlgen/runtime/manager/internal/servingcert"
)

func metaFor(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name}
}

// endpoint is one server: its handler, and its TLS configuration when it
// serves HTTPS.
type endpoint struct {
	addr    string
	handler http.Handler
	tls     *tls.Config
	// listening, when set, is set once the endpoint accepts connections.
	listening *atomic.Bool
}

// serve starts the health server (plain HTTP), the metrics server
// (HTTPS behind metricsauth, unless MetricsSecure is off) and the
// webhook server when there is one; with MetricsSecure off health and
// metrics may share one address. /readyz waits for the informers and for
// the webhook server to serve a valid certificate. The returned function
// shuts them down.
func (m *Manager) serve(ctx context.Context, cfg *rest.Config, webhooks *webhookServer) (func(), error) {
	o := m.opts
	health := http.NewServeMux()
	health.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok"))
	})
	health.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !m.Ready() {
			http.Error(w, "informers have not synced", http.StatusServiceUnavailable)
			return
		}
		if webhooks != nil {
			if err := webhooks.ready(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		w.Write([]byte("ok"))
	})
	metrics := http.Handler(promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))

	var endpoints []endpoint
	switch {
	case o.MetricsAddr != "" && o.MetricsAddr == o.HealthAddr:
		if o.MetricsSecure {
			return nil, fmt.Errorf("metrics and health probes are both on %s: secure metrics (HTTPS) and the probes (plain HTTP) need addresses of their own", o.MetricsAddr)
		}
		health.Handle("/metrics", metrics)
		endpoints = append(endpoints, endpoint{addr: o.HealthAddr, handler: health})
	default:
		if o.HealthAddr != "" {
			endpoints = append(endpoints, endpoint{addr: o.HealthAddr, handler: health})
		}
		if o.MetricsAddr != "" {
			e := endpoint{addr: o.MetricsAddr}
			if o.MetricsSecure {
				var err error
				if e.tls, metrics, err = m.secureMetrics(ctx, cfg, metrics); err != nil {
					return nil, err
				}
			}
			mux := http.NewServeMux()
			mux.Handle("/metrics", metrics)
			e.handler = mux
			endpoints = append(endpoints, e)
		}
	}

	if webhooks != nil {
		endpoints = append(endpoints, endpoint{addr: m.opts.WebhookAddr, handler: webhooks.handler, tls: webhooks.tls, listening: &webhooks.listening})
	}

	logger := klog.FromContext(ctx)
	var servers []*http.Server
	stopSync := func() {}
	stop := func() {
		stopSync()
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for _, s := range servers {
			s.Shutdown(shutdownCtx)
		}
	}
	if webhooks != nil && webhooks.sync != nil {
		syncCtx, cancelSync := context.WithCancel(ctx)
		syncDone := make(chan struct{})
		go func() {
			defer close(syncDone)
			webhooks.sync(syncCtx)
		}()
		stopSync = func() {
			cancelSync()
			<-syncDone
		}
	}
	for _, e := range endpoints {
		ln, err := net.Listen("tcp", e.addr)
		if err != nil {
			stop()
			return nil, err
		}
		addr := ln.Addr().String()
		if e.tls != nil {
			ln = tls.NewListener(ln, e.tls)
		}
		s := &http.Server{
			Handler:           e.handler,
			ReadHeaderTimeout: 10 * time.Second,
			// The apiserver gives a webhook at most 30 seconds.
			ReadTimeout: time.Minute,
			IdleTimeout: 2 * time.Minute,
			// Requests carry the manager's logger; they are not cancelled
			// with it, so that Shutdown lets them finish.
			BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		}
		servers = append(servers, s)
		logger.Info("Serving", "address", addr, "https", e.tls != nil)
		if e.listening != nil {
			e.listening.Store(true)
		}
		go func() {
			if err := s.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				logger.Error(err, "Server failed", "address", addr)
			}
		}()
	}
	return stop, nil
}

// secureMetrics returns the metrics server's TLS configuration and
// metrics behind TokenReview and SubjectAccessReview, asked with cfg.
func (m *Manager) secureMetrics(ctx context.Context, cfg *rest.Config, metrics http.Handler) (*tls.Config, http.Handler, error) {
	var getCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	if m.opts.MetricsCertDir != "" {
		files, err := servingcert.NewFiles(filepath.Join(m.opts.MetricsCertDir, m.opts.MetricsCertName),
			filepath.Join(m.opts.MetricsCertDir, m.opts.MetricsCertKey), nil, klog.FromContext(ctx))
		if err != nil {
			return nil, nil, fmt.Errorf("metrics certificate: %w", err)
		}
		getCertificate = files.GetCertificate
	} else {
		self, err := servingcert.NewSelfSigned(nil)
		if err != nil {
			return nil, nil, fmt.Errorf("metrics certificate: %w", err)
		}
		getCertificate = self.GetCertificate
	}
	authn, err := authenticationv1.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return nil, nil, err
	}
	authz, err := authorizationv1.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return nil, nil, err
	}
	tlsConfig := &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: getCertificate,
		// HTTP/1.1 only, as kubebuilder's default (--enable-http2=false):
		// HTTP/2's rapid reset and stream floods need no guard then.
		NextProtos: []string{"http/1.1"},
	}
	filter := metricsauth.New(authn.TokenReviews(), authz.SubjectAccessReviews(), nil)
	return tlsConfig, filter.Wrap(metrics), nil
}
