package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
)

// The mydemo command, with its default (secure) metrics and a
// ServiceAccount token that may only do its work and create the two
// reviews, serves /metrics over HTTPS to the real apiserver's verdicts: no
// token 401, a token of a ServiceAccount without the permission 403, one
// bound to metrics-reader 200 with the controller's metrics. The health
// probes stay plain HTTP, without a token.
func TestMetricsAreServedOnlyToTokensAllowedToGetThem(t *testing.T) {
	e := env(t)
	kc := kubeClient(t, e)
	installMydemoCRD(t, e)
	ns := namespace(t, kc)
	ctx := context.Background()

	// The manager runs as the generated config/rbac's ServiceAccount (its
	// metrics-auth-role lets it review tokens); the scraper is bound to the
	// generated metrics-reader.
	account := newMydemoAccount(t, e, ns)
	reader := account.objects["ClusterRole/metrics-reader"]
	if reader == nil {
		t.Fatalf("examples/mydemo/config/rbac has no ClusterRole metrics-reader")
	}
	readerRole := reader.GetName()
	// newAccount waits for manager-role; the manager reviews scrapers'
	// tokens as soon as it serves, so wait for its metrics-auth-role too.
	account.waitAllowed(t, e, "create", "authentication.k8s.io", "tokenreviews", "", true)
	account.waitAllowed(t, e, "create", "authorization.k8s.io", "subjectaccessreviews", "", true)
	readerToken := serviceAccountToken(t, kc, ns, "prometheus", readerRole)
	strangerToken := serviceAccountToken(t, kc, ns, "stranger")

	bin := buildMydemo(t)
	addrs := localAddrs(t, 2)
	metricsAddr, healthAddr := addrs[0], addrs[1]
	startChild(t, "mydemo", bin,
		"--kubeconfig="+account.kubeconfig,
		"--leader-elect=false",
		"--metrics-bind-address="+metricsAddr,
		"--webhook-bind-address=", // webhook_test.go serves them
		"--health-probe-bind-address="+healthAddr,
	)
	poll(t, time.Minute, 50*time.Millisecond, "/readyz over plain HTTP", func() (bool, string) {
		code, body, err := httpGet("http://" + healthAddr + "/readyz")
		if err != nil {
			return false, err.Error()
		}
		return code == http.StatusOK, fmt.Sprintf("%d %s", code, body)
	})
	md := mydemoClient(t, e)
	if _, err := md.CrddemoV1().Mydemos(ns).Create(ctx, newMydemo(ns, "scraped", "10.0.0.1", 80, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitMydemosReady(t, md, ns, time.Minute, "scraped")

	// The certificate is self-signed, made in memory: a scraper skips
	// verification (kubebuilder's ServiceMonitor does too) unless it is
	// given --metrics-cert-dir's.
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(token string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("GET", "https://"+metricsAddr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET /metrics: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	// The apiserver's RBAC cache learns of new bindings within moments; a
	// denial seen before would be cached for 30 s, so the allowed scrape
	// is polled (a real denial still fails it).
	var code int
	var body string
	poll(t, time.Minute, 500*time.Millisecond, "a token bound to metrics-reader to get /metrics", func() (bool, string) {
		code, body = get(readerToken)
		return code == http.StatusOK, fmt.Sprintf("%d %.200s", code, body)
	})
	if v := metrics(body).get(t, "controller_runtime_reconcile_total", "controller", mydemo.ControllerName, "result", "success"); v < 1 {
		t.Errorf("controller_runtime_reconcile_total of a successful reconcile: %v", v)
	}

	if code, body := get(""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d %.200s", code, body)
	}
	if code, body := get("not-a-token"); code != http.StatusUnauthorized {
		t.Errorf("a token the apiserver does not know: %d %.200s", code, body)
	}
	if code, body := get(strangerToken); code != http.StatusForbidden {
		t.Errorf("a ServiceAccount token without the permission: %d %.200s", code, body)
	}
	if code, body, err := httpGet("http://" + metricsAddr + "/metrics"); err == nil && (code == http.StatusOK || strings.Contains(body, "controller_runtime")) {
		t.Errorf("plain HTTP to the metrics port: %d %.200s", code, body)
	}
}
