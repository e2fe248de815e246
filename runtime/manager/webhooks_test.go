package manager

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// writeCert writes a self-signed certificate for 127.0.0.1, valid from
// notBefore to notAfter, as tls.crt and tls.key in dir.
func writeCert(t *testing.T, dir string, notBefore, notAfter time.Time) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhook"},
		NotBefore: notBefore, NotAfter: notAfter, DNSNames: []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}

// runWithWebhook runs a manager serving one webhook, with the
// certificate in certDir, and returns its health and webhook addresses.
func runWithWebhook(t *testing.T, certDir string) (m *Manager, healthAddr, webhookAddr string) {
	t.Helper()
	apiServer := httptest.NewTLSServer(&reviewServer{})
	t.Cleanup(apiServer.Close)
	o := DefaultOptions()
	o.Kubeconfig, o.LeaderElect = kubeconfigFor(t, apiServer.URL, "insecure-skip-tls-verify: true"), false
	healthAddr, webhookAddr = freeAddr(t), freeAddr(t)
	o.MetricsAddr, o.HealthAddr, o.WebhookAddr, o.WebhookCertDir = "", healthAddr, webhookAddr, certDir
	m = New(o)
	m.RegisterWebhook("/validate", func(context.Context, *Context) (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("reviewed")) }), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return m, healthAddr, webhookAddr
}

func TestWebhooksAreServedWithTheGivenCertificate(t *testing.T) {
	dir := t.TempDir()
	writeCert(t, dir, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	m, healthAddr, webhookAddr := runWithWebhook(t, dir)
	eventually(t, "/readyz", func() bool { code, _ := get("http://" + healthAddr + "/readyz"); return code == 200 })
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Post("https://"+webhookAddr+"/validate", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "reviewed" {
		t.Errorf("webhook answered %d %q", resp.StatusCode, body)
	}
	if n, err := testutil.GatherAndCount(m.Registry(), "webhook_requests_total"); err != nil || n != 1 {
		t.Errorf("webhook_requests_total: %d series (%v)", n, err)
	}
}

func TestReadyzFailsWhileTheWebhookCertificateIsInvalid(t *testing.T) {
	dir := t.TempDir()
	writeCert(t, dir, time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour))
	_, healthAddr, _ := runWithWebhook(t, dir)
	// /healthz answers once the servers are up; /readyz must not follow.
	eventually(t, "/healthz", func() bool { code, _ := get("http://" + healthAddr + "/healthz"); return code == 200 })
	eventually(t, "/readyz to say why it fails", func() bool {
		code, body := get("http://" + healthAddr + "/readyz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "not now")
	})
}
