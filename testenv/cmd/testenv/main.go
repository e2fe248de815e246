// Command testenv runs ctrlgen's local control plane (etcd, kube-apiserver,
// kube-controller-manager) until it is interrupted:
//
//	go run ./testenv/cmd/testenv --kubeconfig /tmp/demo.kubeconfig
//	go run github.com/ctrlgen/ctrlgen/testenv/cmd/testenv --crd-dir config/crd --kubeconfig local.kubeconfig
//
// It writes the admin kubeconfig to the --kubeconfig path, prints "ready" on
// stdout, and on SIGINT or SIGTERM stops everything and removes its files
// (except the kubeconfig copy). It does the same when its parent process
// exits: `go run` does not pass SIGTERM on to the program, it just dies.
// With --build-only it just builds the binary; with --module-dir it writes
// the control plane's Go module and prints its directory, for go vet.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ctrlgen/ctrlgen/testenv"
)

func main() {
	var (
		kubeconfig  = flag.String("kubeconfig", "", "write the admin kubeconfig to this file (required unless --build-only)")
		dir         = flag.String("dir", "", "directory for data, certificates and logs (default: a temporary directory, removed at exit)")
		verbose     = flag.Bool("v", false, "copy the components' logs to stderr")
		noKCM       = flag.Bool("no-controller-manager", false, "don't run kube-controller-manager")
		noWatchCach = flag.Bool("disable-watch-cache", false, "run kube-apiserver with --watch-cache=false")
		buildOnly   = flag.Bool("build-only", false, "build (or update) the control-plane binary, print its path and exit")
		moduleDir   = flag.Bool("module-dir", false, "write the control plane's Go module (where the binary is built), print its directory and exit")
		crdDirs     stringList
	)
	flag.Var(&crdDirs, "crd-dir", "install the CustomResourceDefinitions in this directory (a project's config/crd) and wait until they are Established; repeatable")
	flag.Parse()
	var err error
	if *moduleDir {
		err = printModuleDir()
	} else {
		err = run(*kubeconfig, *dir, *verbose, *noKCM, *noWatchCach, *buildOnly, crdDirs)
	}
	if err != nil {
		if !strings.HasPrefix(err.Error(), "testenv: ") {
			err = fmt.Errorf("testenv: %w", err)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func run(kubeconfig, dir string, verbose, noKCM, noWatchCache, buildOnly bool, crdDirs []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

	if buildOnly {
		start := time.Now()
		bin, err := testenv.BuildBinary(ctx, logf)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "testenv: %s is up to date (%v)\n", bin, time.Since(start).Round(time.Millisecond))
		fmt.Println(bin)
		return nil
	}
	if kubeconfig == "" {
		return fmt.Errorf("--kubeconfig is required")
	}

	opts := testenv.Options{Dir: dir, DisableControllerManager: noKCM, DisableWatchCache: noWatchCache, CRDDirectoryPaths: crdDirs}
	if verbose {
		opts.Logs = os.Stderr
	}
	// Build first (it may take minutes the first time) so that the start-up
	// time reported below means something.
	if _, err := testenv.BuildBinary(ctx, logf); err != nil {
		return err
	}
	start := time.Now()
	env, err := testenv.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer env.Stop()
	if err := writeFile(kubeconfig, env.Kubeconfig()); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "testenv: control plane up in %v: %s, kubeconfig %s, logs in %s/logs\n",
		time.Since(start).Round(time.Millisecond), env.Config().Host, kubeconfig, env.Dir())
	fmt.Println("ready")

	select {
	case <-ctx.Done():
	case <-parentGone():
		fmt.Fprintln(os.Stderr, "testenv: parent process exited")
	}
	stop() // a second signal kills us the default way
	fmt.Fprintln(os.Stderr, "testenv: stopping")
	return env.Stop()
}

func printModuleDir() error {
	dir, err := testenv.ModuleDir(context.Background())
	if err != nil {
		return err
	}
	fmt.Println(dir)
	return nil
}

func writeFile(path, content string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parentGone is closed when this process's parent exits (we get reparented).
func parentGone() <-chan struct{} {
	ch := make(chan struct{})
	ppid := os.Getppid()
	go func() {
		for os.Getppid() == ppid {
			time.Sleep(500 * time.Millisecond)
		}
		close(ch)
	}()
	return ch
}
