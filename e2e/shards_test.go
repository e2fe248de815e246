package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// reconcileSpan is one line of a --reconcile-trace-file.
type reconcileSpan struct {
	process    string
	key        string
	start, end int64
}

// readTrace reads the reconciles of controller's keys in namespace ns.
func readTrace(t *testing.T, process, path, controller, ns string) []reconcileSpan {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var spans []reconcileSpan
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || fields[0] != controller || !strings.HasPrefix(fields[1], ns+"/") {
			continue
		}
		start, err1 := strconv.ParseInt(fields[2], 10, 64)
		end, err2 := strconv.ParseInt(fields[3], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad trace line %q", path, sc.Text())
		}
		spans = append(spans, reconcileSpan{process, fields[1], start, end})
	}
	return spans
}

// TestMydemoShards runs the mydemo command in several processes with
// --shards: each reconciles the Mydemos of the buckets it holds, no
// Mydemo is ever reconciled by two at once, a killed process' buckets are
// taken over once their Leases expire, a new process gets its share, and
// a process stopped gracefully hands its buckets over at once.
func TestMydemoShards(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	md := mydemoClient(t, e)
	kc := kubernetes.NewForConfigOrDie(e.Config())
	ns := namespace(t, kc)
	ctx := context.Background()
	bin := buildMydemo(t)
	traces := t.TempDir()

	const (
		shards        = 12
		mydemos       = 3000
		leaseDuration = 6 * time.Second
		renewDeadline = 4 * time.Second
		retryPeriod   = 500 * time.Millisecond
		group         = "e2e-shards"
	)
	type proc struct {
		*child
		metricsAddr string
		trace       string
	}
	var procs []*proc
	start := func(name string) *proc {
		addrs := localAddrs(t, 2)
		p := &proc{metricsAddr: addrs[0], trace: filepath.Join(traces, name)}
		p.child = startChild(t, name, bin,
			"--kubeconfig="+e.KubeconfigPath(),
			fmt.Sprintf("--shards=%d", shards),
			"--leader-elect-namespace="+ns,
			"--leader-elect-id="+group,
			"--leader-elect-lease-duration="+leaseDuration.String(),
			"--leader-elect-renew-deadline="+renewDeadline.String(),
			"--leader-elect-retry-period="+retryPeriod.String(),
			"--reconcile-trace-file="+p.trace,
			"--metrics-bind-address="+p.metricsAddr,
			"--health-probe-bind-address="+addrs[1],
			"--workers=8",
		)
		procs = append(procs, p)
		return p
	}
	held := func(p *proc) int {
		m, err := scrape(p.metricsAddr)
		if err != nil {
			return -1
		}
		v, _ := m.sum("ctrlgen_shard_buckets_held")
		return int(v)
	}
	waitShares := func(what string, live []*proc, each int) {
		t.Helper()
		eventually(t, time.Minute, what, func() (bool, string) {
			var got []int
			for _, p := range live {
				got = append(got, held(p))
			}
			for _, n := range got {
				if n != each {
					return false, fmt.Sprintf("buckets held: %v", got)
				}
			}
			return true, ""
		})
	}
	checkNoOverlap := func() {
		t.Helper()
		byKey := map[string][]reconcileSpan{}
		for _, p := range procs {
			for _, s := range readTrace(t, p.name, p.trace, "mydemo", ns) {
				byKey[s.key] = append(byKey[s.key], s)
			}
		}
		for key, spans := range byKey {
			slices.SortFunc(spans, func(a, b reconcileSpan) int { return int(a.start - b.start) })
			for i := 1; i < len(spans); i++ {
				if spans[i].start < spans[i-1].end {
					t.Fatalf("%s reconciled by %s and %s at overlapping times", key, spans[i-1].process, spans[i].process)
				}
			}
		}
	}
	// Each bucket's Lease renewed after at, by whoever holds it.
	allRenewedAfter := func(at time.Time) (bool, string) {
		leases, err := kc.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.Set{"ctrlgen.io/shard-role": "bucket"}.String()})
		if err != nil {
			return false, err.Error()
		}
		fresh := 0
		for _, l := range leases.Items {
			if l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" && l.Spec.RenewTime != nil && l.Spec.RenewTime.After(at) {
				fresh++
			}
		}
		return fresh == shards, fmt.Sprintf("%d of %d buckets renewed since", fresh, shards)
	}

	for i := range 3 {
		start(fmt.Sprintf("shard-%d", i))
	}
	waitShares("3 processes holding 4 buckets each", procs, shards/3)

	names := make([]string, mydemos)
	var wg sync.WaitGroup
	errs := make(chan error, mydemos)
	sem := make(chan struct{}, 32)
	for i := range names {
		names[i] = fmt.Sprintf("sharded-%04d", i)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_, err := md.CrddemoV1().Mydemos(ns).Create(ctx, newMydemo(ns, names[i], "10.0.0.1", 80, nil), metav1.CreateOptions{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	waitMydemosReady(t, md, ns, 5*time.Minute, names...)
	reconciled := map[string]map[string]bool{}
	for _, p := range procs {
		reconciled[p.name] = map[string]bool{}
		for _, s := range readTrace(t, p.name, p.trace, "mydemo", ns) {
			reconciled[p.name][s.key] = true
		}
	}
	for _, p := range procs {
		n := len(reconciled[p.name])
		t.Logf("%s reconciled %d Mydemos", p.name, n)
		if n < mydemos/3*8/10 || n > mydemos/3*12/10 {
			t.Errorf("%s reconciled %d Mydemos; want a third of %d, ±20%%", p.name, n, mydemos)
		}
	}
	checkNoOverlap()

	// SIGKILL: the Leases are not released; the others take the buckets
	// once they expire.
	killed := procs[0]
	killedAt := time.Now()
	if err := killed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-killed.done
	eventually(t, 2*leaseDuration, "the killed process' buckets taken over", func() (bool, string) { return allRenewedAfter(killedAt) })
	if took := time.Since(killedAt); took > leaseDuration+2*retryPeriod+time.Second {
		t.Errorf("takeover took %v, lease duration %v", took, leaseDuration)
	}
	waitShares("2 processes holding 6 buckets each", procs[1:], shards/2)

	// A new process: the others give up buckets for it to take.
	start("shard-3")
	live := procs[1:]
	waitShares("3 processes holding 4 buckets each again", live, shards/3)
	if m, err := scrape(procs[3].metricsAddr); err != nil {
		t.Fatal(err)
	} else if n, _ := m.sum("ctrlgen_shard_handovers_total"); n != shards/3 {
		t.Errorf("the new process counts %v handovers, want the %d buckets it gained", n, shards/3)
	}
	// Every Mydemo still converges after the handovers.
	if _, err := md.CrddemoV1().Mydemos(ns).Create(ctx, newMydemo(ns, "sharded-late", "10.0.0.2", 81, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitMydemosReady(t, md, ns, time.Minute, "sharded-late")

	// SIGTERM: the process drains and releases its buckets; the others
	// take them at once.
	stopped := live[0]
	stoppedAt := time.Now()
	if err := stopped.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest := live[1:]
	eventually(t, time.Minute, "the stopped process' buckets taken over", func() (bool, string) {
		sum := 0
		for _, p := range rest {
			sum += max(held(p), 0)
		}
		return sum == shards, fmt.Sprintf("%d buckets held by the others", sum)
	})
	handover := time.Since(stoppedAt)
	t.Logf("graceful handover of %d buckets took %v", shards/3, handover)
	if handover > time.Second {
		t.Errorf("graceful handover took %v, want under a second", handover)
	}
	<-stopped.done
	checkNoOverlap()
}
