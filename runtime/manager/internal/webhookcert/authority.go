// Package webhookcert keeps a webhook server's certificates in a Secret
// that every replica shares, without cert-manager: a CA, a serving
// certificate it signs, and the bundle of CAs to trust, which the
// apiserver gets through the caBundle of the webhook configurations and
// CRDs (package cabundle).
//
// Each replica calls Sync periodically. The first creates the Secret;
// any replica renews what is due, with optimistic concurrency, and every
// replica serves the Secret's current certificate. Renewal never leaves
// a caller distrusting the certificate it is served:
//   - the serving certificate is renewed when a third of its life is
//     left, signed by the same CA, which callers already trust;
//   - a CA is replaced in two steps: when a third of its life is left a
//     new CA joins the bundle, and only once that bundle has been
//     injected (InjectedBundle) and Grace has passed does the new CA
//     start signing. A CA leaves the bundle when it expires.
package webhookcert

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// The Secret's keys. ca.crt, tls.crt and tls.key are those cert-manager
// writes, so the Secret can be mounted as kubebuilder mounts
// cert-manager's.
const (
	KeyBundle     = "ca.crt"
	KeyCert       = "tls.crt"
	KeyKey        = "tls.key"
	KeySigningCA  = "ca-signing.crt"
	KeySigningKey = "ca-signing.key"
	KeyNextCA     = "ca-next.crt"
	KeyNextKey    = "ca-next.key"

	// AnnotationNextSince is when the next CA joined the bundle.
	AnnotationNextSince = "webhook.ctrlgen.io/ca-next-since"
	// AnnotationInjected is the hash of the last bundle written into
	// every webhook configuration and CRD.
	AnnotationInjected = "webhook.ctrlgen.io/injected-bundle"
)

// Options say where the certificates live and how long they last.
type Options struct {
	Secret types.NamespacedName
	// Hosts are the DNS names and IP addresses the serving certificate
	// is for.
	Hosts []string
	// CAValidity and CertValidity are the lifetimes of a CA and of a
	// serving certificate.
	CAValidity, CertValidity time.Duration
	// Grace is how long a new CA is trusted, in an injected bundle,
	// before it signs: time for the apiserver to see the new bundle.
	Grace time.Duration
	Clock clock.PassiveClock
}

// Defaults for Options.
const (
	DefaultCAValidity   = 10 * 365 * 24 * time.Hour
	DefaultCertValidity = 90 * 24 * time.Hour
	DefaultGrace        = 5 * time.Minute
)

// Authority syncs the Secret and serves its certificate.
type Authority struct {
	secrets corev1client.SecretsGetter
	opts    Options
	cert    atomic.Pointer[tls.Certificate]
	// secret is the Secret as the last Sync (or MarkInjected) read or
	// wrote it: the bundle, and what MarkInjected updates.
	secret atomic.Pointer[corev1.Secret]
}

// New returns an Authority; nothing is served before the first Sync.
func New(secrets corev1client.SecretsGetter, opts Options) *Authority {
	if opts.CAValidity <= 0 {
		opts.CAValidity = DefaultCAValidity
	}
	if opts.CertValidity <= 0 {
		opts.CertValidity = DefaultCertValidity
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Authority{secrets: secrets, opts: opts}
}

// GetCertificate is for tls.Config: the last certificate Sync loaded.
func (a *Authority) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c := a.cert.Load()
	if c == nil {
		return nil, errors.New("no webhook serving certificate yet")
	}
	return c, nil
}

// Valid reports whether the certificate served is valid now.
func (a *Authority) Valid() error {
	c := a.cert.Load()
	if c == nil {
		return errors.New("no webhook serving certificate yet")
	}
	now := a.opts.Clock.Now()
	if now.Before(c.Leaf.NotBefore) || now.After(c.Leaf.NotAfter) {
		return fmt.Errorf("the webhook serving certificate is valid from %s to %s, not now", c.Leaf.NotBefore, c.Leaf.NotAfter)
	}
	return nil
}

// Bundle is the PEM bundle of CAs to trust, as the last Sync read it.
func (a *Authority) Bundle() []byte {
	if s := a.secret.Load(); s != nil {
		return s.Data[KeyBundle]
	}
	return nil
}

// Sync reads the Secret, creating it or renewing what is due, and loads
// its certificate.
func (a *Authority) Sync(ctx context.Context) error {
	var lastErr error
	for range 5 {
		secret, err := a.secrets.Secrets(a.opts.Secret.Namespace).Get(ctx, a.opts.Secret.Name, metav1.GetOptions{})
		exists := err == nil
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading Secret %s: %w", a.opts.Secret, err)
		}
		if !exists {
			secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: a.opts.Secret.Namespace, Name: a.opts.Secret.Name},
				Type: corev1.SecretTypeTLS}
		}
		st := parse(secret)
		changed, err := a.renew(st)
		if err != nil {
			return err
		}
		if changed {
			st.store(secret)
			if exists {
				secret, err = a.secrets.Secrets(secret.Namespace).Update(ctx, secret, metav1.UpdateOptions{})
			} else {
				secret, err = a.secrets.Secrets(secret.Namespace).Create(ctx, secret, metav1.CreateOptions{})
			}
			if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
				lastErr = err
				continue // another replica wrote first: start again from its Secret
			}
			if err != nil {
				return fmt.Errorf("writing Secret %s: %w", a.opts.Secret, err)
			}
			klog.FromContext(ctx).Info("Renewed the webhook certificates", "secret", a.opts.Secret,
				"servingNotAfter", st.cert.Leaf.NotAfter, "caNotAfter", st.signing.cert.NotAfter, "nextCA", st.next != nil)
		}
		a.cert.Store(st.cert)
		a.secret.Store(secret)
		return nil
	}
	return fmt.Errorf("writing Secret %s: %w", a.opts.Secret, lastErr)
}

// MarkInjected records in the Secret that bundle has reached every
// webhook configuration and CRD, which lets a next CA start signing. It
// updates the Secret the last Sync read, without reading it again.
func (a *Authority) MarkInjected(ctx context.Context, bundle []byte) error {
	secret := a.secret.Load()
	h := hash(bundle)
	if secret == nil || secret.Annotations[AnnotationInjected] == h || !bytes.Equal(secret.Data[KeyBundle], bundle) {
		return nil
	}
	secret = secret.DeepCopy()
	if secret.Annotations == nil {
		secret.Annotations = map[string]string{}
	}
	secret.Annotations[AnnotationInjected] = h
	updated, err := a.secrets.Secrets(secret.Namespace).Update(ctx, secret, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		return nil // another replica wrote it: the next Sync reads that, and the next round marks it
	}
	if err != nil {
		return err
	}
	a.secret.Store(updated)
	return nil
}

func hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:16])
}

// ca is a CA certificate with its key (nil for a CA only trusted).
type ca struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// state is what the Secret holds, parsed; what does not parse is missing.
type state struct {
	signing, next *ca
	nextSince     time.Time
	trusted       []*x509.Certificate // the bundle
	cert          *tls.Certificate
	injected      string
}

func parse(s *corev1.Secret) *state {
	st := &state{injected: s.Annotations[AnnotationInjected]}
	st.signing = parseCA(s.Data[KeySigningCA], s.Data[KeySigningKey])
	st.next = parseCA(s.Data[KeyNextCA], s.Data[KeyNextKey])
	if t, err := time.Parse(time.RFC3339, s.Annotations[AnnotationNextSince]); err == nil {
		st.nextSince = t
	}
	for rest := s.Data[KeyBundle]; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if c, err := x509.ParseCertificate(b.Bytes); err == nil && c.IsCA {
			st.trusted = append(st.trusted, c)
		}
	}
	if c, err := tls.X509KeyPair(s.Data[KeyCert], s.Data[KeyKey]); err == nil {
		st.cert = &c
	}
	return st
}

func parseCA(certPEM, keyPEM []byte) *ca {
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil || !c.Leaf.IsCA {
		return nil
	}
	key, ok := c.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil
	}
	return &ca{cert: c.Leaf, key: key}
}

func (st *state) store(s *corev1.Secret) {
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	s.Data[KeyBundle] = st.bundlePEM()
	s.Data[KeySigningCA], s.Data[KeySigningKey] = st.signing.pem()
	if st.next != nil {
		s.Data[KeyNextCA], s.Data[KeyNextKey] = st.next.pem()
		s.Annotations[AnnotationNextSince] = st.nextSince.UTC().Format(time.RFC3339)
	} else {
		delete(s.Data, KeyNextCA)
		delete(s.Data, KeyNextKey)
		delete(s.Annotations, AnnotationNextSince)
	}
	var chain []byte
	for _, der := range st.cert.Certificate {
		chain = append(chain, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	s.Data[KeyCert] = chain
	s.Data[KeyKey] = keyPEM(st.cert.PrivateKey.(*ecdsa.PrivateKey))
}

func (st *state) bundlePEM() []byte {
	var b []byte
	for _, c := range st.trusted {
		b = append(b, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	return b
}

func (c *ca) pem() (certPEM, key []byte) {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.cert.Raw}), keyPEM(c.key)
}

func keyPEM(k *ecdsa.PrivateKey) []byte {
	der, _ := x509.MarshalECPrivateKey(k)
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

// renew brings st up to date; it reports whether anything changed.
func (a *Authority) renew(st *state) (bool, error) {
	now := a.opts.Clock.Now()
	changed := false
	reissue := false
	if (st.signing == nil || !now.Before(st.signing.cert.NotAfter)) && st.next != nil && now.Before(st.next.cert.NotAfter) {
		st.signing, st.next, changed, reissue = st.next, nil, true, true
	}
	if st.signing == nil || !now.Before(st.signing.cert.NotAfter) {
		c, err := newCA(now, a.opts.CAValidity)
		if err != nil {
			return false, err
		}
		st.signing, st.next, changed, reissue = c, nil, true, true
	}
	if st.next == nil && dueForRenewal(st.signing.cert, now) {
		c, err := newCA(now, a.opts.CAValidity)
		if err != nil {
			return false, err
		}
		st.next, st.nextSince, changed = c, now, true
	}
	if st.next != nil && now.Sub(st.nextSince) >= a.opts.Grace && st.injected == hash(st.bundlePEM()) && st.trusts(st.next.cert) {
		st.signing, st.next, changed, reissue = st.next, nil, true, true
	}
	// The bundle: every CA still valid that signs, will sign, or signed a
	// certificate a replica may still serve.
	trusted := slices.DeleteFunc(slices.Clone(st.trusted), func(c *x509.Certificate) bool { return !now.Before(c.NotAfter) })
	for _, c := range []*ca{st.signing, st.next} {
		if c != nil && !slices.ContainsFunc(trusted, c.cert.Equal) {
			trusted = append(trusted, c.cert)
		}
	}
	if !slices.EqualFunc(trusted, st.trusted, (*x509.Certificate).Equal) {
		st.trusted, changed = trusted, true
	}
	if reissue || st.cert == nil || a.certDue(st, now) {
		cert, err := newServingCert(st.signing, now, a.opts.CertValidity, a.opts.Hosts)
		if err != nil {
			return false, err
		}
		st.cert, changed = cert, true
	}
	return changed, nil
}

func (st *state) trusts(c *x509.Certificate) bool {
	return slices.ContainsFunc(st.trusted, c.Equal)
}

// dueForRenewal reports whether a third of c's life or less is left.
func dueForRenewal(c *x509.Certificate, now time.Time) bool {
	life := c.NotAfter.Sub(c.NotBefore)
	return c.NotAfter.Sub(now) <= life/3
}

// certDue reports whether the serving certificate must be replaced: due,
// not signed by the signing CA, or not for the hosts asked for.
func (a *Authority) certDue(st *state, now time.Time) bool {
	leaf := st.cert.Leaf
	if dueForRenewal(leaf, now) || leaf.CheckSignatureFrom(st.signing.cert) != nil {
		return true
	}
	var hosts []string
	hosts = append(hosts, leaf.DNSNames...)
	for _, ip := range leaf.IPAddresses {
		hosts = append(hosts, ip.String())
	}
	want := slices.Clone(a.opts.Hosts)
	slices.Sort(hosts)
	slices.Sort(want)
	return !slices.Equal(hosts, slices.Compact(want))
}

// backdate is how far before now a certificate starts being valid, for
// callers whose clocks are behind.
func backdate(validity time.Duration) time.Duration {
	return min(time.Minute, validity/10)
}

func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
}

func newCA(now time.Time, validity time.Duration) (*ca, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: fmt.Sprintf("webhook-ca@%d", now.UnixNano())},
		NotBefore:             now.Add(-backdate(validity)),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("webhook CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &ca{cert: cert, key: key}, nil
}

// newServingCert is a certificate for hosts signed by c, expiring no
// later than c.
func newServingCert(c *ca, now time.Time, validity time.Duration, hosts []string) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, err
	}
	notAfter := now.Add(validity)
	if notAfter.After(c.cert.NotAfter) {
		notAfter = c.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber: sn,
		Subject:      pkix.Name{CommonName: "webhook"},
		NotBefore:    now.Add(-backdate(validity)),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range slices.Compact(slices.Sorted(slices.Values(hosts))) {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	if len(hosts) > 0 {
		tmpl.Subject.CommonName = hosts[0]
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, key.Public(), c.key)
	if err != nil {
		return nil, fmt.Errorf("webhook serving certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}
