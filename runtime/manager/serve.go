package manager

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

func metaFor(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name}
}

// serve starts the metrics and health servers, sharing one when their
// addresses are the same. The returned function shuts them down.
func (m *Manager) serve(ctx context.Context) (func(), error) {
	muxes := map[string]*http.ServeMux{}
	mux := func(addr string) *http.ServeMux {
		if muxes[addr] == nil {
			muxes[addr] = http.NewServeMux()
		}
		return muxes[addr]
	}
	if m.opts.MetricsAddr != "" {
		mux(m.opts.MetricsAddr).Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	}
	if m.opts.HealthAddr != "" {
		mux(m.opts.HealthAddr).HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte("ok"))
		})
		mux(m.opts.HealthAddr).HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
			if !m.Ready() {
				http.Error(w, "informers have not synced", http.StatusServiceUnavailable)
				return
			}
			w.Write([]byte("ok"))
		})
	}
	var servers []*http.Server
	stop := func() {
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for _, s := range servers {
			s.Shutdown(shutdownCtx)
		}
	}
	for addr, h := range muxes {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			stop()
			return nil, err
		}
		s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		servers = append(servers, s)
		klog.FromContext(ctx).Info("Serving", "address", ln.Addr().String())
		go func() {
			if err := s.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				klog.FromContext(ctx).Error(err, "Server failed", "address", addr)
			}
		}()
	}
	return stop, nil
}
