package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
	"github.com/ctrlgen/ctrlgen/testenv"
)

// Helpers for the tests that run the Mydemo example (examples/mydemo)
// against the shared control plane.

// mydemoCRDFile is the example's CRD, generated from its types by the
// crd generator, relative to this package.
const mydemoCRDFile = "../examples/mydemo/config/crd/crddemo.k8s.io_mydemos.yaml"

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

var mydemoCRDOnce struct {
	sync.Mutex
	done bool
}

// installMydemoCRD creates the Mydemo CRD from the example's config (once
// per control plane; an existing one is kept) and waits until it is
// Established and Mydemos can be listed. Tests that need the garbage
// collector to delete the dependents of Mydemos also call
// waitGarbageCollectorKnowsMydemos.
func installMydemoCRD(t *testing.T, e *testenv.Env) {
	t.Helper()
	mydemoCRDOnce.Lock()
	defer mydemoCRDOnce.Unlock()
	if mydemoCRDOnce.done {
		return
	}
	ctx := context.Background()
	createCRD(t, e, mydemoCRDFile)
	// Established means the apiserver serves the resource; make sure the
	// typed client agrees before tests start writing.
	md := mydemoClient(t, e)
	eventually(t, time.Minute, "Mydemos to be served", func() (bool, string) {
		if _, err := md.CrddemoV1().Mydemos("default").List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	mydemoCRDOnce.done = true
}

// createCRD installs the CRD in file with testenv and waits until it is
// Established.
func createCRD(t *testing.T, e *testenv.Env, file string) {
	t.Helper()
	if err := e.InstallCRDs(context.Background(), file); err != nil {
		t.Fatal(err)
	}
}

var gcKnowsMydemos struct {
	sync.Mutex
	done bool
}

// waitGarbageCollectorKnowsMydemos waits until the garbage collector deletes
// the dependents of deleted Mydemos. It learns of new resources only when it
// re-runs discovery (every 30s); until then it cannot resolve a Mydemo
// owner and retries such dependents with exponential backoff, so a test
// that deleted Mydemos right after the CRD was installed would wait a long
// time for dependents queued early. Each probe (a Mydemo, a ConfigMap it
// owns, then the Mydemo deleted) starts with a fresh backoff.
func waitGarbageCollectorKnowsMydemos(t *testing.T, md versioned.Interface, kc kubernetes.Interface) {
	t.Helper()
	gcKnowsMydemos.Lock()
	defer gcKnowsMydemos.Unlock()
	if gcKnowsMydemos.done {
		return
	}
	ctx := context.Background()
	const ns = "default"
	start := time.Now()
	deadline := start.Add(2 * time.Minute)
	var dependents []string
	defer func() {
		for _, name := range dependents {
			_ = kc.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{})
		}
	}()
	for i := 0; ; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("the garbage collector did not delete a dependent of a deleted Mydemo within %v", deadline.Sub(start))
		}
		owner, err := md.CrddemoV1().Mydemos(ns).Create(ctx, &crddemov1.Mydemo{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-gc-probe-"},
			Spec:       crddemov1.MydemoSpec{IP: "127.0.0.1", Port: 1},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dep, err := kc.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name:            owner.Name + "-dependent",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: crddemov1.SchemeGroupVersion.String(), Kind: "Mydemo", Name: owner.Name, UID: owner.UID}},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dependents = append(dependents, dep.Name)
		if err := md.CrddemoV1().Mydemos(ns).Delete(ctx, owner.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		for wait := time.Now().Add(2 * time.Second); time.Now().Before(wait); time.Sleep(50 * time.Millisecond) {
			for _, name := range dependents {
				if _, err := kc.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
					t.Logf("the garbage collector handles Mydemo owners after %v (%d probes)", time.Since(start).Round(time.Millisecond), i+1)
					gcKnowsMydemos.done = true
					return
				}
			}
		}
	}
}

// mydemoClient returns the example's generated clientset (Mydemos), with a
// rate limit high enough for bulk writers.
func mydemoClient(t *testing.T, e *testenv.Env) *versioned.Clientset {
	t.Helper()
	cfg := e.Config()
	cfg.QPS, cfg.Burst = 1000, 2000
	c, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// kubeClient returns client-go's clientset (ConfigMaps, as the controller
// writes them), with mydemoClient's rate limit.
func kubeClient(t *testing.T, e *testenv.Env) *kubernetes.Clientset {
	t.Helper()
	cfg := e.Config()
	cfg.QPS, cfg.Burst = 1000, 2000
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newMydemo returns a Mydemo named name in ns.
func newMydemo(ns, name, ip string, port int32, data map[string]string) *crddemov1.Mydemo {
	return &crddemov1.Mydemo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       crddemov1.MydemoSpec{IP: ip, Port: port, Data: data},
	}
}

// mydemoReady reports whether the mydemo controller has reconciled obj's
// current generation successfully: Ready is True for it, the status'
// observedGeneration is the generation, and the ConfigMap is named.
func mydemoReady(obj *crddemov1.Mydemo) (bool, string) {
	c := meta.FindStatusCondition(obj.Status.Conditions, mydemo.ConditionReady)
	switch {
	case c == nil:
		return false, fmt.Sprintf("%s has no Ready condition", obj.Name)
	case c.Status != metav1.ConditionTrue:
		return false, fmt.Sprintf("%s is not Ready: %s: %s", obj.Name, c.Reason, c.Message)
	case c.ObservedGeneration != obj.Generation:
		return false, fmt.Sprintf("%s: Ready is for generation %d, the object is at %d", obj.Name, c.ObservedGeneration, obj.Generation)
	case obj.Status.ObservedGeneration != obj.Generation:
		return false, fmt.Sprintf("%s: status.observedGeneration %d, generation %d", obj.Name, obj.Status.ObservedGeneration, obj.Generation)
	case obj.Status.ConfigMapName != mydemo.ConfigMapName(obj):
		return false, fmt.Sprintf("%s: status.configMapName %q", obj.Name, obj.Status.ConfigMapName)
	}
	return true, ""
}

// waitMydemosReady waits until every named Mydemo in ns is Ready (see
// mydemoReady).
func waitMydemosReady(t *testing.T, md versioned.Interface, ns string, timeout time.Duration, names ...string) {
	t.Helper()
	poll(t, timeout, 100*time.Millisecond, fmt.Sprintf("%d Mydemos to be Ready", len(names)), func() (bool, string) {
		list, err := md.CrddemoV1().Mydemos(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		byName := map[string]*crddemov1.Mydemo{}
		for i := range list.Items {
			byName[list.Items[i].Name] = &list.Items[i]
		}
		for _, n := range names {
			obj := byName[n]
			if obj == nil {
				return false, n + " does not exist"
			}
			if ok, why := mydemoReady(obj); !ok {
				return false, why
			}
		}
		return true, ""
	})
}

// inProcessManager is a runtime/manager Manager run by the test.
type inProcessManager struct {
	addr   string        // of its metrics and health server
	done   chan struct{} // closed when Run has returned
	err    error         // Run's result, set before done is closed
	cancel context.CancelFunc
}

// stop cancels Run's context and waits for it to return.
func (m *inProcessManager) stop(t *testing.T) {
	t.Helper()
	m.cancel()
	select {
	case <-m.done:
	case <-time.After(time.Minute):
		t.Fatal("the manager did not stop within a minute of its context being cancelled")
	}
}

// exited reports whether Run has returned, and with what.
func (m *inProcessManager) exited() (bool, error) {
	select {
	case <-m.done:
		return true, m.err
	default:
		return false, nil
	}
}

// startManager runs a manager in this process, without leader election,
// with the controllers register adds, and waits until it is ready (its
// informers synced). On cleanup it is stopped, and must return nil.
func startManager(t *testing.T, kubeconfig string, workers int, register func(*manager.Manager)) *inProcessManager {
	t.Helper()
	o := manager.DefaultOptions()
	o.Kubeconfig, o.LeaderElect, o.Workers = kubeconfig, false, workers
	return startManagerWith(t, o, register)
}

// startManagerWith is startManager with options of the test's own; the
// metrics and probes are served on one fresh address over plain HTTP.
func startManagerWith(t *testing.T, o manager.Options, register func(*manager.Manager)) *inProcessManager {
	t.Helper()
	addr := localAddr(t)
	o.MetricsAddr, o.HealthAddr = addr, addr
	o.MetricsSecure = false // plain HTTP, shared with the probes: metrics_test.go is about security
	m := manager.New(o)
	register(m)
	ctx, cancel := context.WithCancel(context.Background())
	r := &inProcessManager{addr: addr, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(r.done)
		r.err = m.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
			if r.err != nil {
				t.Errorf("manager: %v", r.err)
			}
		case <-time.After(time.Minute):
			t.Error("the manager did not stop within a minute of its context being cancelled")
		}
	})
	poll(t, time.Minute, 20*time.Millisecond, "the manager to be ready", func() (bool, string) {
		if exited, err := r.exited(); exited {
			t.Fatalf("the manager returned early: %v", err)
		}
		code, body, err := httpGet("http://" + addr + "/readyz")
		if err != nil {
			return false, err.Error()
		}
		return code == http.StatusOK, fmt.Sprintf("/readyz: %d %s", code, body)
	})
	return r
}

// poll is eventually with a chosen interval, for conditions that are
// expensive to evaluate.
func poll(t *testing.T, timeout, interval time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %s", timeout, what, why)
		}
		time.Sleep(interval)
	}
}

// localAddr returns a 127.0.0.1 address with a port that was free a moment
// ago, for a server the test starts (in process or in a child).
func localAddr(t *testing.T) string {
	t.Helper()
	return localAddrs(t, 1)[0]
}

// localAddrs is localAddr for n distinct addresses.
func localAddrs(t *testing.T, n int) []string {
	t.Helper()
	var addrs []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close() // only after all are chosen, so that they differ
		addrs = append(addrs, ln.Addr().String())
	}
	return addrs
}

var httpClient = &http.Client{Timeout: 5 * time.Second}

// httpGet returns the status code and body of GET url; code 0 if the
// request failed.
func httpGet(url string) (int, string, error) {
	resp, err := httpClient.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// metrics is a scrape of a Prometheus text exposition.
type metrics string

// scrape reads http://addr/metrics, of a manager run with MetricsSecure off.
func scrape(addr string) (metrics, error) {
	code, body, err := httpGet("http://" + addr + "/metrics")
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("GET /metrics: %d %s", code, body)
	}
	return metrics(body), err
}

// sum adds the samples of the metric name whose labels include labels
// ("k", "v" pairs); found says whether any sample matched.
func (m metrics) sum(name string, labels ...string) (total float64, found bool) {
	for line := range strings.Lines(string(m)) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		n, ls, value, ok := parseSample(line)
		if !ok || n != name {
			continue
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			if ls[labels[i]] != labels[i+1] {
				match = false
				break
			}
		}
		if match {
			total += value
			found = true
		}
	}
	return total, found
}

// get is sum for a metric that must be there.
func (m metrics) get(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	v, ok := m.sum(name, labels...)
	if !ok {
		t.Fatalf("no sample of %s%v in the scrape", name, labels)
	}
	return v
}

// parseSample parses `name{k="v",...} value [timestamp]`.
func parseSample(line string) (name string, labels map[string]string, value float64, ok bool) {
	labels = map[string]string{}
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return "", nil, 0, false
	}
	name, rest := line[:i], line[i:]
	if rest[0] == '{' {
		rest = rest[1:]
		for {
			rest = strings.TrimLeft(rest, ", ")
			if rest == "" {
				return "", nil, 0, false
			}
			if rest[0] == '}' {
				rest = rest[1:]
				break
			}
			eq := strings.IndexByte(rest, '=')
			if eq < 0 || eq+1 >= len(rest) || rest[eq+1] != '"' {
				return "", nil, 0, false
			}
			key := strings.TrimSpace(rest[:eq])
			rest = rest[eq+2:]
			var val strings.Builder
			closed := false
			for j := 0; j < len(rest); j++ {
				switch c := rest[j]; {
				case c == '\\' && j+1 < len(rest):
					j++
					switch rest[j] {
					case 'n':
						val.WriteByte('\n')
					default:
						val.WriteByte(rest[j])
					}
				case c == '"':
					rest, closed = rest[j+1:], true
				default:
					val.WriteByte(c)
				}
				if closed {
					break
				}
			}
			if !closed {
				return "", nil, 0, false
			}
			labels[key] = val.String()
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", nil, 0, false
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return "", nil, 0, false
	}
	return name, labels, v, true
}

func TestParseSample(t *testing.T) {
	m := metrics(`# HELP x y
controller_runtime_reconcile_total{controller="mydemo",result="success"} 12
controller_runtime_reconcile_total{controller="mydemo",result="error"} 3
controller_runtime_reconcile_total{controller="other",result="error"} 100
leader_election_master_status{name="a\"b,c}"} 1
go_goroutines 42 1700000000000
`)
	if v, _ := m.sum("controller_runtime_reconcile_total", "controller", "mydemo"); v != 15 {
		t.Errorf("mydemo total = %v", v)
	}
	if v, _ := m.sum("controller_runtime_reconcile_total", "result", "error"); v != 103 {
		t.Errorf("errors = %v", v)
	}
	if v, ok := m.sum("leader_election_master_status", "name", `a"b,c}`); !ok || v != 1 {
		t.Errorf("leader = %v, %v", v, ok)
	}
	if v, ok := m.sum("go_goroutines"); !ok || v != 42 {
		t.Errorf("go_goroutines = %v, %v", v, ok)
	}
	if _, ok := m.sum("missing"); ok {
		t.Error("found a missing metric")
	}
}

// repoRoot is the main module's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// buildMydemo builds the example's command into a temporary directory.
// GOFLAGS from the environment apply, so that `go test -overlay` style
// mutations given as GOFLAGS=-overlay=... reach the binary too.
func buildMydemo(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "mydemo")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	// Static and path-free, as examples/mydemo/Dockerfile builds it, so
	// that this build and the Dockerfile's test share the build cache.
	cmd := exec.CommandContext(ctx, goTool, "build", "-trimpath", "-o", bin, "./examples/mydemo")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/mydemo: %v\n%s", err, out)
	}
	t.Logf("built the mydemo command in %v", time.Since(start).Round(time.Millisecond))
	return bin
}

// child is a process the test started, with its output in a file.
type child struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once the process has exited
	err     error         // Wait's result, set before done is closed
}

// startChild starts bin with args, its stdout and stderr going to a file in
// t.TempDir. On cleanup it is killed (by PID, with SIGKILL) if still
// running, and if the test failed the end of its output is logged.
func startChild(t *testing.T, name, bin string, args ...string) *child {
	t.Helper()
	return startChildEnv(t, name, bin, nil, args...)
}

// startChildEnv is startChild with env ("KEY=value") added to the
// process' environment.
func startChildEnv(t *testing.T, name, bin string, env []string, args ...string) *child {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childSysProcAttr()
	if err := startChildProcess(cmd); err != nil {
		logFile.Close()
		t.Fatalf("starting %s: %v", name, err)
	}
	c := &child{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		logFile.Close()
		close(c.done)
	}()
	t.Cleanup(func() {
		if !c.exited() {
			_ = cmd.Process.Kill()
		}
		<-c.done
		if t.Failed() {
			t.Logf("--- end of %s's output (%s, pid %d, %v):\n%s", name, logPath, cmd.Process.Pid, c.err, tail(logPath, 60))
		}
	})
	return c
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// startable is an informer factory, as runController starts it.
type startable interface {
	StartWithContext(ctx context.Context)
	Shutdown()
}

// runController starts factories and run(ctx), a controller's Run, in the
// background. When the test ends it cancels ctx, fails the test with
// run's error, and shuts the factories down.
func runController(t *testing.T, ctx context.Context, cancel context.CancelFunc, run func(context.Context) error, factories ...startable) {
	for _, f := range factories {
		f.StartWithContext(ctx)
	}
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		for _, f := range factories {
			f.Shutdown()
		}
	})
}
