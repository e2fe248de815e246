// Package servingcert provides the certificate of an HTTPS server: one
// made in memory and signed by itself, or a PEM pair read from files and
// read again when they change (as when a cert-manager Secret mounted as a
// volume is renewed).
package servingcert

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"os"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

const (
	// SelfSignedValidity is how long a self-signed certificate is valid;
	// it is replaced by a new one a day before it expires.
	SelfSignedValidity = 365 * 24 * time.Hour
	renewBefore        = 24 * time.Hour
	// ReloadInterval is how often, at most, the files are read again to
	// see whether they changed: on a TLS handshake, not in the background.
	ReloadInterval = 10 * time.Second
)

// SelfSigned is a certificate made in memory and signed by itself, for
// localhost, 127.0.0.1, ::1 and the host's name, as controller-runtime's
// metrics server and kube-controller-manager serve by default: the
// connection is encrypted, and a client that wants to know whom it talks
// to is given a certificate.
type SelfSigned struct {
	clock clock.PassiveClock

	mu   sync.Mutex
	cert *tls.Certificate
}

// NewSelfSigned makes the first certificate; clk (nil: the real clock)
// decides when it is renewed.
func NewSelfSigned(clk clock.PassiveClock) (*SelfSigned, error) {
	if clk == nil {
		clk = clock.RealClock{}
	}
	s := &SelfSigned{clock: clk}
	cert, err := selfSigned(clk.Now())
	if err != nil {
		return nil, err
	}
	s.cert = cert
	return s, nil
}

// GetCertificate is for tls.Config.
func (s *SelfSigned) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if now.Add(renewBefore).After(s.cert.Leaf.NotAfter) {
		cert, err := selfSigned(now)
		if err != nil {
			return nil, err
		}
		s.cert = cert
	}
	return s.cert, nil
}

func selfSigned(now time.Time) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, err
	}
	dnsNames := []string{"localhost"}
	if host, err := os.Hostname(); err == nil && host != "" && host != "localhost" {
		dnsNames = append(dnsNames, host)
	}
	template := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: fmt.Sprintf("%s@%d", dnsNames[len(dnsNames)-1], now.Unix())},
		NotBefore:             now.Add(-time.Hour), // tolerate clients whose clock is behind
		NotAfter:              now.Add(SelfSignedValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              dnsNames,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// Files is a PEM certificate (chain) and key read from two files.
type Files struct {
	certFile, keyFile string
	clock             clock.PassiveClock
	logger            klog.Logger

	mu              sync.Mutex
	cert            *tls.Certificate
	certPEM, keyPEM []byte
	checked         time.Time
}

// NewFiles reads the pair, failing if either file is missing or they do
// not make a pair. clk (nil: the real clock) times the checks for
// changes; logger hears of a changed pair that does not load (the last
// good one is served meanwhile).
func NewFiles(certFile, keyFile string, clk clock.PassiveClock, logger klog.Logger) (*Files, error) {
	if clk == nil {
		clk = clock.RealClock{}
	}
	f := &Files{certFile: certFile, keyFile: keyFile, clock: clk, logger: logger}
	certPEM, keyPEM, err := f.read()
	if err != nil {
		return nil, err
	}
	if err := f.load(certPEM, keyPEM); err != nil {
		return nil, err
	}
	f.checked = clk.Now()
	return f, nil
}

// GetCertificate is for tls.Config. At most every ReloadInterval it reads
// the files again, and serves the new pair if they changed and load.
func (f *Files) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if now := f.clock.Now(); now.Sub(f.checked) >= ReloadInterval {
		f.checked = now
		certPEM, keyPEM, err := f.read()
		if err == nil && (!bytes.Equal(certPEM, f.certPEM) || !bytes.Equal(keyPEM, f.keyPEM)) {
			err = f.load(certPEM, keyPEM)
			if err == nil {
				f.logger.Info("Loaded a new serving certificate", "cert", f.certFile, "notAfter", f.cert.Leaf.NotAfter)
			}
		}
		if err != nil {
			f.logger.Error(err, "Serving the previous certificate: the files do not load", "cert", f.certFile, "key", f.keyFile)
		}
	}
	return f.cert, nil
}

func (f *Files) read() (certPEM, keyPEM []byte, err error) {
	if certPEM, err = os.ReadFile(f.certFile); err != nil {
		return nil, nil, err
	}
	if keyPEM, err = os.ReadFile(f.keyFile); err != nil {
		return nil, nil, err
	}
	return certPEM, keyPEM, nil
}

func (f *Files) load(certPEM, keyPEM []byte) error {
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("%s, %s: %w", f.certFile, f.keyFile, err)
	}
	f.cert, f.certPEM, f.keyPEM = &cert, certPEM, keyPEM
	return nil
}
