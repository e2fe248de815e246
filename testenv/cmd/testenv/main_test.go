package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// The command a project runs its controller against: it starts the
// control plane, installs the project's CRDs, writes a kubeconfig, says
// "ready", and stops on SIGTERM.
func TestRunInstallsCRDsAndWritesAKubeconfig(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	bin := filepath.Join(t.TempDir(), "testenv")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	crdDir, err := filepath.Abs(filepath.Join("..", "..", "..", "examples", "mydemo", "config", "crd"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--no-controller-manager", "--crd-dir", crdDir, "--kubeconfig", kubeconfig)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
			}
		}
		close(ready)
		exited <- cmd.Wait()
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("testenv exited before it was ready")
		}
	case <-time.After(5 * time.Minute):
		t.Fatal("testenv not ready after 5 minutes")
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := kc.Discovery().RESTClient().Get().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/mydemos.crddemo.k8s.io").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("the CRD of --crd-dir: %v", err)
	}
	var crd struct {
		Status struct {
			Conditions []struct{ Type, Status string }
		}
	}
	if err := json.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	established := false
	for _, c := range crd.Status.Conditions {
		established = established || c.Type == "Established" && c.Status == "True"
	}
	if !established {
		t.Fatalf("the CRD is not Established when testenv says ready: %s", raw)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("testenv stopped on SIGTERM with %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("testenv still running a minute after SIGTERM")
	}
}
