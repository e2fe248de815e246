package controllerbench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchenv"
	"github.com/ctrlgen/ctrlgen/bench/internal/procstat"
	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/testenv"
)

var (
	readyTimeout = flag.Duration("ready-timeout", 10*time.Minute, "how long a run may take to bring every Mydemo to Ready")
	keepLogs     = flag.String("controlplane-dir", "", "keep the control plane's data and logs in this directory (default: a temporary directory, removed)")
	profileDir   = flag.String("profile-dir", "", "write a CPU profile of each implementation's process in each round of BenchmarkMydemoReady into this directory, as IMPL-rROUND.cpu.pprof")
)

// The implementations, in the order of the first round.
const (
	implCtrlgen  = "ctrlgen"
	implClientGo = "client-go"
	implFloor    = "floor"
	// implCtrlgenUpdate is the mydemo controller on ctrlgen's runtime with
	// the writes it made before server-side apply (updatewrites.go).
	implCtrlgenUpdate = "ctrlgen-update"
	// implClientGoClientGen is the client-go controller with the Mydemo
	// clientset's REST client as client-gen makes it (apimachinery's JSON
	// serializer), as a code-generator user has it; implClientGo shares
	// ctrlgen's clientset, with its generated JSON decoders.
	implClientGoClientGen = "client-go-clientgen"
	// implNone runs nothing: the child's protocol alone, for its tests.
	implNone = "none"
)

var impls = []string{implCtrlgen, implCtrlgenUpdate, implClientGo, implClientGoClientGen, implFloor}

// harness is the control plane every test and benchmark of the process
// shares: one testenv (etcd, kube-apiserver, kube-controller-manager with
// the garbage collector and namespace controllers), the Mydemo CRD
// installed once. Each run gets its own namespace, deleted (and waited
// for) at its end.
type harness struct {
	env        *testenv.Env
	kubeconfig string
	admin      Clients
}

func (h *harness) Stop() error { return h.env.Stop() }

var shared benchenv.Shared[*harness]

// TestMain runs the tests and benchmarks on one shared control plane, in
// rounds (benchenv.Rounds): with -test.count N, each round runs every
// implementation once, and BenchmarkMydemoReady rotates which goes
// first. Run as a child (child_test.go), it runs an implementation.
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

// controlPlane returns the shared control plane, starting it on first use,
// or skips in -short mode.
func controlPlane(tb testing.TB) *harness {
	tb.Helper()
	return shared.Get(tb, "needs a local control plane (testenv)", startHarness)
}

func startHarness() (_ *harness, err error) {
	// The first build of the control plane takes minutes; run.sh builds it
	// beforehand.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	env, err := testenv.Start(ctx, testenv.Options{Dir: *keepLogs})
	if err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	defer func() {
		if err != nil {
			env.Stop()
		}
	}()
	h := &harness{env: env, kubeconfig: env.KubeconfigPath()}
	if h.admin, _, err = NewClient(h.kubeconfig); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", h.kubeconfig)
	if err != nil {
		return nil, err
	}
	if err := benchenv.InstallMydemoCRD(ctx, cfg, h.admin.Mydemo); err != nil {
		return nil, err
	}
	return h, nil
}

// timer is what a run starts and stops around the measured span: the
// benchmark's *testing.B, or nothing.
type timer interface {
	StartTimer()
	StopTimer()
}

type noTimer struct{}

func (noTimer) StartTimer() {}
func (noTimer) StopTimer()  {}

// result is what one run measured.
type result struct {
	// Elapsed is from the first create to the last Mydemo observed Ready
	// (the floor: to its last write returning).
	Elapsed time.Duration
	// Creates is from the first create to the last create returning.
	Creates time.Duration
	// Controller is what the controller's client (the floor: its
	// workers' client) did during Elapsed.
	Controller ClientStats
	// ProcessCPU is the CPU time this process (the creator, the watcher)
	// used during Elapsed; ControllerCPU that of the implementation's
	// process (the floor's included); ControlPlaneCPU that of
	// etcd, kube-apiserver and kube-controller-manager; APIServerCPU that
	// of kube-apiserver alone.
	ProcessCPU, ControllerCPU, ControlPlaneCPU, APIServerCPU time.Duration
	// OtherCPU is the CPU time the rest of the machine used during
	// Elapsed: other people's work competing for the cores.
	OtherCPU time.Duration
	// ControllerPeakRSS is the implementation process's peak resident
	// memory (VmHWM), in bytes, over its life: start, sync and the run.
	ControllerPeakRSS int64
	// Settle is how long the run waited for the control plane to go idle.
	Settle time.Duration
}

// run runs impl over n fresh Mydemos in a new namespace: it starts the
// implementation and waits for its caches, starts the Ready watcher, then
// times the creates and the wait for Ready (the floor: for its last
// write). It checks every Mydemo and ConfigMap, stops the implementation
// and deletes the namespace, waiting until it is gone.
func (h *harness) run(tb testing.TB, impl string, n int, t timer, cpuProfile string) result {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), *readyTimeout+5*time.Minute)
	defer cancel()
	var res result

	// Idle first: the namespace of the last run may still be being
	// garbage collected.
	res.Settle = h.settle(tb)
	runtime.GC()
	ns, err := h.admin.Kube.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-" + impl + "-"}}, metav1.CreateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer h.deleteNamespace(tb, ns.Name)

	// The same two clients in this process for every implementation, each
	// configured as the ctrlgen manager configures its own, with its own
	// rate limiter; the implementation runs in a process of its own.
	creator, _, err := NewClient(h.kubeconfig)
	if err != nil {
		tb.Fatal(err)
	}
	watcherClient, _, err := NewClient(h.kubeconfig)
	if err != nil {
		tb.Fatal(err)
	}
	implCtx, stopImpl := context.WithCancel(ctx)
	defer stopImpl()
	c, err := startChild(impl, h.kubeconfig, n, time.Minute, cpuProfile)
	if err != nil {
		tb.Fatal(err)
	}
	stats := func() (ClientStats, error) {
		r, err := c.call("stats")
		return r.Stats, err
	}
	var onCreated func(*crddemov1.Mydemo)
	if impl == implFloor {
		onCreated = c.add
	}
	stopped := false
	defer func() {
		if !stopped {
			c.stop()
		}
	}()

	// Every implementation runs the same watcher, the floor included, so
	// that the apiserver and this process carry the same load.
	w, err := watchReady(implCtx, watcherClient.Mydemo, ns.Name, n)
	if err != nil {
		tb.Fatal(err)
	}
	before, err := stats()
	if err != nil {
		tb.Fatal(err)
	}

	self, ctrl, controlPlane, apiserver := []int{os.Getpid()}, []int{c.PID()}, benchenv.ControlPlanePIDs(h.env), []int{h.env.PIDs()["kube-apiserver"]}
	selfCPU, ctrlCPU, controlPlaneCPU, machineCPU := procstat.CPUSum(self), procstat.CPUSum(ctrl), procstat.CPUSum(controlPlane), machineCPUTime()
	apiserverCPU := procstat.CPUSum(apiserver)
	t.StartTimer()
	start := time.Now()
	lastCreate, err := createMydemos(ctx, creator.Mydemo, ns.Name, n, Workers, onCreated)
	if err != nil {
		t.StopTimer()
		tb.Fatal(err)
	}
	var end time.Time
	if impl == implFloor {
		r, err := c.call("finish")
		t.StopTimer()
		if err != nil {
			tb.Fatal(err)
		}
		end = r.LastWrite
	} else {
		select {
		case <-w.done:
			end = w.last
			t.StopTimer()
		case <-time.After(*readyTimeout - time.Since(start)):
			t.StopTimer()
			tb.Fatalf("%s: %d of %d Mydemos Ready after %v", impl, w.count(), n, *readyTimeout)
		}
	}
	res.ProcessCPU, res.ControllerCPU, res.ControlPlaneCPU = procstat.CPUSum(self)-selfCPU, procstat.CPUSum(ctrl)-ctrlCPU, procstat.CPUSum(controlPlane)-controlPlaneCPU
	res.APIServerCPU = procstat.CPUSum(apiserver) - apiserverCPU
	res.OtherCPU = max(0, machineCPUTime()-machineCPU-res.ProcessCPU-res.ControllerCPU-res.ControlPlaneCPU)
	after, err := stats()
	if err != nil {
		tb.Fatal(err)
	}
	res.Elapsed, res.Creates = end.Sub(start), lastCreate.Sub(start)
	res.Controller = after.Sub(before)

	// The floor is done when its writes are; the watcher sees them soon
	// after.
	select {
	case <-w.done:
	case <-time.After(time.Minute):
		tb.Fatalf("%s: %d of %d Mydemos observed Ready a minute after the last write", impl, w.count(), n)
	}
	// The child lets the controller finish what it is doing (a status
	// write that raced with its own cache, say) rather than cancel it
	// mid-request, then stops.
	stopped = true
	last, err := c.stop()
	if err != nil {
		tb.Errorf("%s: stopping: %v", impl, err)
	}
	res.ControllerPeakRSS = last.PeakRSS
	h.check(tb, ctx, ns.Name, n)
	return res
}

// quiesce waits until stats shows no new request for 300ms, at most 10s.
func quiesce(stats func() (ClientStats, error)) {
	deadline := time.Now().Add(10 * time.Second)
	last, _ := stats()
	for still := 0; still < 3 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		cur, _ := stats()
		if cur.Requests == last.Requests {
			still++
		} else {
			still = 0
		}
		last = cur
	}
}

// createMydemos creates Mydemos 0..n-1 in ns with workers goroutines,
// hands each created one to onCreated if set, and returns when the last
// create returned.
func createMydemos(ctx context.Context, client versioned.Interface, ns string, n, workers int, onCreated func(*crddemov1.Mydemo)) (time.Time, error) {
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		mu   sync.Mutex
		last time.Time
		errs []error
	)
	mydemos := client.CrddemoV1().Mydemos(ns)
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				var created *crddemov1.Mydemo
				err := retryTransient(ctx, func() error {
					var err error
					created, err = mydemos.Create(ctx, NewMydemo(ns, i), metav1.CreateOptions{})
					if apierrors.IsAlreadyExists(err) { // an earlier attempt made it
						created, err = mydemos.Get(ctx, NewMydemo(ns, i).Name, metav1.GetOptions{})
					}
					return err
				})
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					last = time.Now()
				}
				mu.Unlock()
				if err != nil {
					return
				}
				if onCreated != nil {
					onCreated(created)
				}
			}
		})
	}
	wg.Wait()
	return last, errors.Join(errs...)
}

// readyWatcher watches the Mydemos of a namespace and notes when the n-th
// of them is first seen Ready.
type readyWatcher struct {
	n     int
	done  chan struct{}
	ready atomic.Int64
	last  time.Time // when the n-th was seen; set before done is closed
}

func (w *readyWatcher) count() int { return int(w.ready.Load()) }

// watchReady lists the namespace (empty) and watches it from there until
// n Mydemos were seen Ready or ctx is done.
func watchReady(ctx context.Context, client versioned.Interface, ns string, n int) (*readyWatcher, error) {
	mydemos := client.CrddemoV1().Mydemos(ns)
	list, err := mydemos.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	w := &readyWatcher{n: n, done: make(chan struct{})}
	seen := map[string]bool{}
	note := func(md *crddemov1.Mydemo) bool {
		if seen[md.Name] || !IsReady(md) {
			return false
		}
		seen[md.Name] = true
		if w.ready.Add(1) == int64(n) {
			w.last = time.Now()
			close(w.done)
			return true
		}
		return false
	}
	for i := range list.Items {
		if note(&list.Items[i]) {
			return w, nil
		}
	}
	rv := list.ResourceVersion
	go func() {
		for ctx.Err() == nil {
			wi, err := mydemos.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for ev := range wi.ResultChan() {
				switch ev.Type {
				case watch.Added, watch.Modified, watch.Bookmark:
					md, ok := ev.Object.(*crddemov1.Mydemo)
					if !ok {
						continue
					}
					rv = md.ResourceVersion
					if ev.Type != watch.Bookmark && note(md) {
						wi.Stop()
						return
					}
				case watch.Error:
					// Too old a resourceVersion: list again, and count what
					// became Ready meanwhile.
					list, err := mydemos.List(ctx, metav1.ListOptions{})
					if err != nil {
						continue
					}
					for i := range list.Items {
						if note(&list.Items[i]) {
							wi.Stop()
							return
						}
					}
					rv = list.ResourceVersion
					wi.Stop()
				}
			}
		}
	}()
	return w, nil
}

// check fails tb unless ns holds n Mydemos, each Ready with its ConfigMap
// as the controller renders it.
func (h *harness) check(tb testing.TB, ctx context.Context, ns string, n int) {
	tb.Helper()
	mydemos, byName := h.namespaceObjects(tb, ctx, ns)
	if len(mydemos) != n {
		tb.Fatalf("%d Mydemos in %s, want %d", len(mydemos), ns, n)
	}
	bad := 0
	for i := range mydemos {
		md := &mydemos[i]
		var err error
		if !IsReady(md) {
			err = fmt.Errorf("not Ready: generation %d, status %+v", md.Generation, md.Status)
		} else if cm := byName[md.Status.ConfigMapName]; cm == nil {
			err = fmt.Errorf("no ConfigMap %s", md.Status.ConfigMapName)
		} else {
			err = CheckConfigMap(md, cm)
		}
		if err != nil {
			if bad++; bad <= 5 {
				tb.Errorf("Mydemo %s/%s: %v", ns, md.Name, err)
			}
		}
	}
	if bad > 0 {
		tb.Fatalf("%d of %d Mydemos are wrong", bad, n)
	}
}

// namespaceObjects lists the Mydemos of ns, and its ConfigMaps by name.
func (h *harness) namespaceObjects(tb testing.TB, ctx context.Context, ns string) ([]crddemov1.Mydemo, map[string]*corev1.ConfigMap) {
	tb.Helper()
	mydemos, err := h.admin.Mydemo.CrddemoV1().Mydemos(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	configMaps, err := h.admin.Kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	byName := map[string]*corev1.ConfigMap{}
	for i := range configMaps.Items {
		byName[configMaps.Items[i].Name] = &configMaps.Items[i]
	}
	return mydemos.Items, byName
}

// deleteNamespace deletes ns and waits until the namespace controller has
// deleted everything in it and the namespace itself.
func (h *harness) deleteNamespace(tb testing.TB, ns string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := h.admin.Kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		tb.Errorf("deleting namespace %s: %v", ns, err)
		return
	}
	start := time.Now()
	err := benchenv.Poll(ctx, 10*time.Minute, "namespace "+ns+" to be deleted", func() (bool, error) {
		_, err := h.admin.Kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), err
	})
	if err != nil {
		tb.Error(err)
		return
	}
	tb.Logf("namespace %s deleted in %v", ns, time.Since(start).Round(100*time.Millisecond))
}

// settle waits until the control plane (and this process) use less than
// a tenth of a core for three seconds in a row, at most two minutes: the
// garbage collector and the namespace controller may still be working
// through the last run's objects. It returns how long it waited.
func (h *harness) settle(tb testing.TB) time.Duration {
	tb.Helper()
	waited, quiet := benchenv.Settle(append(benchenv.ControlPlanePIDs(h.env), os.Getpid()), time.Second, 100*time.Millisecond, 2*time.Minute)
	if !quiet {
		tb.Logf("the control plane is still busy after %v; going on", waited.Round(time.Second))
	}
	return waited
}

// machineCPUTime is the CPU time all processes of the machine have used
// (user, nice, system, irq and softirq of /proc/stat), zero if unknown.
func machineCPUTime() time.Duration {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq ...
	if len(fields) < 8 || fields[0] != "cpu" {
		return 0
	}
	var total time.Duration
	for _, i := range []int{1, 2, 3, 6, 7} {
		ticks, _ := strconv.ParseInt(fields[i], 10, 64)
		total += time.Duration(ticks) * time.Second / procstat.ClockTicks
	}
	return total
}
