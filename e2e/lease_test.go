package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

// TestManagerCampaignsAgainAfterLosingTheLease cuts a leading manager off
// from the apiserver until its lease renewal fails. The manager must stop
// its controllers without exiting, and once it can reach the apiserver
// again, win the Lease back and reconcile what changed meanwhile.
func TestManagerCampaignsAgainAfterLosingTheLease(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	md := mydemoClient(t, e)
	ns := namespace(t, kubernetes.NewForConfigOrDie(e.Config()))

	apiserver, _ := url.Parse(e.Config().Host)
	p := startProxy(t, apiserver.Host)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(strings.ReplaceAll(e.Kubeconfig(), apiserver.Host, p.Addr())), 0o600); err != nil {
		t.Fatal(err)
	}

	o := manager.DefaultOptions()
	addr := localAddr(t)
	o.Kubeconfig, o.MetricsAddr, o.HealthAddr = kubeconfig, addr, addr
	o.MetricsSecure = false // plain HTTP, shared with the probes: metrics_test.go is about security
	o.LeaderElectionNamespace, o.LeaderElectionID = ns, "lease-loss"
	o.LeaseDuration, o.RenewDeadline, o.RetryPeriod = 4*time.Second, 3*time.Second, 250*time.Millisecond
	m := manager.New(o)
	m.Register(mydemo.ControllerName, mydemo.Init)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var runErr error
	go func() {
		defer close(done)
		runErr = m.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if runErr != nil {
			t.Errorf("manager: %v", runErr)
		}
	})

	leading := func(want float64) func() (bool, string) {
		return func() (bool, string) {
			select {
			case <-done:
				t.Fatalf("the manager exited: %v", runErr)
			default:
			}
			s, err := scrape(addr)
			if err != nil {
				return false, err.Error()
			}
			v, _ := s.sum("leader_election_master_status")
			return v == want, fmt.Sprintf("leader_election_master_status %v", v)
		}
	}
	poll(t, time.Minute, 50*time.Millisecond, "the manager to lead", leading(1))
	if _, err := md.CrddemoV1().Mydemos(ns).Create(context.Background(), newMydemo(ns, "before", "10.0.0.1", 80, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitMydemosReady(t, md, ns, time.Minute, "before")

	p.Cut()
	poll(t, 30*time.Second, 50*time.Millisecond, "the manager to lose the lease", leading(0))
	if _, err := md.CrddemoV1().Mydemos(ns).Create(context.Background(), newMydemo(ns, "during", "10.0.0.2", 81, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p.Restore()
	poll(t, time.Minute, 50*time.Millisecond, "the manager to lead again", leading(1))
	waitMydemosReady(t, md, ns, time.Minute, "during")
}
