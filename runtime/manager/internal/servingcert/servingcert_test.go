package servingcert

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestSelfSignedVerifiesForLocalhostAndIsRenewedBeforeItExpires(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Now().Truncate(time.Second)) // certificates count in seconds
	s, err := NewSelfSigned(clk)
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.GetCertificate(nil)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(first.Leaf)
	for _, name := range []string{"localhost", "127.0.0.1", "::1"} {
		if _, err := first.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: name, CurrentTime: clk.Now(),
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("for %s: %v", name, err)
		}
	}
	if got := first.Leaf.NotAfter.Sub(clk.Now()); got != SelfSignedValidity {
		t.Errorf("valid for %v", got)
	}

	clk.SetTime(first.Leaf.NotAfter.Add(-renewBefore))
	if same, _ := s.GetCertificate(nil); same != first {
		t.Fatal("renewed more than a day before expiry")
	}
	clk.SetTime(clk.Now().Add(time.Second))
	renewed, err := s.GetCertificate(nil)
	if err != nil {
		t.Fatal(err)
	}
	if renewed == first || !renewed.Leaf.NotAfter.After(first.Leaf.NotAfter) {
		t.Fatalf("not renewed within a day of expiry: %v", renewed.Leaf.NotAfter)
	}
}

// writePair writes a new self-signed pair as PEM files.
func writePair(t *testing.T, certFile, keyFile string) *x509.Certificate {
	t.Helper()
	c, err := selfSigned(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	key, err := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600); err != nil {
		t.Fatal(err)
	}
	return c.Leaf
}

func serial(t *testing.T, f *Files) string {
	t.Helper()
	c, err := f.GetCertificate(&tls.ClientHelloInfo{})
	if err != nil {
		t.Fatal(err)
	}
	return c.Leaf.SerialNumber.String()
}

func TestFilesAreReadAgainWhenTheyChange(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	first := writePair(t, certFile, keyFile)
	clk := clocktesting.NewFakePassiveClock(time.Now())
	f, err := NewFiles(certFile, keyFile, clk, ktesting.NewLogger(t, ktesting.NewConfig()))
	if err != nil {
		t.Fatal(err)
	}
	if got := serial(t, f); got != first.SerialNumber.String() {
		t.Fatalf("serving %s, not the file's certificate", got)
	}

	second := writePair(t, certFile, keyFile)
	clk.SetTime(clk.Now().Add(ReloadInterval - time.Second))
	if got := serial(t, f); got != first.SerialNumber.String() {
		t.Fatal("read again before the interval")
	}
	clk.SetTime(clk.Now().Add(time.Second))
	if got := serial(t, f); got != second.SerialNumber.String() {
		t.Fatal("the changed files were not read again after the interval")
	}

	// A half-written rotation: the previous pair stays until both files
	// make a pair again.
	if err := os.WriteFile(keyFile, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	clk.SetTime(clk.Now().Add(ReloadInterval))
	if got := serial(t, f); got != second.SerialNumber.String() {
		t.Fatal("a broken key replaced the served certificate")
	}
	third := writePair(t, certFile, keyFile)
	clk.SetTime(clk.Now().Add(ReloadInterval))
	if got := serial(t, f); got != third.SerialNumber.String() {
		t.Fatal("the repaired pair was not loaded")
	}
}

func TestFilesFailWhenMissingOrNotAPair(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if _, err := NewFiles(certFile, keyFile, nil, ktesting.NewLogger(t, ktesting.NewConfig())); err == nil {
		t.Fatal("no error for missing files")
	}
	writePair(t, certFile, keyFile)
	otherCert, otherKey := filepath.Join(dir, "other.crt"), filepath.Join(dir, "other.key")
	writePair(t, otherCert, otherKey)
	if _, err := NewFiles(certFile, otherKey, nil, ktesting.NewLogger(t, ktesting.NewConfig())); err == nil {
		t.Fatal("no error for a certificate and a key that do not match")
	}
}
