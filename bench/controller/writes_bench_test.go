package controllerbench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	applymetav1 "k8s.io/client-go/applyconfigurations/meta/v1"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchenv"
	"github.com/ctrlgen/ctrlgen/bench/internal/procstat"
	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	applycrddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/applyconfiguration/crddemo/v1"
)

var writeObjects = flag.Int("write-objects", 2000, "writes per BenchmarkWriteCost run")

// The writes BenchmarkWriteCost compares: each of the mydemo controller's
// two writes per new Mydemo, as update writes make them and as server-side
// apply makes them.
type writeOp struct {
	name  string
	write func(ctx context.Context, c Clients, md *crddemov1.Mydemo) error
	// status is true for a status write, false for a ConfigMap write.
	status bool
}

var writeOps = []writeOp{
	{"configmap-create", func(ctx context.Context, c Clients, md *crddemov1.Mydemo) error {
		_, err := c.Kube.CoreV1().ConfigMaps(md.Namespace).Create(ctx, mydemo.DesiredConfigMap(md), metav1.CreateOptions{})
		return err
	}, false},
	{"configmap-apply", func(ctx context.Context, c Clients, md *crddemov1.Mydemo) error {
		_, err := c.Kube.CoreV1().ConfigMaps(md.Namespace).Apply(ctx, mydemo.ConfigMapApply(mydemo.DesiredConfigMap(md)),
			metav1.ApplyOptions{FieldManager: mydemo.ControllerName, Force: true})
		return err
	}, false},
	{"status-update", func(ctx context.Context, c Clients, md *crddemov1.Mydemo) error {
		md = md.DeepCopy()
		markReady(md)
		md.Status.ObservedGeneration = md.Generation
		_, err := c.Mydemo.CrddemoV1().Mydemos(md.Namespace).UpdateStatus(ctx, md, metav1.UpdateOptions{})
		return err
	}, true},
	{"status-apply", func(ctx context.Context, c Clients, md *crddemov1.Mydemo) error {
		// What the wiring applies for a new Mydemo: every status field.
		ready := md.DeepCopy()
		markReady(ready)
		cond := meta.FindStatusCondition(ready.Status.Conditions, mydemo.ConditionReady)
		ac := applycrddemov1.Mydemo(md.Name, md.Namespace).WithStatus(applycrddemov1.MydemoStatus().
			WithObservedGeneration(md.Generation).
			WithConfigMapName(ready.Status.ConfigMapName).
			WithConditions(applymetav1.Condition().WithType(cond.Type).WithStatus(cond.Status).WithReason(cond.Reason).
				WithMessage(cond.Message).WithObservedGeneration(cond.ObservedGeneration).WithLastTransitionTime(cond.LastTransitionTime)))
		_, err := c.Mydemo.CrddemoV1().Mydemos(md.Namespace).ApplyStatus(ctx, ac, metav1.ApplyOptions{FieldManager: mydemo.ControllerName})
		return err
	}, true},
}

// BenchmarkWriteCost measures what each kind of write costs the control
// plane, apart from any controller: for each op, N Mydemos are created
// (untimed), then Workers goroutines make one write per Mydemo, timed,
// with kube-apiserver's CPU time and that of the whole control plane
// (etcd, kube-apiserver, kube-controller-manager) over the writes. Run it
// with -benchtime=1x and -count for rounds (TestMain interleaves them).
//
// Metrics: apiserver-cpu-ms/write, ctrlplane-cpu-ms/write, writes/s.
func BenchmarkWriteCost(b *testing.B) {
	h := controlPlane(b)
	n := *writeObjects
	for _, op := range writeOps {
		b.Run("op="+op.name, func(b *testing.B) {
			b.StopTimer()
			var apiserver, ctrlplane, elapsed time.Duration
			for range b.N {
				a, c, e := h.writeCost(b, b, op, n, true)
				apiserver, ctrlplane, elapsed = apiserver+a, ctrlplane+c, elapsed+e
			}
			writes := float64(b.N * n)
			b.ReportMetric(float64(apiserver.Milliseconds())/writes, "apiserver-cpu-ms/write")
			b.ReportMetric(float64(ctrlplane.Milliseconds())/writes, "ctrlplane-cpu-ms/write")
			b.ReportMetric(writes/elapsed.Seconds(), "writes/s")
		})
	}
}

// writeCost creates n Mydemos in a new namespace, then times op's write
// on each, and returns kube-apiserver's and the control plane's CPU time
// and the wall time of the writes. It then checks that every Mydemo got
// its ConfigMap, or its Ready status, as the controller writes them.
// With settle, it waits for the control plane to go idle before the
// writes and after them (counting that tail), as a measurement needs.
func (h *harness) writeCost(b testing.TB, t timer, op writeOp, n int, settle bool) (apiserver, ctrlplane, elapsed time.Duration) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if settle {
		h.settle(b)
	}
	ns, err := h.admin.Kube.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-writes-"}}, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.deleteNamespace(b, ns.Name)
	client, _, err := NewClient(h.kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var mydemos []*crddemov1.Mydemo
	if _, err := createMydemos(ctx, client.Mydemo, ns.Name, n, Workers, func(md *crddemov1.Mydemo) {
		mu.Lock()
		mydemos = append(mydemos, md)
		mu.Unlock()
	}); err != nil {
		b.Fatal(err)
	}
	if settle {
		h.settle(b)
	}

	apiPIDs := []int{h.env.PIDs()["kube-apiserver"]}
	planePIDs := benchenv.ControlPlanePIDs(h.env)
	apiBefore, planeBefore := procstat.CPUSum(apiPIDs), procstat.CPUSum(planePIDs)
	start := time.Now()
	t.StartTimer()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, Workers)
	for range Workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(mydemos); i = int(next.Add(1) - 1) {
				if err := retryTransient(ctx, func() error { return op.write(ctx, client, mydemos[i]) }); err != nil {
					errs <- fmt.Errorf("%s: %w", mydemos[i].Name, err)
					return
				}
			}
		})
	}
	wg.Wait()
	t.StopTimer()
	elapsed = time.Since(start)
	// The watch cache and the garbage collector see the writes after they
	// return: their share is counted too, until the control plane is idle.
	if settle {
		h.settle(b)
	}
	apiserver, ctrlplane = procstat.CPUSum(apiPIDs)-apiBefore, procstat.CPUSum(planePIDs)-planeBefore
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%s: %d writes in %v: kube-apiserver %v CPU, control plane %v\n", op.name, n, elapsed.Round(time.Millisecond), apiserver, ctrlplane)
	h.checkWrites(b, ctx, ns.Name, op, n)
	return apiserver, ctrlplane, elapsed
}

// checkWrites fails b unless each of the n Mydemos in ns has what op
// writes: a Ready status, or its ConfigMap as the controller renders it.
func (h *harness) checkWrites(b testing.TB, ctx context.Context, ns string, op writeOp, n int) {
	b.Helper()
	mydemos, byName := h.namespaceObjects(b, ctx, ns)
	if len(mydemos) != n {
		b.Fatalf("%d Mydemos, want %d", len(mydemos), n)
	}
	for i := range mydemos {
		md := &mydemos[i]
		switch cm := byName[mydemo.ConfigMapName(md)]; {
		case op.status && !IsReady(md):
			b.Fatalf("%s: %s is not Ready: %+v", op.name, md.Name, md.Status)
		case !op.status && cm == nil:
			b.Fatalf("%s: %s has no ConfigMap", op.name, md.Name)
		case !op.status:
			if err := CheckConfigMap(md, cm); err != nil {
				b.Fatalf("%s: %v", op.name, err)
			}
		}
	}
}

// TestWriteCostOps runs each write of BenchmarkWriteCost on a few Mydemos
// and checks what it wrote, so that `go test ./...` catches a broken
// benchmark. Skipped with -short.
func TestWriteCostOps(t *testing.T) {
	h := controlPlane(t)
	for _, op := range writeOps {
		t.Run(op.name, func(t *testing.T) {
			h.writeCost(t, noTimer{}, op, 10, false)
		})
	}
}
