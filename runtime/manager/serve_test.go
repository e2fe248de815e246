package manager

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	certutil "k8s.io/client-go/util/cert"
)

// reviewServer answers TokenReviews and SubjectAccessReviews as an
// apiserver would: the token "reader" is allowed to get /metrics, the token
// "stranger" is a user without that permission, anything else is refused.
type reviewServer struct {
	mu            sync.Mutex
	authorization []string // the Authorization headers of the reviews
}

func (s *reviewServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.authorization = append(s.authorization, r.Header.Get("Authorization"))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/apis/authentication.k8s.io/v1/tokenreviews":
		review := &authenticationv1.TokenReview{}
		if !decode(w, r, review) {
			return
		}
		review.APIVersion, review.Kind = "authentication.k8s.io/v1", "TokenReview"
		switch review.Spec.Token {
		case "reader", "stranger":
			review.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: review.Spec.Token}}
		}
		json.NewEncoder(w).Encode(review)
	case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
		review := &authorizationv1.SubjectAccessReview{}
		if !decode(w, r, review) {
			return
		}
		review.APIVersion, review.Kind = "authorization.k8s.io/v1", "SubjectAccessReview"
		na := review.Spec.NonResourceAttributes
		review.Status.Allowed = review.Spec.User == "reader" && na != nil && na.Path == "/metrics" && na.Verb == "get"
		json.NewEncoder(w).Encode(review)
	default:
		http.NotFound(w, r)
	}
}

// decode reads the request's object, JSON or protobuf, as client-go sends
// either.
func decode(w http.ResponseWriter, r *http.Request, into runtime.Object) bool {
	body, err := io.ReadAll(r.Body)
	if err == nil {
		_, _, err = scheme.Codecs.UniversalDeserializer().Decode(body, nil, into)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func (s *reviewServer) reviewedWith() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.authorization...)
}

// idle is a controller with nothing to do, which keeps Run running.
type idle struct{}

func (idle) Name() string    { return "idle" }
func (idle) HasSynced() bool { return true }
func (idle) Run(ctx context.Context, _ int) error {
	<-ctx.Done()
	return nil
}

func TestSecureMetricsServeHTTPSToAllowedTokensWithTheGivenCertificate(t *testing.T) {
	api := &reviewServer{}
	apiServer := httptest.NewTLSServer(api) // client-go sends credentials over TLS only
	defer apiServer.Close()

	certDir := t.TempDir()
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("localhost", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(certDir, "serving.pem"), certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(certDir, "serving-key.pem"), keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(certPEM) {
		t.Fatal("no certificate in the PEM")
	}

	metricsAddr, healthAddr := freeAddr(t), freeAddr(t)
	o := DefaultOptions()
	o.Kubeconfig, o.LeaderElect = kubeconfigFor(t, apiServer.URL, "insecure-skip-tls-verify: true"), false
	o.MetricsAddr, o.HealthAddr = metricsAddr, healthAddr
	o.MetricsCertDir, o.MetricsCertName, o.MetricsCertKey = certDir, "serving.pem", "serving-key.pem"
	if !o.MetricsSecure {
		t.Fatal("metrics are not secure by default")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	m := New(o)
	m.Register("idle", func(context.Context, *Context) (Runnable, error) { return idle{}, nil })
	go func() { done <- m.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	eventually(t, "the health server, on plain HTTP", func() bool { code, _ := get("http://" + healthAddr + "/readyz"); return code == 200 })
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "localhost"}}}
	scrape := func(token string) (int, string) {
		req, _ := http.NewRequest("GET", "https://"+metricsAddr+"/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET /metrics over HTTPS, verifying the certificate of --metrics-cert-dir: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.ProtoMajor != 1 {
			t.Errorf("served over %s; HTTP/1.1 only", resp.Proto)
		}
		return resp.StatusCode, string(b)
	}
	if code, _ := scrape(""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	if code, _ := scrape("forged"); code != http.StatusUnauthorized {
		t.Errorf("a refused token: %d", code)
	}
	if code, _ := scrape("stranger"); code != http.StatusForbidden {
		t.Errorf("a token without the permission: %d", code)
	}
	if code, body := scrape("reader"); code != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("an allowed token: %d %.200s", code, body)
	}
	if code, body := get("http://" + metricsAddr + "/metrics"); code != http.StatusBadRequest || strings.Contains(body, "go_goroutines") {
		t.Errorf("plain HTTP to the metrics port: %d %.200s", code, body)
	}
	if code, _ := get("http://" + healthAddr + "/metrics"); code != http.StatusNotFound {
		t.Errorf("/metrics on the health port: %d", code)
	}
	for _, h := range api.reviewedWith() {
		if h != "Bearer t" {
			t.Errorf("a review was made with %q, not the manager's own credentials", h)
		}
	}
	if n := len(api.reviewedWith()); n != 5 { // 3 token reviews, 2 access reviews
		t.Errorf("%d reviews", n)
	}
}

func TestSecureMetricsMisconfigurationsFailRun(t *testing.T) {
	addr := freeAddr(t)
	for name, set := range map[string]func(*Options){
		"one address for HTTPS metrics and HTTP probes": func(o *Options) { o.MetricsAddr, o.HealthAddr = addr, addr },
		"a certificate directory without the files": func(o *Options) {
			o.MetricsAddr, o.HealthAddr, o.MetricsCertDir = addr, "", t.TempDir()
		},
	} {
		o := DefaultOptions()
		o.Kubeconfig, o.LeaderElect = kubeconfig(t), false
		set(&o)
		ctx, cancel := context.WithCancel(context.Background())
		err := New(o).Run(ctx)
		cancel()
		if err == nil {
			t.Errorf("%s: Run returned no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}
