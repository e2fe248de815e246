package e2e

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
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

	"github.com/ctrlgen/ctrlgen/internal/testmod"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// reconcileSpan is one line of the mydemo command's --reconcile-trace-file.
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
// taken over once their Leases expire and its Mydemos changed meanwhile
// converge, a new process gets its share, and
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
			"--webhook-bind-address=", // webhook_test.go serves them
			"--metrics-secure=false",  // scraped over plain HTTP; metrics_test.go is about security
			"--health-probe-bind-address="+addrs[1],
			"--workers=8",
		)
		procs = append(procs, p)
		return p
	}
	// identity is the shard identity p logs when it starts campaigning,
	// the holder its bucket Leases name.
	identityRE := regexp.MustCompile(`"Campaigning for shard buckets".* identity="([^"]+)"`)
	identity := func(p *proc) string {
		t.Helper()
		var id string
		eventually(t, time.Minute, p.name+"'s shard identity in its log", func() (bool, string) {
			m := identityRE.FindSubmatch([]byte(testmod.Read(t, p.logPath)))
			if m == nil {
				return false, "not logged yet"
			}
			id = string(m[1])
			return true, ""
		})
		return id
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
	// The bucket Leases' holders and times, by name.
	type bucketLease struct {
		holder                 string
		transitions            int32
		acquire, renew, expiry time.Time
	}
	listBucketLeases := func() (map[string]bucketLease, error) {
		leases, err := kc.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.Set{"ctrlgen.io/shard-role": "bucket"}.String()})
		if err != nil {
			return nil, err
		}
		got := map[string]bucketLease{}
		for _, l := range leases.Items {
			var b bucketLease
			if l.Spec.HolderIdentity != nil {
				b.holder = *l.Spec.HolderIdentity
			}
			if l.Spec.LeaseTransitions != nil {
				b.transitions = *l.Spec.LeaseTransitions
			}
			if l.Spec.AcquireTime != nil {
				b.acquire = l.Spec.AcquireTime.Time
			}
			if l.Spec.RenewTime != nil {
				b.renew = l.Spec.RenewTime.Time
				if l.Spec.LeaseDurationSeconds != nil {
					b.expiry = b.renew.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second)
				}
			}
			got[l.Name] = b
		}
		return got, nil
	}
	bucketLeases := func() map[string]bucketLease {
		t.Helper()
		got, err := listBucketLeases()
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// changedHands returns the buckets whose holder changed from before
	// to after, with their Leases before and after.
	changedHands := func(before, after map[string]bucketLease) map[string][2]bucketLease {
		moved := map[string][2]bucketLease{}
		for name, a := range after {
			if b := before[name]; b.holder != "" && a.holder != b.holder {
				moved[name] = [2]bucketLease{b, a}
			}
		}
		return moved
	}
	// ownedBy keeps the moves of the buckets id held before.
	ownedBy := func(moved map[string][2]bucketLease, id string) map[string][2]bucketLease {
		maps.DeleteFunc(moved, func(_ string, l [2]bucketLease) bool { return l[0].holder != id })
		return moved
	}
	heldBy := func(leases map[string]bucketLease, id string) int {
		n := 0
		for _, l := range leases {
			if l.holder == id {
				n++
			}
		}
		return n
	}
	// Each bucket's Lease renewed after at, by whoever holds it.
	allRenewedAfter := func(at time.Time) (bool, string) {
		leases, err := listBucketLeases()
		if err != nil {
			return false, err.Error()
		}
		fresh := 0
		for _, l := range leases {
			if l.holder != "" && l.renew.After(at) {
				fresh++
			}
		}
		return fresh == shards, fmt.Sprintf("%d of %d buckets renewed since", fresh, shards)
	}

	// checkDivided checks that the Mydemos of each bucket whose Lease kept
	// its holder from before to after were reconciled by one process only,
	// a different one for each holder. On a loaded machine a renewal can
	// miss its deadline and move a bucket; its Mydemos are then reconciled
	// by both holders, one after the other, so only the even split is
	// skipped.
	checkDivided := func(before, after map[string]bucketLease) {
		t.Helper()
		byBucket := make([]map[string]int, shards) // reconciles by process
		perProcess := map[string]int{}             // buckets by process
		for _, p := range procs {
			for _, s := range readTrace(t, p.name, p.trace, "mydemo", ns) {
				namespace, name, _ := strings.Cut(s.key, "/")
				b := controller.Bucket(cache.ObjectName{Namespace: namespace, Name: name}, shards)
				if byBucket[b] == nil {
					byBucket[b] = map[string]int{}
				}
				byBucket[b][p.name]++
			}
		}
		processOf := map[string]string{}
		var moved []int
		for b := range shards {
			name := fmt.Sprintf("%s-shard-%d", group, b)
			was, is := before[name], after[name]
			if was.holder == "" || was.holder != is.holder || was.transitions != is.transitions {
				moved = append(moved, b)
				continue
			}
			reconcilers := slices.Sorted(maps.Keys(byBucket[b]))
			if len(reconcilers) != 1 {
				t.Errorf("bucket %d was held by %s throughout, yet its Mydemos were reconciled by %v", b, is.holder, reconcilers)
				continue
			}
			if p, ok := processOf[is.holder]; ok && p != reconcilers[0] {
				t.Errorf("buckets held by %s were reconciled by %s and by %s", is.holder, p, reconcilers[0])
			}
			processOf[is.holder] = reconcilers[0]
		}
		for _, p := range procs {
			for b := range shards {
				if _, ok := byBucket[b][p.name]; ok {
					perProcess[p.name]++
				}
			}
		}
		if len(moved) > 0 {
			t.Logf("buckets %v changed hands while the Mydemos were created (renewals missed their deadline under load); buckets reconciled per process: %v", moved, perProcess)
			return
		}
		if len(processOf) != len(procs) {
			t.Errorf("%d holders reconciled the buckets, want %d: %v", len(processOf), len(procs), processOf)
		}
		for _, p := range procs {
			keys := map[string]bool{}
			for _, s := range readTrace(t, p.name, p.trace, "mydemo", ns) {
				keys[s.key] = true
			}
			n := len(keys)
			t.Logf("%s reconciled %d Mydemos", p.name, n)
			if n < mydemos/3*8/10 || n > mydemos/3*12/10 {
				t.Errorf("%s reconciled %d Mydemos; want a third of %d, ±20%%", p.name, n, mydemos)
			}
		}
	}

	for i := range 3 {
		start(fmt.Sprintf("shard-%d", i))
	}
	waitShares("3 processes holding 4 buckets each", procs, shards/3)
	before := bucketLeases()

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
	checkDivided(before, bucketLeases())
	checkNoOverlap()

	// SIGKILL: the Leases are not released; the others take the buckets
	// once they expire.
	killed := procs[0]
	killedAt := time.Now()
	if err := killed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-killed.done
	leasesAtKill := bucketLeases()
	// Change Mydemos of the killed process' buckets while nobody holds
	// them: they must converge once the buckets are taken over.
	killedIdentity := identity(killed)
	bucketOf := func(name string) int { return controller.Bucket(cache.ObjectName{Namespace: ns, Name: name}, shards) }
	holderOf := func(b int) string { return leasesAtKill[fmt.Sprintf("%s-shard-%d", group, b)].holder }
	var orphaned []string
	for _, name := range names {
		if len(orphaned) == 200 {
			break
		}
		if holderOf(bucketOf(name)) != killedIdentity {
			continue
		}
		orphaned = append(orphaned, name)
		obj, err := md.CrddemoV1().Mydemos(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		obj.Spec.Port++
		if _, err := md.CrddemoV1().Mydemos(ns).Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(orphaned) < 200 {
		t.Fatalf("found %d Mydemos in the buckets of %s (killed), want 200", len(orphaned), killedIdentity)
	}
	eventually(t, 2*leaseDuration, "the killed process' buckets taken over", func() (bool, string) { return allRenewedAfter(killedAt) })
	// Judged by the times the replicas wrote into the Leases, not by when
	// this test saw them: a taken-over bucket is acquired once its Lease
	// has expired, never before, and at the latest a campaign tick or two
	// (retry period plus the tick's own API calls) after.
	// Only the killed process' buckets are judged: on a loaded machine a
	// live process can miss a renewal and lose one too, later.
	takenOver := ownedBy(changedHands(leasesAtKill, bucketLeases()), killedIdentity)
	if n := heldBy(leasesAtKill, killedIdentity); len(takenOver) != n || n == 0 {
		t.Errorf("%d of the killed process' %d buckets changed hands, want all", len(takenOver), n)
	}
	for name, l := range takenOver {
		before, after := l[0], l[1]
		late := after.acquire.Sub(before.expiry)
		t.Logf("%s taken over %v after its Lease expired", name, late)
		if late < 0 {
			t.Errorf("%s acquired by %s at %v, before its Lease held by %s expired at %v", name, after.holder, after.acquire, before.holder, before.expiry)
		}
		if late > 2*retryPeriod+2*time.Second {
			t.Errorf("%s taken over %v after its Lease expired, want within two campaign ticks", name, late)
		}
	}
	waitMydemosReady(t, md, ns, time.Minute, orphaned...)
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
	leasesAtStop := bucketLeases()
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
	t.Logf("graceful handover of %d buckets seen after %v", shards/3, time.Since(stoppedAt))
	<-stopped.done
	// Released, not expired: each was acquired before the Lease the
	// stopped process last renewed would have expired.
	stoppedIdentity := identity(stopped)
	handedOver := ownedBy(changedHands(leasesAtStop, bucketLeases()), stoppedIdentity)
	if n := heldBy(leasesAtStop, stoppedIdentity); len(handedOver) != n || n == 0 {
		t.Errorf("%d of the stopped process' %d buckets changed hands after SIGTERM, want all", len(handedOver), n)
	}
	for name, l := range handedOver {
		before, after := l[0], l[1]
		if !after.acquire.Before(before.expiry) {
			t.Errorf("%s acquired at %v, not before its old Lease expired at %v: it was not released", name, after.acquire, before.expiry)
		}
	}
	checkNoOverlap()
}
