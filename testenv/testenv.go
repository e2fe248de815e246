// Package testenv runs a real, local Kubernetes control plane for end-to-end
// tests: etcd, kube-apiserver and kube-controller-manager (garbage collector
// and namespace controllers), each a child process on 127.0.0.1.
//
// The three components are one multi-call binary built from a Go module
// embedded in this package (k8s.io/kubernetes and an embedded etcd, built
// from the module proxy: nothing prebuilt is downloaded) in the user cache
// directory; see BuildBinary. The main module never imports
// k8s.io/kubernetes; this package only builds and runs the binary.
//
//	env, err := testenv.Start(ctx, testenv.Options{})
//	if err != nil { ... }
//	defer env.Stop()
//	cs := kubernetes.NewForConfigOrDie(env.Config())
//
// There are no kubelets or scheduler: Pods never run. Everything else (CRDs,
// RBAC, Leases, namespaces, garbage collection) behaves as on a cluster.
//
// Always call Stop (e.g. in t.Cleanup). If the process dies without it (a
// go test timeout, SIGKILL), the components notice that their parent is gone
// and exit within seconds, but the temporary directory stays behind.
//
// The first build of the binary takes minutes (see BuildBinary); build it
// before running tests with a deadline, e.g. with
// `go run ./testenv/cmd/testenv --build-only`.
package testenv

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Options configures Start. The zero value is a complete control plane in a
// fresh temporary directory.
type Options struct {
	// Dir is the directory for etcd's data, certificates, the kubeconfig and
	// the logs. Empty means a new temporary directory, removed by Stop. A
	// directory given here is kept (only the binary copy in it is removed);
	// Start deletes etcd data left in it by an earlier run and appends to
	// the logs.
	Dir string

	// Logs, if set, receives the output of all components, each line
	// prefixed with "[component] ". The logs are always also written to
	// <Dir>/logs/<component>.log.
	Logs io.Writer

	// DisableControllerManager skips kube-controller-manager: no garbage
	// collection, no namespace deletion and no default ServiceAccounts.
	DisableControllerManager bool

	// DisableWatchCache starts kube-apiserver with --watch-cache=false, so
	// that every watch and list is served by etcd. With the watch cache (the
	// default, as on real clusters) a watch is served from the cache's
	// history, which etcd compaction does not touch; see CompactEtcd.
	DisableWatchCache bool

	// FeatureGates turns kube-apiserver's feature gates on or off, e.g.
	// {"ShardedListAndWatch": true} for server-side sharded lists and
	// watches (alpha in Kubernetes 1.36, off by default). They are passed
	// as --feature-gates, before APIServerFlags.
	FeatureGates map[string]bool

	// APIServerFlags and ControllerManagerFlags are appended to the flags
	// testenv passes (a later flag wins), e.g. "--v=4" or
	// "--watch-cache-sizes=configmaps#0".
	APIServerFlags         []string
	ControllerManagerFlags []string

	// Binary is a prebuilt ctrlplane binary to use instead of building one
	// with BuildBinary.
	Binary string

	// StartTimeout bounds the start of the components (not the build);
	// default 2 minutes.
	StartTimeout time.Duration

	// CRDDirectoryPaths are installed once the apiserver is ready, and
	// Start returns once every CRD in them is Established: directories
	// of CRD manifests (config/crd, as ctrlgen --crd-dir writes it) or
	// files; see Env.InstallCRDs. envtest's option of the same name.
	CRDDirectoryPaths []string
}

// Env is a running control plane. Its methods are safe for concurrent use.
type Env struct {
	opts    Options
	dir     string
	ownDir  bool // created by Start, removed by Stop
	bin     string
	pki     *pki
	logsMu  sync.Mutex
	http    *http.Client // for readiness checks and the probe; trusts the CA
	etcdURL string
	apiHost string // https://127.0.0.1:PORT
	apiPort int
	kubecfg string

	mu       sync.Mutex // guards the fields below and serializes Start/Stop operations
	etcd     *proc
	api      *proc
	kcm      *proc
	stopped  bool
	stopErr  error
	apiFlags []string
}

// Component names, as in log file names and ctrlplane subcommands.
const (
	Etcd                  = "etcd"
	KubeAPIServer         = "kube-apiserver"
	KubeControllerManager = "kube-controller-manager"
)

// Start builds the control-plane binary if needed (see BuildBinary), then
// starts etcd, kube-apiserver and (unless disabled) kube-controller-manager
// on free ports of 127.0.0.1. It returns once kube-apiserver's /readyz is ok
// and the garbage collector has deleted a probe object, i.e. the
// controller manager is working. On failure it stops whatever it started and
// the error includes the end of the failing component's log.
func Start(ctx context.Context, opts Options) (env *Env, err error) {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	e := &Env{opts: opts}
	if opts.Dir != "" {
		if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
			return nil, err
		}
		e.dir, err = filepath.Abs(opts.Dir)
		if err != nil {
			return nil, err
		}
	} else {
		e.dir, err = os.MkdirTemp("", "ctrlgen-testenv-")
		if err != nil {
			return nil, err
		}
		e.ownDir = true
	}
	defer func() {
		if err != nil {
			_ = e.Stop()
		}
	}()
	if err := os.MkdirAll(filepath.Join(e.dir, "logs"), 0o755); err != nil {
		return nil, err
	}

	e.bin = filepath.Join(e.dir, "ctrlplane")
	// A kept Dir may hold the binary and the data of an earlier run.
	for _, p := range []string{e.bin, filepath.Join(e.dir, "etcd")} {
		if err := os.RemoveAll(p); err != nil {
			return nil, err
		}
	}
	if opts.Binary != "" {
		if err := snapshotBinary(opts.Binary, e.bin); err != nil {
			return nil, fmt.Errorf("testenv: Options.Binary: %w", err)
		}
	} else if _, err := buildBinary(ctx, e.logf, e.bin); err != nil {
		return nil, err
	}

	if e.pki, err = writePKI(filepath.Join(e.dir, "pki")); err != nil {
		return nil, fmt.Errorf("testenv: generating certificates: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(e.pki.caPEM)
	e.http = &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true},
	}

	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	// Free ports can be taken by someone else between our check and the
	// child's bind, so a start that fails on "address already in use" is
	// retried with new ports.
	for attempt := 1; ; attempt++ {
		err = e.startEtcdAndAPIServer(ctx)
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			break
		}
		e.logf("testenv: port conflict, retrying: %v", err)
		e.mu.Lock()
		for _, p := range []*proc{e.api, e.etcd} {
			if p != nil {
				_ = p.stop(0)
			}
		}
		e.api, e.etcd = nil, nil
		e.mu.Unlock()
		_ = os.RemoveAll(filepath.Join(e.dir, "etcd"))
	}
	if err != nil {
		return nil, err
	}
	if err := e.writeKubeconfig(); err != nil {
		return nil, err
	}
	if len(opts.CRDDirectoryPaths) > 0 {
		if err := e.InstallCRDs(ctx, opts.CRDDirectoryPaths...); err != nil {
			return nil, err
		}
	}
	if !opts.DisableControllerManager {
		if err := e.startControllerManager(ctx); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *Env) logf(format string, args ...any) {
	if e.opts.Logs == nil {
		return
	}
	e.logsMu.Lock()
	defer e.logsMu.Unlock()
	fmt.Fprintf(e.opts.Logs, format+"\n", args...)
}

func (e *Env) logPath(component string) string {
	return filepath.Join(e.dir, "logs", component+".log")
}

func (e *Env) start(component string, args []string) (*proc, error) {
	return startProc(e.bin, e.dir, component, e.logPath(component), args, e.opts.Logs, &e.logsMu)
}

func (e *Env) startEtcdAndAPIServer(ctx context.Context) error {
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	clientPort, peerPort := ports[0], ports[1]
	e.etcdURL = "http://127.0.0.1:" + strconv.Itoa(clientPort)
	e.apiPort = ports[2]
	e.apiHost = "https://127.0.0.1:" + strconv.Itoa(e.apiPort)

	etcd, err := e.start(Etcd, []string{
		"--name", "testenv",
		"--data-dir", filepath.Join(e.dir, "etcd"),
		"--listen-client-urls", e.etcdURL,
		"--listen-peer-urls", "http://127.0.0.1:" + strconv.Itoa(peerPort),
		"--unsafe-no-fsync", // a throwaway test store: fsync only costs time
	})
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.etcd = etcd
	e.mu.Unlock()
	t0 := time.Now()
	if err := e.waitReady(ctx, etcd, e.etcdURL+"/health", false); err != nil {
		return err
	}
	e.logf("testenv: etcd ready in %v at %s", time.Since(t0).Round(time.Millisecond), e.etcdURL)

	p := e.pki
	e.apiFlags = []string{
		"--etcd-servers", e.etcdURL,
		"--secure-port", strconv.Itoa(e.apiPort),
		"--bind-address", "127.0.0.1",
		"--advertise-address", "127.0.0.1",
		"--cert-dir", filepath.Join(e.dir, "pki"),
		"--tls-cert-file", p.certFile,
		"--tls-private-key-file", p.keyFile,
		"--token-auth-file", p.tokenFile,
		"--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", p.saKeyFile,
		"--service-account-signing-key-file", p.saKeyFile,
		"--service-cluster-ip-range", "10.96.0.0/16",
		// No endpoints for the "kubernetes" Service: they would point at
		// 127.0.0.1, which the apiserver rejects with noisy errors.
		"--endpoint-reconciler-type", "none",
	}
	if e.opts.DisableWatchCache {
		e.apiFlags = append(e.apiFlags, "--watch-cache=false")
	}
	if gates := featureGates(e.opts.FeatureGates); gates != "" {
		e.apiFlags = append(e.apiFlags, "--feature-gates", gates)
	}
	e.apiFlags = append(e.apiFlags, e.opts.APIServerFlags...)
	return e.startAPIServerLocked(ctx)
}

// startAPIServerLocked starts kube-apiserver and waits for /readyz. The
// caller holds e.mu, or is Start (no other users yet).
func (e *Env) startAPIServerLocked(ctx context.Context) error {
	t0 := time.Now()
	api, err := e.start(KubeAPIServer, e.apiFlags)
	if err != nil {
		return err
	}
	e.api = api
	if err := e.waitReady(ctx, api, e.apiHost+"/readyz", true); err != nil {
		return err
	}
	e.logf("testenv: kube-apiserver ready in %v at %s", time.Since(t0).Round(time.Millisecond), e.apiHost)
	return nil
}

// waitReady polls url until it answers 200, failing early if p exits.
func (e *Env) waitReady(ctx context.Context, p *proc, url string, auth bool) error {
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if auth {
			req.Header.Set("Authorization", "Bearer "+e.pki.adminToken)
		}
		resp, err := e.http.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, bytes.TrimSpace(body))
		} else {
			last = err.Error()
		}
		select {
		case <-p.done:
			return e.componentError(p, fmt.Errorf("exited before it was ready: %v", exitStatus(p.err)))
		case <-ctx.Done():
			return e.componentError(p, fmt.Errorf("not ready: %w; last answer from %s: %s", context.Cause(ctx), url, last))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// componentError wraps err with the component's name and the tail of its log.
func (e *Env) componentError(p *proc, err error) error {
	if !p.exited() {
		// Let the log catch up a little if the process is in its last throes.
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("testenv: %s: %w\n--- last lines of %s ---\n%s", p.name, err, p.logPath, logTail(p.logPath, 40))
}

func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close() // held until all n are chosen, so they differ
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func (e *Env) writeKubeconfig() error {
	e.kubecfg = filepath.Join(e.dir, "admin.kubeconfig")
	return os.WriteFile(e.kubecfg, []byte(e.Kubeconfig()), 0o600)
}

// Kubeconfig returns the admin kubeconfig (YAML): user "admin" in group
// system:masters, authenticated by a static bearer token.
func (e *Env) Kubeconfig() string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: testenv
  context:
    cluster: testenv
    user: admin
current-context: testenv
`, e.apiHost, base64.StdEncoding.EncodeToString(e.pki.caPEM), e.pki.adminToken)
}

func (e *Env) startControllerManager(ctx context.Context) error {
	args := append([]string{
		"--kubeconfig", e.kubecfg,
		// The ServiceAccount controllers give each namespace its default
		// ServiceAccount, which kubectl create token and Pods need.
		"--controllers", "garbagecollector,namespace,serviceaccount,serviceaccount-token",
		"--service-account-private-key-file", e.pki.saKeyFile,
		"--root-ca-file", filepath.Join(e.dir, "pki", "ca.crt"),
		"--leader-elect=false",
		"--secure-port", "0",
	}, e.opts.ControllerManagerFlags...)
	kcm, err := e.start(KubeControllerManager, args)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.kcm = kcm
	e.mu.Unlock()
	t0 := time.Now()
	if err := e.probeGarbageCollector(ctx, kcm); err != nil {
		return err
	}
	e.logf("testenv: kube-controller-manager's garbage collector working after %v", time.Since(t0).Round(time.Millisecond))
	return nil
}

// probeGarbageCollector creates a ConfigMap owned by another one in the
// default namespace, deletes the owner, and waits until the garbage collector
// has deleted the dependent. The garbage collector only acts once its
// informers have synced, so this shows that kube-controller-manager is
// working. (The namespace controller has no such start-up wait.)
func (e *Env) probeGarbageCollector(ctx context.Context, kcm *proc) error {
	base := e.apiHost + "/api/v1/namespaces/default/configmaps"
	suffix := strconv.FormatInt(time.Now().UnixNano(), 36)
	owner, dependent := "testenv-gc-probe-owner-"+suffix, "testenv-gc-probe-dependent-"+suffix

	var uid string
	err := e.retry(ctx, kcm, func() error {
		var obj struct {
			Metadata struct{ UID string } `json:"metadata"`
		}
		// The default namespace is created by the apiserver shortly after
		// it is ready; retry until it exists.
		code, err := e.do(ctx, http.MethodPost, base, map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": owner},
		}, &obj)
		if err == nil && code == http.StatusCreated {
			uid = obj.Metadata.UID
			return nil
		}
		return fmt.Errorf("creating the probe owner: %d %v", code, err)
	})
	if err != nil {
		return err
	}
	err = e.retry(ctx, kcm, func() error {
		code, err := e.do(ctx, http.MethodPost, base, map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{
				"name": dependent,
				"ownerReferences": []any{map[string]any{
					"apiVersion": "v1", "kind": "ConfigMap", "name": owner, "uid": uid, "controller": true,
				}},
			},
		}, nil)
		if err == nil && (code == http.StatusCreated || code == http.StatusConflict) {
			return nil
		}
		return fmt.Errorf("creating the probe dependent: %d %v", code, err)
	})
	if err != nil {
		return err
	}
	err = e.retry(ctx, kcm, func() error {
		code, err := e.do(ctx, http.MethodDelete, base+"/"+owner, map[string]any{
			"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Background",
		}, nil)
		if err == nil && (code == http.StatusOK || code == http.StatusNotFound) {
			return nil
		}
		return fmt.Errorf("deleting the probe owner: %d %v", code, err)
	})
	if err != nil {
		return err
	}
	return e.retry(ctx, kcm, func() error {
		code, err := e.do(ctx, http.MethodGet, base+"/"+dependent, nil, nil)
		if err == nil && code == http.StatusNotFound {
			return nil
		}
		return fmt.Errorf("the garbage collector has not deleted the probe dependent yet: %d %v", code, err)
	})
}

// retry calls f every 100ms until it succeeds, p exits or ctx is done.
func (e *Env) retry(ctx context.Context, p *proc, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return e.componentError(p, fmt.Errorf("exited: %v", exitStatus(p.err)))
		case <-ctx.Done():
			return e.componentError(p, fmt.Errorf("%w: %v", context.Cause(ctx), err))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// do sends a JSON request to kube-apiserver as admin and decodes a JSON answer
// into out (if not nil). It returns the HTTP status code.
func (e *Env) do(ctx context.Context, method, url string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+e.pki.adminToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := e.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if out != nil && resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, err
		}
	}
	return resp.StatusCode, nil
}

// Config returns a new copy of the admin client configuration (a bearer
// token in group system:masters; TLS verified against the env's CA). QPS and
// Burst are raised to 100 and 200 so that tests aren't throttled by
// client-go's defaults.
func (e *Env) Config() *rest.Config {
	return &rest.Config{
		Host:            e.apiHost,
		BearerToken:     e.pki.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: append([]byte(nil), e.pki.caPEM...)},
		QPS:             100,
		Burst:           200,
	}
}

// KubeconfigPath returns the path of the admin kubeconfig file (see Kubeconfig).
func (e *Env) KubeconfigPath() string { return e.kubecfg }

// Dir returns the environment's directory: etcd data, certificates, the
// kubeconfig and logs/<component>.log.
func (e *Env) Dir() string { return e.dir }

// EtcdURL returns etcd's client URL (http://127.0.0.1:PORT, no TLS, no auth).
func (e *Env) EtcdURL() string { return e.etcdURL }

// PIDs returns the process IDs of the running components, by name.
func (e *Env) PIDs() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := map[string]int{}
	for _, p := range []*proc{e.etcd, e.api, e.kcm} {
		if p != nil && !p.exited() {
			m[p.name] = p.pid()
		}
	}
	return m
}

// StopAPIServer kills kube-apiserver with SIGKILL, like a crash: open
// connections and watches are cut without any goodbye. etcd and the
// controller manager keep running. It returns once the process is gone.
func (e *Env) StopAPIServer(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return errors.New("testenv: the environment is stopped")
	}
	if e.api == nil || e.api.exited() {
		return nil
	}
	return e.api.stop(0)
}

// StartAPIServer starts kube-apiserver again, on the same port with the same
// etcd and flags, and waits until /readyz is ok. Clients made from Config
// keep working. It is an error if the apiserver is running.
func (e *Env) StartAPIServer(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return errors.New("testenv: the environment is stopped")
	}
	if e.api != nil && !e.api.exited() {
		return errors.New("testenv: kube-apiserver is already running")
	}
	ctx, cancel := context.WithTimeout(ctx, e.opts.StartTimeout)
	defer cancel()
	// The port was just released by the old process. Another process could
	// grab it in between (very unlikely); retry briefly on a conflict.
	var err error
	for attempt := 1; attempt <= 5; attempt++ {
		if err = e.startAPIServerLocked(ctx); err == nil || !strings.Contains(err.Error(), "address already in use") {
			break
		}
		time.Sleep(time.Second)
	}
	return err
}

// RestartAPIServer is StopAPIServer followed by StartAPIServer. The new
// apiserver's watch caches start from the current state, so a watch from a
// resourceVersion older than the last change of its resource before the
// restart gets 410 Gone (for the cached resources; see CompactEtcd for the
// others). Right after the restart a watch may first get 429 Too Many
// Requests while its cache initializes.
func (e *Env) RestartAPIServer(ctx context.Context) error {
	if err := e.StopAPIServer(ctx); err != nil {
		return err
	}
	return e.StartAPIServer(ctx)
}

// Stop stops all components (SIGTERM to each process group, SIGKILL after
// 10 seconds; controller manager, then apiserver, then etcd) and removes the
// directory if Start created it. It is idempotent; later calls return the
// first call's result.
func (e *Env) Stop() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return e.stopErr
	}
	e.stopped = true
	var errs []error
	for _, p := range []*proc{e.kcm, e.api, e.etcd} {
		if p != nil {
			if err := p.stop(10 * time.Second); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if e.http != nil {
		e.http.CloseIdleConnections()
	}
	if e.ownDir {
		if err := os.RemoveAll(e.dir); err != nil {
			errs = append(errs, err)
		}
	} else if e.bin != "" {
		_ = os.Remove(e.bin)
	}
	e.stopErr = errors.Join(errs...)
	return e.stopErr
}

// featureGates is the --feature-gates value of gates, in name order:
// "A=true,B=false".
func featureGates(gates map[string]bool) string {
	parts := make([]string, 0, len(gates))
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		parts = append(parts, name+"="+strconv.FormatBool(gates[name]))
	}
	return strings.Join(parts, ",")
}
