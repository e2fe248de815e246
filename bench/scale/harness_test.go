package scale

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchenv"
	"github.com/ctrlgen/ctrlgen/bench/internal/procstat"
	"github.com/ctrlgen/ctrlgen/bench/scale/internal/wire"
	"github.com/ctrlgen/ctrlgen/testenv"
)

var (
	profileDir   = flag.String("profile-dir", "", "write each informer process's CPU profiles (of the sync, of the update phases) and heap profiles (after sync, after the updates) into this directory")
	keepLogs     = flag.String("controlplane-dir", "", "keep the control plane's data and logs in this directory (default: a temporary directory, removed)")
	phaseTimeout = flag.Duration("phase-timeout", 10*time.Minute, "how long a sync or an update phase may take")
	apiProfile   = flag.Duration("api-profile", 15*time.Second, "with -profile-dir: the length of kube-apiserver's CPU profile, from the start of each informer process; the update phases wait until it ends")
)

// Kinds and implementations.
const (
	kindConfigMaps = "configmaps"
	kindMydemos    = "mydemos"
	implCtrlgen    = "ctrlgen"
	implClientGo   = "client-go"
	// implFloor reads the watches ctrlgen's informer opens and decodes
	// nothing (cmd/informer/floor.go): what the wire costs either side.
	implFloor = "floor"
)

var impls = []string{implCtrlgen, implClientGo, implFloor}

// The drop-in sides are ctrlgen's and client-go's factories as a drop-in
// user writes them (cmd/informer/dropin.go): a clientset with no
// ContentType set, a cache.ResourceEventHandlerFuncs, factory.Start, and
// factory.WaitForCacheSync as synced. Not run by default; ratios compares
// them with each other.
const (
	implCtrlgenDropin  = "ctrlgen-dropin"
	implClientGoDropin = "client-go-dropin"
)

var dropinImpls = []string{implCtrlgenDropin, implClientGoDropin}

// http1Suffix on a side's name runs it with its clientset speaking
// HTTP/1.1 (the informer's -http1): one connection per watch, read by the
// goroutine that decodes it, where HTTP/2 has a read loop hand each
// event's bytes on.
const http1Suffix = "-http1"

// namespaces is how many namespaces the objects are spread over.
const namespaces = 100

// harness is the control plane the tests and benchmarks of the process
// share: etcd and kube-apiserver (no controller manager: nothing here
// needs garbage collection, and its informers would compete for the
// cores), the Mydemo CRD, the informer binary, and the objects created so
// far, which every run reuses.
type harness struct {
	env        *testenv.Env
	kubeconfig string
	binary     string
	kube       kubernetes.Interface // protobuf
	mydemo     versioned.Interface

	mu        sync.Mutex
	populated map[string]int // kind → objects 0..n-1 exist
	owners    map[string]types.UID
	patches   atomic.Int64 // makes every patch's value new
}

// Stop stops the control plane and removes the informer binary.
func (h *harness) Stop() error {
	err := h.env.Stop()
	os.RemoveAll(filepath.Dir(h.binary))
	return err
}

var shared benchenv.Shared[*harness]

// TestMain runs the tests and benchmarks on one shared control plane, in
// rounds (benchenv.Rounds): with -test.count N, each round runs every
// side once (see BenchmarkInformer) instead of Go running all of one
// side's repetitions, then all of the next's.
func TestMain(m *testing.M) { shared.Main(m) }

// controlPlane returns the shared harness, starting it on first use, or
// skips in -short mode.
func controlPlane(tb testing.TB) *harness {
	tb.Helper()
	return shared.Get(tb, "needs a local control plane (testenv) and builds the informer binary", startHarness)
}

func startHarness() (_ *harness, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	binDir, err := os.MkdirTemp("", "scale-informer-")
	if err != nil {
		return nil, err
	}
	h := &harness{binary: filepath.Join(binDir, "informer"), populated: map[string]int{}, owners: map[string]types.UID{}}
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", h.binary, "./cmd/informer").CombinedOutput(); err != nil {
		os.RemoveAll(binDir)
		return nil, fmt.Errorf("building the informer binary: %v\n%s", err, out)
	}
	env, err := testenv.Start(ctx, testenv.Options{Dir: *keepLogs, DisableControllerManager: true})
	if err != nil {
		os.RemoveAll(binDir)
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	h.env, h.kubeconfig = env, env.KubeconfigPath()
	defer func() {
		if err != nil {
			env.Stop()
			os.RemoveAll(binDir)
		}
	}()
	// The harness's own clients: no client-side rate limit, protobuf for
	// the built-in kinds.
	cfg := rest.CopyConfig(env.Config())
	cfg.QPS, cfg.Burst = -1, 0
	pb := rest.CopyConfig(cfg)
	pb.ContentType = "application/vnd.kubernetes.protobuf"
	if h.kube, err = kubernetes.NewForConfig(pb); err != nil {
		return nil, err
	}
	if h.mydemo, err = versioned.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if err := benchenv.InstallMydemoCRD(ctx, cfg, h.mydemo); err != nil {
		return nil, err
	}
	for i := range namespaces {
		ns := namespaceOf(i)
		if _, err := h.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		// Every object is owned by this ConfigMap of its namespace.
		owner, err := h.kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		h.owners[ns] = owner.UID
	}
	return h, nil
}

func namespaceOf(i int) string { return fmt.Sprintf("scale-%03d", i%namespaces) }
func nameOf(i int) string      { return fmt.Sprintf("obj-%06d", i) }

// payload is the bulk of every object, so that a ConfigMap is about 1 KB
// on the wire.
var payload = strings.Repeat("key: value # filler so that each object carries about a kilobyte\n", 10)

// objectMeta is the metadata of object i: four labels and an owner.
func (h *harness) objectMeta(i int) metav1.ObjectMeta {
	ns := namespaceOf(i)
	return metav1.ObjectMeta{
		Name:      nameOf(i),
		Namespace: ns,
		Labels: map[string]string{
			"app.kubernetes.io/name":       "scale-bench",
			"app.kubernetes.io/component":  []string{"frontend", "backend", "worker"}[i%3],
			"app.kubernetes.io/managed-by": "scale-harness",
			"shard":                        fmt.Sprintf("shard-%02d", i%16),
		},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: h.owners[ns], Controller: new(true),
		}},
	}
}

// populate makes sure objects 0..n-1 of kind exist, creating the missing
// ones with 32 concurrent writers, and returns how many objects of kind
// the cluster holds in all (an informer over all namespaces lists them
// all: the owners and the system's ConfigMaps too).
func (h *harness) populate(tb testing.TB, kind string, n int) int {
	tb.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	ctx := context.Background()
	if have := h.populated[kind]; have < n {
		start := time.Now()
		err := h.parallel(ctx, have, n, func(i int) error {
			meta := h.objectMeta(i)
			var err error
			switch kind {
			case kindConfigMaps:
				_, err = h.kube.CoreV1().ConfigMaps(meta.Namespace).Create(ctx, &corev1.ConfigMap{
					ObjectMeta: meta,
					Data:       map[string]string{"config.yaml": payload, "generation": "00000000"},
				}, metav1.CreateOptions{})
			case kindMydemos:
				_, err = h.mydemo.CrddemoV1().Mydemos(meta.Namespace).Create(ctx, &crddemov1.Mydemo{
					ObjectMeta: meta,
					Spec: crddemov1.MydemoSpec{IP: "10.0.0.1", Port: 8080,
						Data: map[string]string{"config.yaml": payload, "generation": "00000000"}},
				}, metav1.CreateOptions{})
			default:
				return fmt.Errorf("unknown kind %q", kind)
			}
			if apierrors.IsAlreadyExists(err) {
				return nil
			}
			return err
		})
		if err != nil {
			tb.Fatalf("creating %s: %v", kind, err)
		}
		tb.Logf("created %s %d..%d in %v", kind, have, n-1, time.Since(start).Round(time.Millisecond))
		h.populated[kind] = n
	}
	total, err := h.count(ctx, kind)
	if err != nil {
		tb.Fatal(err)
	}
	return total
}

// count lists kind in pages of 500 and returns how many there are.
func (h *harness) count(ctx context.Context, kind string) (int, error) {
	total := 0
	opts := metav1.ListOptions{Limit: 500}
	for {
		var (
			items int
			cont  string
		)
		switch kind {
		case kindConfigMaps:
			l, err := h.kube.CoreV1().ConfigMaps(metav1.NamespaceAll).List(ctx, opts)
			if err != nil {
				return 0, err
			}
			items, cont = len(l.Items), l.Continue
		case kindMydemos:
			l, err := h.mydemo.CrddemoV1().Mydemos(metav1.NamespaceAll).List(ctx, opts)
			if err != nil {
				return 0, err
			}
			items, cont = len(l.Items), l.Continue
		}
		total += items
		if cont == "" {
			return total, nil
		}
		opts.Continue = cont
	}
}

// parallel calls f(i) for i in [from, to) from 32 goroutines and returns
// the first error.
func (h *harness) parallel(ctx context.Context, from, to int, f func(i int) error) error {
	next := atomic.Int64{}
	next.Store(int64(from))
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range 32 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < to; i = int(next.Add(1) - 1) {
				if err := f(i); err != nil {
					once.Do(func() { first = fmt.Errorf("object %d: %w", i, err) })
					next.Store(int64(to))
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// update patches objects [from, to) of kind with a new data value each and
// returns when the last patch returned.
func (h *harness) update(ctx context.Context, kind string, from, to int) (time.Time, error) {
	value := fmt.Sprintf("%08d", h.patches.Add(1))
	var field string
	switch kind {
	case kindConfigMaps:
		field = `{"data":{"generation":%q}}`
	case kindMydemos:
		field = `{"spec":{"data":{"generation":%q}}}`
	}
	patch := []byte(fmt.Sprintf(field, value))
	var (
		mu   sync.Mutex
		last time.Time
	)
	err := h.parallel(ctx, from, to, func(i int) error {
		var err error
		switch kind {
		case kindConfigMaps:
			_, err = h.kube.CoreV1().ConfigMaps(namespaceOf(i)).Patch(ctx, nameOf(i), types.MergePatchType, patch, metav1.PatchOptions{})
		case kindMydemos:
			_, err = h.mydemo.CrddemoV1().Mydemos(namespaceOf(i)).Patch(ctx, nameOf(i), types.MergePatchType, patch, metav1.PatchOptions{})
		}
		if err == nil {
			now := time.Now()
			mu.Lock()
			if now.After(last) {
				last = now
			}
			mu.Unlock()
		}
		return err
	})
	return last, err
}

// result is what one side measured in one run.
type result struct {
	Synced       wire.Report
	Objects      int // expected in the informer's store
	APIServerCPU time.Duration
	// APIServerAlloc is what kube-apiserver allocated from the start to
	// synced (its go_memstats_alloc_bytes_total), APIServerGCs the garbage
	// collections it ran then (go_gc_duration_seconds_count).
	APIServerAlloc, APIServerGCs int64
	APIServerPeakRSS, APIRSSBase int64
	// First is the 10 % update phase, Second the 50 % one.
	First, Second update
}

type update struct {
	N      int
	Report wire.Report
	// Lag is from the last patch returning to its delivery; Span from
	// arming to the last delivery.
	Lag, Span time.Duration
}

// fractions of the objects updated in the two update phases: the first
// times delivery and CPU per update, the second shows whether the old
// versions of updated objects stay in memory.
var (
	firstFraction  = flag.Float64("update-fraction", 0.1, "fraction of the objects updated in the first update phase")
	secondFraction = flag.Float64("retain-fraction", 0.5, "fraction of the objects updated in the second update phase, after which heap is compared with heap after sync")
)

// run starts impl's informer process on kind, waits for it to sync, then
// runs the two update phases and stops it. n is the number of benchmark
// objects (those updated), total what the informer must list.
func (h *harness) run(tb testing.TB, kind, impl string, n, total int, round int) result {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.settle(tb)

	args := []string{"-impl", strings.TrimSuffix(impl, http1Suffix), "-kind", kind, "-kubeconfig", h.kubeconfig}
	if strings.HasSuffix(impl, http1Suffix) {
		args = append(args, "-http1")
	}
	if *profileDir != "" {
		base := filepath.Join(*profileDir, fmt.Sprintf("%s-%s-r%d", kind, impl, round))
		args = append(args, "-cpuprofile", base+".cpu.pprof", "-memprofile", base+".heap.pprof", "-updates-cpuprofile", base+".updates.cpu.pprof")
	}
	cmd := exec.CommandContext(ctx, h.binary, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	reports := make(chan wire.Report)
	readErr := make(chan error, 1)

	api := h.env.PIDs()[testenv.KubeAPIServer]
	// kube-apiserver starts every side's sync freshly collected: a
	// collection of its ~1.5 GB heap costs it about a CPU-second, which
	// would otherwise fall into whichever side's sync its heap happened
	// to fill up in.
	h.apiserverGC(tb)
	apiGo, err := h.apiserverGoStats()
	if err != nil {
		tb.Fatal(err)
	}
	apiMem, err := procstat.Mem(strconv.Itoa(api))
	if err != nil {
		tb.Fatal(err)
	}
	apiCPU, err := procstat.CPU(api)
	if err != nil {
		tb.Fatal(err)
	}
	sampler := sampleRSS(api)
	apiProfiled := func() {}
	if *profileDir != "" {
		base := filepath.Join(*profileDir, fmt.Sprintf("%s-%s-r%d", kind, impl, round))
		apiProfiled = h.profileAPIServer(tb, base+".apiserver.cpu.pprof", *apiProfile)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := false
	defer func() {
		if !exited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	go func() {
		dec := json.NewDecoder(stdout)
		for {
			var r wire.Report
			if err := dec.Decode(&r); err != nil {
				readErr <- err
				close(reports)
				return
			}
			reports <- r
		}
	}()
	next := func(phase string) wire.Report {
		tb.Helper()
		select {
		case r, ok := <-reports:
			if !ok {
				cmd.Wait()
				exited = true
				tb.Fatalf("%s %s: no %q report: %v; stderr:\n%s", impl, kind, phase, <-readErr, stderr.String())
			}
			if r.Phase != phase {
				tb.Fatalf("%s %s: got report %q, want %q", impl, kind, r.Phase, phase)
			}
			return r
		case <-time.After(*phaseTimeout):
			tb.Fatalf("%s %s: no %q report after %v; stderr:\n%s", impl, kind, phase, *phaseTimeout, stderr.String())
		}
		panic("unreachable")
	}

	var res result
	res.Synced = next(wire.PhaseSynced)
	res.APIServerPeakRSS = sampler.stop()
	res.APIRSSBase = apiMem.RSS
	cpu, err := procstat.CPU(api)
	if err != nil {
		tb.Fatal(err)
	}
	res.APIServerCPU = cpu - apiCPU
	apiGoSynced, err := h.apiserverGoStats()
	if err != nil {
		tb.Fatal(err)
	}
	res.APIServerAlloc, res.APIServerGCs = apiGoSynced.alloc-apiGo.alloc, apiGoSynced.gcs-apiGo.gcs
	res.Objects = total
	if res.Synced.Objects != total || res.Synced.Adds != total {
		tb.Fatalf("%s %s: synced with %d objects and %d adds, want %d", impl, kind, res.Synced.Objects, res.Synced.Adds, total)
	}

	apiProfiled()

	first := max(1, int(float64(n)**firstFraction))
	second := max(1, int(float64(n)**secondFraction))
	if first+second > n {
		tb.Fatalf("update phases of %d and %d objects, but only %d objects", first, second, n)
	}
	phase := func(from, to int) update {
		tb.Helper()
		u := update{N: to - from}
		if _, err := io.WriteString(stdin, wire.UpdatesCommand(u.N)); err != nil {
			tb.Fatal(err)
		}
		next(wire.PhaseArmed)
		start := time.Now()
		lastWrite, err := h.update(ctx, kind, from, to)
		if err != nil {
			tb.Fatalf("updating %s: %v", kind, err)
		}
		u.Report = next(wire.PhaseUpdated)
		if u.Report.Updates != u.N {
			tb.Fatalf("%s %s: %d updates delivered, want %d", impl, kind, u.Report.Updates, u.N)
		}
		delivered := time.Unix(0, u.Report.LastDeliveryUnixNano)
		u.Lag, u.Span = delivered.Sub(lastWrite), delivered.Sub(start)
		return u
	}
	res.First = phase(0, first)
	res.Second = phase(first, first+second)
	stdin.Close()
	err = cmd.Wait()
	exited = true
	if err != nil {
		tb.Fatalf("%s %s: %v; stderr:\n%s", impl, kind, err, stderr.String())
	}
	return res
}

// apiserverGC makes kube-apiserver collect its garbage (its heap profile
// handler does with gc=1) and waits for it to be done.
func (h *harness) apiserverGC(tb testing.TB) {
	tb.Helper()
	if _, err := h.apiserverGet("/debug/pprof/heap?gc=1"); err != nil {
		tb.Fatalf("collecting kube-apiserver's garbage: %v", err)
	}
}

// goStats are kube-apiserver's Go runtime counters.
type goStats struct{ alloc, gcs int64 }

// apiserverGoStats reads kube-apiserver's bytes allocated so far and its
// garbage collections so far from its /metrics.
func (h *harness) apiserverGoStats() (goStats, error) {
	body, err := h.apiserverGet("/metrics")
	if err != nil {
		return goStats{}, err
	}
	var s goStats
	found := 0
	for line := range strings.SplitSeq(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		var dst *int64
		switch name {
		case "go_memstats_alloc_bytes_total":
			dst = &s.alloc
		case "go_gc_duration_seconds_count":
			dst = &s.gcs
		default:
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return goStats{}, fmt.Errorf("/metrics: %s: %w", line, err)
		}
		*dst = int64(v)
		found++
	}
	if found != 2 {
		return goStats{}, errors.New("/metrics: no go_memstats_alloc_bytes_total or go_gc_duration_seconds_count")
	}
	return s, nil
}

// apiserverGet GETs path from kube-apiserver as the admin.
func (h *harness) apiserverGet(path string) ([]byte, error) {
	client, err := rest.HTTPClientFor(h.env.Config())
	if err != nil {
		return nil, err
	}
	resp, err := client.Get(h.env.Config().Host + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s: %s", path, resp.Status, body)
	}
	return body, nil
}

// profileAPIServer starts a CPU profile of kube-apiserver (its
// /debug/pprof/profile, on by default) lasting d and returns a function
// that waits for it and writes it to path.
func (h *harness) profileAPIServer(tb testing.TB, path string, d time.Duration) (wait func()) {
	tb.Helper()
	client, err := rest.HTTPClientFor(h.env.Config())
	if err != nil {
		tb.Fatal(err)
	}
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", h.env.Config().Host, int(d.Seconds()))
	done := make(chan error, 1)
	go func() {
		resp, err := client.Get(url)
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			body, _ := io.ReadAll(resp.Body)
			done <- fmt.Errorf("%s: %s: %s", url, resp.Status, body)
			return
		}
		f, err := os.Create(path)
		if err != nil {
			done <- err
			return
		}
		_, err = io.Copy(f, resp.Body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	return func() {
		tb.Helper()
		if err := <-done; err != nil {
			tb.Fatalf("kube-apiserver's CPU profile: %v", err)
		}
	}
}

// rssSampler records the largest VmRSS of a process, read every 5 ms: the
// peak of a span, which VmHWM (the peak since the process started, never
// reset) cannot give.
type rssSampler struct {
	stopc chan struct{}
	peak  chan int64
}

func sampleRSS(pid int) *rssSampler {
	s := &rssSampler{stopc: make(chan struct{}), peak: make(chan int64)}
	go func() {
		var peak int64
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if m, err := procstat.Mem(strconv.Itoa(pid)); err == nil && m.RSS > peak {
				peak = m.RSS
			}
			select {
			case <-s.stopc:
				s.peak <- peak
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// stop ends the sampling and returns the peak.
func (s *rssSampler) stop() int64 {
	close(s.stopc)
	return <-s.peak
}

// settle waits until etcd and kube-apiserver use less than a tenth of a
// core for three 500 ms intervals in a row, at most a minute: the last
// run's writes may still be in flight through the watch cache.
func (h *harness) settle(tb testing.TB) {
	tb.Helper()
	if _, quiet := benchenv.Settle(benchenv.ControlPlanePIDs(h.env), 500*time.Millisecond, 50*time.Millisecond, time.Minute); !quiet {
		tb.Logf("the control plane is still busy after a minute; going on")
	}
}
