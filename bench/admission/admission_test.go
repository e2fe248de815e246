// Package admission measures admission webhooks on a real apiserver:
// ctrlgen's (runtime/manager serving the wiring +ctrlgen:webhook
// generated for examples/mydemo) against controller-runtime v0.25's
// webhook server, with the same Defaulter and Validator, the same
// webhook configurations and the same Mydemos. Each side serves in a
// process of its own, this test binary started again, so that its CPU
// time is the webhook server's alone; the apiserver calls it for every
// create the benchmark sends (dry runs: both webhooks, no storage).
package admission

import (
	"bufio"
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchenv"
	"github.com/ctrlgen/ctrlgen/bench/internal/procstat"
	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	mydemowebhook "github.com/ctrlgen/ctrlgen/examples/mydemo/webhooks/mydemo"
	"github.com/ctrlgen/ctrlgen/testenv"
)

// impls are the two sides, in the order a round starts with.
var impls = []string{"ctrlgen", "controller-runtime"}

// The child's environment: which side it is, where it serves, the
// certificate directory (tls.crt, tls.key) and the kubeconfig.
const (
	childImpl       = "ADMISSIONBENCH_CHILD_IMPL"
	childAddr       = "ADMISSIONBENCH_CHILD_ADDR"
	childCertDir    = "ADMISSIONBENCH_CHILD_CERT_DIR"
	childKubeconfig = "ADMISSIONBENCH_CHILD_KUBECONFIG"
	// childCPUProfile (BENCH_PROFILE, passed on), when set, is the file
	// each child writes a CPU profile of its whole run to, suffixed with
	// its side.
	childCPUProfile = "BENCH_PROFILE"
)

var shared benchenv.Shared[*harness]

func TestMain(m *testing.M) {
	if impl := os.Getenv(childImpl); impl != "" {
		if err := runChild(impl); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", impl, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	shared.Main(m)
}

type harness struct {
	env     *testenv.Env
	kube    kubernetes.Interface
	md      versioned.Interface
	certDir string
	caPEM   []byte
	ns      string
}

func (h *harness) Stop() error {
	os.RemoveAll(h.certDir)
	return h.env.Stop()
}

func controlPlane(tb testing.TB) *harness {
	return shared.Get(tb, "needs a local control plane (testenv)", startHarness)
}

func startHarness() (_ *harness, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	env, err := testenv.Start(ctx, testenv.Options{DisableControllerManager: true})
	if err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	defer func() {
		if err != nil {
			env.Stop()
		}
	}()
	cfg := env.Config()
	cfg.QPS, cfg.Burst = -1, 0 // the apiserver's, not the client's, limits
	h := &harness{env: env, kube: kubernetes.NewForConfigOrDie(cfg), md: versioned.NewForConfigOrDie(cfg)}
	if err := benchenv.InstallMydemoCRD(ctx, cfg, h.md); err != nil {
		return nil, err
	}
	ns, err := h.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "admission-"}}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	h.ns = ns.Name
	if h.certDir, err = os.MkdirTemp("", "admission-bench-"); err != nil {
		return nil, err
	}
	if h.caPEM, err = writeCert(h.certDir); err != nil {
		return nil, err
	}
	return h, nil
}

// writeCert writes a self-signed certificate for 127.0.0.1 as tls.crt and
// tls.key in dir, and returns it, the CA bundle of the webhooks.
func writeCert(dir string) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600); err != nil {
		return nil, err
	}
	return certPEM, os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}

// server is one side serving in its own process.
type server struct {
	impl, addr string
	cmd        *exec.Cmd
	done       chan error
}

// serve starts impl's webhook server and points the webhook
// configurations at it; it returns once the apiserver calls it.
func (h *harness) serve(tb testing.TB, impl string) *server {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	kubeconfig := filepath.Join(tb.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(h.env.Kubeconfig()), 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childImpl+"="+impl, childAddr+"="+addr, childCertDir+"="+h.certDir, childKubeconfig+"="+kubeconfig)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s := &server{impl: impl, addr: addr, cmd: cmd, done: make(chan error, 1)}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "serving" {
				close(ready)
			}
		}
		s.done <- cmd.Wait()
	}()
	select {
	case <-ready:
	case err := <-s.done:
		tb.Fatalf("%s exited before serving: %v", impl, err)
	case <-time.After(time.Minute):
		s.stop(tb)
		tb.Fatalf("%s did not serve within a minute", impl)
	}
	h.configure(tb, addr)
	ctx := context.Background()
	err = benchenv.Poll(ctx, time.Minute, "the apiserver to call "+impl, func() (bool, error) {
		_, err := h.md.CrddemoV1().Mydemos(h.ns).Create(ctx, mydemo(h.ns, "probe", "not-an-ip"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil && strings.Contains(err.Error(), `admission webhook "vmydemo-v1.kb.io" denied the request`), err
	})
	if err != nil {
		s.stop(tb)
		tb.Fatal(err)
	}
	return s
}

func (s *server) stop(tb testing.TB) {
	tb.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		tb.Errorf("%s did not stop within 30s of SIGTERM", s.impl)
	}
}

// configure (re)creates the webhook configurations ctrlgen generated for
// Mydemo, calling addr, for the harness's namespace only.
func (h *harness) configure(tb testing.TB, addr string) {
	tb.Helper()
	ctx := context.Background()
	fail, none, equivalent := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.Equivalent
	only := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": h.ns}}
	client := func(path string) admissionregistrationv1.WebhookClientConfig {
		u := "https://" + addr + path
		return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: h.caPEM}
	}
	rule := func(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{crddemov1.GroupName}, APIVersions: []string{"v1"}, Resources: []string{"mydemos"}}}}
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "admission-bench"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "mmydemo-v1.kb.io", ClientConfig: client(mydemowebhook.DefaultingPath),
			Rules: rule(admissionregistrationv1.Create, admissionregistrationv1.Update), FailurePolicy: &fail, MatchPolicy: &equivalent,
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: only}}}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "admission-bench"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "vmydemo-v1.kb.io", ClientConfig: client(mydemowebhook.ValidationPath),
			Rules: rule(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete), FailurePolicy: &fail,
			MatchPolicy: &equivalent, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: only}}}
	regs := h.kube.AdmissionregistrationV1()
	regs.MutatingWebhookConfigurations().Delete(ctx, mutating.Name, metav1.DeleteOptions{})
	regs.ValidatingWebhookConfigurations().Delete(ctx, validating.Name, metav1.DeleteOptions{})
	if _, err := regs.MutatingWebhookConfigurations().Create(ctx, mutating, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	if _, err := regs.ValidatingWebhookConfigurations().Create(ctx, validating, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
}

func mydemo(ns, name, ip string) *crddemov1.Mydemo {
	return &crddemov1.Mydemo{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: crddemov1.MydemoSpec{IP: ip, Data: map[string]string{"greeting": "hello", "mode": "bench"}}}
}

// result is what a load of creates measured.
type result struct {
	reviews  int           // admission reviews the side answered
	cpu      time.Duration // the side's CPU time for them
	p50, p99 time.Duration // of the creates, as their client saw them
}

// load sends n dry-run creates of valid Mydemos, without a port so that
// the defaulter patches them, from workers goroutines, and measures s.
func (h *harness) load(tb testing.TB, s *server, n, workers int) result {
	tb.Helper()
	ctx := context.Background()
	r := measure(tb, s, n, workers, func(i int) error {
		got, err := h.md.CrddemoV1().Mydemos(h.ns).Create(ctx, mydemo(h.ns, fmt.Sprintf("m-%d", i), "10.0.0.1"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil && got.Spec.Port != mydemowebhook.DefaultPort {
			err = fmt.Errorf("port %d, want the default %d", got.Spec.Port, mydemowebhook.DefaultPort)
		}
		return err
	})
	r.reviews *= 2 // a mutating and a validating review each
	return r
}

// measure calls request(i) for i in [0, n) from workers goroutines, and
// returns the CPU time s used meanwhile and the calls' latencies; the
// first error fails tb.
func measure(tb testing.TB, s *server, n, workers int, request func(i int) error) result {
	tb.Helper()
	before, err := procstat.CPU(s.cmd.Process.Pid)
	if err != nil {
		tb.Fatal(err)
	}
	latencies := make([]time.Duration, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				start := time.Now()
				err := request(i)
				latencies[i] = time.Since(start)
				if err != nil {
					mu.Lock()
					firstErr = cmp.Or(firstErr, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		tb.Fatalf("%s: %v", s.impl, firstErr)
	}
	after, err := procstat.CPU(s.cmd.Process.Pid)
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(latencies)
	return result{reviews: n, cpu: after - before, p50: latencies[n/2], p99: latencies[n*99/100]}
}

// TestBothSidesServe checks the harness: each side defaults and
// validates through the real apiserver.
func TestBothSidesServe(t *testing.T) {
	h := controlPlane(t)
	for _, impl := range impls {
		t.Run(impl, func(t *testing.T) {
			s := h.serve(t, impl)
			defer s.stop(t)
			r := h.load(t, s, 20, 4)
			if r.cpu <= 0 {
				t.Errorf("%s used no CPU for %d reviews", impl, r.reviews)
			}
			// controller-runtime answers the field errors with 403
			// Forbidden; ctrlgen with the apiserver's 422 Invalid.
			_, err := h.md.CrddemoV1().Mydemos(h.ns).Create(context.Background(), mydemo(h.ns, "bad", "not-an-ip"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil || !strings.Contains(err.Error(), `spec.ip: Invalid value: "not-an-ip"`) {
				t.Errorf("%s: an invalid Mydemo: %v", impl, err)
			}
			if impl == "ctrlgen" && !apierrors.IsInvalid(err) {
				t.Errorf("ctrlgen's refusal is not Invalid: %v", err)
			}
		})
	}
}

// BenchmarkAdmission: b.N creates, each reviewed by both webhooks, per
// side; cpu-ns/review is the webhook process's CPU time per review, and
// p50-ms and p99-ms the creates' latency. Rounds (-count) alternate
// which side goes first.
func BenchmarkAdmission(b *testing.B) {
	h := controlPlane(b)
	order := slices.Clone(impls)
	if round.Add(1)%2 == 0 {
		slices.Reverse(order)
	}
	for _, impl := range order {
		b.Run("impl="+impl, func(b *testing.B) {
			s := h.serve(b, impl)
			defer s.stop(b)
			h.load(b, s, 200, 8) // warm up: connections, caches, the JIT of nothing
			b.ResetTimer()
			r := h.load(b, s, max(b.N, 1)*benchN, benchWorkers)
			b.ReportMetric(float64(r.cpu.Nanoseconds())/float64(r.reviews), "cpu-ns/review")
			b.ReportMetric(float64(r.p50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(r.p99.Microseconds())/1000, "p99-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// round and conversionRound count the benchmarks' rounds, to alternate
// the first side.
var round, conversionRound atomic.Int32

// benchN creates per b.N (BENCH_N), from benchWorkers goroutines.
var benchN, benchWorkers = benchenv.EnvInt("BENCH_N", 2000), benchenv.EnvInt("BENCH_WORKERS", 8)
