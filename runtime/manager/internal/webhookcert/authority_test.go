package webhookcert

import (
	"context"
	"crypto/x509"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"
)

var secretName = types.NamespacedName{Namespace: "system", Name: "webhook-cert"}

func newAuthority(client *fake.Clientset, clk *clocktesting.FakeClock) *Authority {
	return New(client.CoreV1(), Options{Secret: secretName, Hosts: []string{"svc.system.svc", "127.0.0.1"},
		CAValidity: 90 * time.Minute, CertValidity: 15 * time.Minute, Grace: 2 * time.Minute, Clock: clk})
}

// verify checks that the certificate a serves is valid at now for host
// and chains to bundle.
func verify(t *testing.T, a *Authority, bundle []byte, now time.Time, what string) {
	t.Helper()
	cert, err := a.GetCertificate(nil)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(bundle) {
		t.Fatalf("%s: empty bundle", what)
	}
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "svc.system.svc", CurrentTime: now}); err != nil {
		t.Fatalf("%s: the served certificate (%s to %s) does not verify against the bundle: %v", what, cert.Leaf.NotBefore, cert.Leaf.NotAfter, err)
	}
}

func TestReplicasShareOneSecret(t *testing.T) {
	ctx := context.Background()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	client := fake.NewClientset()
	a, b := newAuthority(client, clk), newAuthority(client, clk)
	if err := a.Valid(); err == nil {
		t.Error("valid before the first Sync")
	}
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ca, _ := a.GetCertificate(nil)
	cb, _ := b.GetCertificate(nil)
	if !ca.Leaf.Equal(cb.Leaf) || string(a.Bundle()) != string(b.Bundle()) {
		t.Error("the replicas serve different certificates")
	}
	if err := a.Valid(); err != nil {
		t.Error(err)
	}
	verify(t, a, a.Bundle(), clk.Now(), "first")
	if got := ca.Leaf.IPAddresses; len(got) != 1 || got[0].String() != "127.0.0.1" {
		t.Errorf("IP SANs %v", got)
	}
	s, err := client.CoreV1().Secrets("system").Get(ctx, "webhook-cert", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{KeyBundle, KeyCert, KeyKey, KeySigningCA, KeySigningKey} {
		if len(s.Data[k]) == 0 {
			t.Errorf("the Secret has no %s", k)
		}
	}
	writes := 0
	for _, act := range client.Actions() {
		if act.GetVerb() == "create" || act.GetVerb() == "update" {
			writes++
		}
	}
	if writes != 1 {
		t.Errorf("%d writes for one Secret that needed nothing after its creation", writes)
	}
}

// TestRotationNeverServesAnUntrustedCertificate runs two replicas through
// several CA lifetimes. The apiserver trusts the bundle injected one step
// ago; every certificate either replica serves must verify against it.
func TestRotationNeverServesAnUntrustedCertificate(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(start)
	client := fake.NewClientset()
	replicas := []*Authority{newAuthority(client, clk), newAuthority(client, clk)}
	if err := replicas[0].Sync(ctx); err != nil {
		t.Fatal(err)
	}
	trusted := replicas[0].Bundle() // what the apiserver has
	replicas[0].MarkInjected(ctx, trusted)
	served := map[string]bool{}
	cas := map[string]bool{}
	for step := 0; clk.Now().Before(start.Add(5 * 90 * time.Minute)); step++ {
		clk.Step(30 * time.Second)
		// One replica syncs per step, the other lags behind it.
		r := replicas[step%2]
		if err := r.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		for i, rep := range replicas {
			if rep.cert.Load() == nil {
				continue
			}
			verify(t, rep, trusted, clk.Now(), "replica "+string(rune('0'+i))+" at "+clk.Now().Sub(start).String())
			c, _ := rep.GetCertificate(nil)
			served[string(c.Leaf.Raw)] = true
			cas[string(c.Leaf.AuthorityKeyId)] = true
		}
		// The injector writes the bundle the replica read, then marks it.
		trusted = r.Bundle()
		if err := r.MarkInjected(ctx, trusted); err != nil {
			t.Fatal(err)
		}
	}
	if len(served) < 20 {
		t.Errorf("%d serving certificates in five CA lifetimes, want one per 10 minutes", len(served))
	}
	if len(cas) < 4 {
		t.Errorf("certificates from %d CAs in five CA lifetimes", len(cas))
	}
}

func TestNoNewCASignsBeforeItsBundleIsInjected(t *testing.T) {
	ctx := context.Background()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	client := fake.NewClientset()
	a := newAuthority(client, clk)
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	first := a.Bundle()
	c0, _ := a.GetCertificate(nil)
	clk.Step(61 * time.Minute) // a third of the CA's 90 minutes left
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if len(a.Bundle()) <= len(first) {
		t.Fatal("no next CA in the bundle")
	}
	clk.Step(10 * time.Minute) // past the grace, but never injected
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	c1, _ := a.GetCertificate(nil)
	if err := c1.Leaf.CheckSignatureFrom(issuer(t, first)); err != nil {
		t.Errorf("the new CA signs before its bundle was injected: %v (first cert %s)", err, c0.Leaf.SerialNumber)
	}
	if err := a.MarkInjected(ctx, a.Bundle()); err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Second)
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	c2, _ := a.GetCertificate(nil)
	if c2.Leaf.CheckSignatureFrom(issuer(t, first)) == nil {
		t.Error("the next CA does not sign once injected and past the grace")
	}
}

func issuer(t *testing.T, bundle []byte) *x509.Certificate {
	t.Helper()
	pool := parse(&corev1.Secret{Data: map[string][]byte{KeyBundle: bundle}}).trusted
	if len(pool) != 1 {
		t.Fatalf("%d CAs", len(pool))
	}
	return pool[0]
}
