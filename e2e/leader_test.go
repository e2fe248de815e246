package e2e

import (
	"context"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
)

// mydemoProcess is a mydemo command the test runs.
type mydemoProcess struct {
	*child
	metricsAddr, healthAddr string
}

// leaderState is what a process' /metrics says about leadership and work.
type leaderState struct {
	leading    bool
	reconciles float64 // controller_runtime_reconcile_total of the mydemo controller, all results
}

// TestMydemoLeaderElection runs the mydemo command in several processes
// competing for one Lease: only the leader reconciles; when it is killed
// (SIGKILL, so the Lease is not released) another takes over once the
// Lease expires, and when a leader stops gracefully (SIGTERM) it releases
// the Lease and a standby takes over at once. The processes run as the
// ServiceAccount of the generated config/rbac, and the apiserver refuses
// none of their requests.
func TestMydemoLeaderElection(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	md := mydemoClient(t, e)
	kc := kubernetes.NewForConfigOrDie(e.Config())
	ns := namespace(t, kc)
	ctx := context.Background()
	bin := buildMydemo(t)
	account := newMydemoAccount(t, e, ns)

	const (
		leaseDuration = 6 * time.Second
		renewDeadline = 4 * time.Second
		retryPeriod   = 500 * time.Millisecond
		leaseName     = "e2e-mydemo"
	)
	start := func(name string) *mydemoProcess {
		addrs := localAddrs(t, 2)
		p := &mydemoProcess{metricsAddr: addrs[0], healthAddr: addrs[1]}
		p.child = startChild(t, name, bin,
			"--kubeconfig="+account.kubeconfig,
			"--leader-elect=true",
			"--leader-elect-namespace="+ns,
			"--leader-elect-id="+leaseName,
			"--leader-elect-lease-duration="+leaseDuration.String(),
			"--leader-elect-renew-deadline="+renewDeadline.String(),
			"--leader-elect-retry-period="+retryPeriod.String(),
			"--metrics-bind-address="+p.metricsAddr,
			"--webhook-bind-address=", // webhook_test.go serves them
			"--metrics-secure=false",  // scraped over plain HTTP; metrics_test.go is about security
			"--health-probe-bind-address="+p.healthAddr,
			"--workers=2",
			"-v=2",
		)
		return p
	}
	state := func(p *mydemoProcess) (leaderState, error) {
		m, err := scrape(p.metricsAddr)
		if err != nil {
			return leaderState{}, err
		}
		leading, ok1 := m.sum("leader_election_master_status", "name", leaseName)
		reconciles, ok2 := m.sum("controller_runtime_reconcile_total", "controller", mydemo.ControllerName)
		if !ok1 || !ok2 {
			return leaderState{}, fmt.Errorf("%s: leader_election_master_status or controller_runtime_reconcile_total missing", p.name)
		}
		return leaderState{leading: leading == 1, reconciles: reconciles}, nil
	}
	mustState := func(p *mydemoProcess) leaderState {
		t.Helper()
		s, err := state(p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	waitReady := func(p *mydemoProcess) {
		t.Helper()
		poll(t, time.Minute, 50*time.Millisecond, p.name+" to be ready", func() (bool, string) {
			if p.exited() {
				t.Fatalf("%s exited: %v", p.name, p.err)
			}
			code, body, err := httpGet("http://" + p.healthAddr + "/readyz")
			if err != nil {
				return false, err.Error()
			}
			if code, _, _ := httpGet("http://" + p.healthAddr + "/healthz"); code != http.StatusOK {
				return false, fmt.Sprintf("/healthz: %d", code)
			}
			return code == http.StatusOK, fmt.Sprintf("/readyz: %d %s", code, body)
		})
	}
	// exactlyOneLeads checks that of the running processes only leader
	// leads, and that the others have not reconciled anything.
	exactlyOneLeads := func(leader *mydemoProcess, others ...*mydemoProcess) leaderState {
		t.Helper()
		ls := mustState(leader)
		if !ls.leading {
			t.Fatalf("%s does not report leader_election_master_status 1", leader.name)
		}
		for _, o := range others {
			s := mustState(o)
			if s.leading {
				t.Fatalf("both %s and %s report leader_election_master_status 1", leader.name, o.name)
			}
			if s.reconciles != 0 {
				t.Fatalf("%s is not the leader but has reconciled %v times", o.name, s.reconciles)
			}
		}
		return ls
	}
	createMydemos := func(prefix string, n int) []string {
		t.Helper()
		var names []string
		for i := range n {
			name := fmt.Sprintf("%s-%d", prefix, i)
			if _, err := md.CrddemoV1().Mydemos(ns).Create(ctx, newMydemo(ns, name, "10.1.0.1", int32(8000+i), nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
		return names
	}

	a, b := start("a"), start("b")
	waitReady(a)
	waitReady(b)
	var leader, follower *mydemoProcess
	poll(t, 2*leaseDuration, 50*time.Millisecond, "a leader", func() (bool, string) {
		sa, errA := state(a)
		sb, errB := state(b)
		switch {
		case errA != nil || errB != nil:
			return false, fmt.Sprint(errA, errB)
		case sa.leading && sb.leading:
			t.Fatal("a and b both report leader_election_master_status 1")
		case sa.leading:
			leader, follower = a, b
		case sb.leading:
			leader, follower = b, a
		default:
			return false, "neither leads"
		}
		return true, ""
	})
	lease, err := kc.CoordinationV1().Leases(ns).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" ||
		lease.Spec.LeaseDurationSeconds == nil || *lease.Spec.LeaseDurationSeconds != int32(leaseDuration/time.Second) {
		t.Fatalf("Lease spec %+v", lease.Spec)
	}
	t.Logf("%s leads (Lease holder %s)", leader.name, *lease.Spec.HolderIdentity)

	// Only the leader reconciles.
	before := exactlyOneLeads(leader, follower)
	names := createMydemos("first", 10)
	waitMydemosReady(t, md, ns, time.Minute, names...)
	after := exactlyOneLeads(leader, follower)
	if after.reconciles-before.reconciles < float64(len(names)) {
		t.Fatalf("the leader reconciled %v times for %d new Mydemos", after.reconciles-before.reconciles, len(names))
	}

	// A leader killed outright keeps the Lease until it expires.
	killed := time.Now()
	if err := leader.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-leader.done
	poll(t, leaseDuration+30*time.Second, 20*time.Millisecond, follower.name+" to take over", func() (bool, string) {
		s, err := state(follower)
		if err != nil {
			return false, err.Error()
		}
		return s.leading, "not leading yet"
	})
	takeover := time.Since(killed)
	t.Logf("%s took over %v after %s was killed (lease %v, retry period %v)", follower.name, takeover.Round(time.Millisecond), leader.name, leaseDuration, retryPeriod)
	// The Lease was last renewed at most a retry period before the kill,
	// and the standby must wait for it to expire (from when it last saw
	// the Lease change, at most 2.2 retry periods after the kill: client-go
	// jitters the period by up to 1.2 of it); it then acquires it at its
	// next attempt, at most 2.2 retry periods later. The upper bound allows
	// that plus 3s for requests, the scrape, and a loaded machine.
	if lo := leaseDuration - 2*retryPeriod; takeover < lo {
		t.Errorf("%s took over after %v, before the killed leader's Lease expired (at least %v)", follower.name, takeover, lo)
	}
	if hi := leaseDuration + 5*retryPeriod + 3*time.Second; takeover > hi {
		t.Errorf("%s took over after %v, want at most %v", follower.name, takeover, hi)
	}
	leader, follower = follower, nil
	names = append(names, createMydemos("failover", 1)...)
	waitMydemosReady(t, md, ns, time.Minute, names...)
	if s := exactlyOneLeads(leader); s.reconciles < float64(len(names)) {
		t.Fatalf("the new leader reconciled %v times; it should have reconciled the %d Mydemos", s.reconciles, len(names))
	}

	// A leader stopped gracefully releases the Lease: a standby takes over
	// at its next attempt instead of waiting for the Lease to expire.
	c := start("c")
	waitReady(c)
	exactlyOneLeads(leader, c)
	terminated := time.Now()
	if err := leader.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	poll(t, leaseDuration+30*time.Second, 20*time.Millisecond, "c to take over", func() (bool, string) {
		s, err := state(c)
		if err != nil {
			return false, err.Error()
		}
		return s.leading, "not leading yet"
	})
	handover := time.Since(terminated)
	t.Logf("c took over %v after %s got SIGTERM", handover.Round(time.Millisecond), leader.name)
	if handover >= leaseDuration/2 {
		t.Errorf("c took over %v after SIGTERM to %s: the Lease was not released (it lasts %v)", handover, leader.name, leaseDuration)
	}
	select {
	case <-leader.done:
		if leader.err != nil {
			t.Errorf("%s exited with %v after SIGTERM, want 0", leader.name, leader.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still running 30s after SIGTERM", leader.name)
	}
	names = append(names, createMydemos("handover", 1)...)
	waitMydemosReady(t, md, ns, time.Minute, names...)
	if s := exactlyOneLeads(c); s.reconciles < float64(len(names)) {
		t.Fatalf("c reconciled %v times; it should have reconciled the %d Mydemos", s.reconciles, len(names))
	}
}
