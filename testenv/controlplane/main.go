//go:build ignore

// Command ctrlplane is a multi-call binary holding a local Kubernetes control
// plane for ctrlgen's end-to-end tests, so that the large k8s.io/kubernetes
// dependency tree is compiled and linked only once:
//
//	ctrlplane etcd [flags]                     embedded etcd (go.etcd.io/etcd/server/v3/embed)
//	ctrlplane kube-apiserver [flags]           k8s.io/kubernetes/cmd/kube-apiserver
//	ctrlplane kube-controller-manager [flags]  k8s.io/kubernetes/cmd/kube-controller-manager
//	ctrlplane version                          prints the versions built in
//
// The binary is also dispatched on its own name (argv[0]) like busybox, so a
// symlink named kube-apiserver works too.
//
// If CTRLPLANE_PARENT_PID is set, the process stops itself (SIGTERM, then exit
// after a grace period) once that process is no longer its parent, so that a
// test binary killed by a timeout leaves no control plane behind.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"
	_ "time/tzdata" // for CronJob time zone support, as in the upstream mains

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics plugins
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric registration
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

const usage = `usage: ctrlplane COMMAND [flags]

commands:
  etcd                     run an embedded etcd server
  kube-apiserver           run kube-apiserver
  kube-controller-manager  run kube-controller-manager
  version                  print the versions built in
`

func main() {
	exitWithParent()
	name := filepath.Base(os.Args[0])
	args := os.Args[1:]
	switch name {
	case "etcd", "kube-apiserver", "kube-controller-manager":
	default:
		if len(args) == 0 {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		name, args = args[0], args[1:]
	}
	switch name {
	case "etcd":
		os.Exit(runEtcd(args))
	case "kube-apiserver":
		cmd := apiserver.NewAPIServerCommand()
		cmd.SetArgs(args)
		os.Exit(cli.Run(cmd))
	case "kube-controller-manager":
		cmd := controllermanager.NewControllerManagerCommand()
		cmd.SetArgs(args)
		os.Exit(cli.Run(cmd))
	case "version", "--version", "-version":
		printVersions()
	case "help", "-h", "--help", "-help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "ctrlplane: unknown command %q\n\n%s", name, usage)
		os.Exit(2)
	}
}

func printVersions() {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Println("no build info")
		return
	}
	fmt.Println("go", bi.GoVersion)
	for _, m := range bi.Deps {
		switch m.Path {
		case "k8s.io/kubernetes", "k8s.io/apiserver", "go.etcd.io/etcd/server/v3":
			v := m.Version
			if m.Replace != nil {
				v = m.Replace.Version
			}
			fmt.Println(m.Path, v)
		}
	}
}

// exitWithParent watches for the death of the process named by
// CTRLPLANE_PARENT_PID (we get reparented) and then terminates this process:
// first SIGTERM to itself so the component shuts down cleanly, then a hard
// exit if that takes too long.
func exitWithParent() {
	want, err := strconv.Atoi(os.Getenv("CTRLPLANE_PARENT_PID"))
	if err != nil || want <= 0 {
		return
	}
	go func() {
		for os.Getppid() == want {
			time.Sleep(500 * time.Millisecond)
		}
		fmt.Fprintf(os.Stderr, "ctrlplane: parent process %d is gone, shutting down\n", want)
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(10 * time.Second)
		os.Exit(1)
	}()
}
