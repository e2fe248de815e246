// Command ctrlgen generates deep-copy functions, scheme registration, typed
// clientsets, listers, informers and controller skeletons for
// Kubernetes-style API packages in one pass.
//
//	ctrlgen [flags] PACKAGE...
//
// It also starts a project, as kubebuilder does:
//
//	ctrlgen init --domain DOMAIN --repo MODULE
//	ctrlgen create api --group GROUP --version VERSION --kind KIND
//	ctrlgen create webhook --group GROUP --version VERSION --kind KIND --defaulting --programmatic-validation
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/internal/scaffold"
)

func main() {
	var err error
	if scaffold.IsCommand(os.Args[1:]) {
		err = scaffold.Main(os.Args[1:], ".", os.Stdout, os.Stderr)
	} else {
		err = generate()
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "ctrlgen:", err)
		os.Exit(1)
	}
}

func generate() error {
	collectLessOften()
	cfg, err := ctrlgen.ParseArgs(os.Args[1:], os.Stderr)
	if err != nil {
		return err
	}
	return ctrlgen.Run(cfg)
}

// collectLessOften sets the garbage collector for a run of a fraction of
// a second that keeps most of what it allocates until the files are
// written: with Go's default, collections cost a fifth of a CRD run's
// CPU. At 200 they cost about as little as at 400 or off, and the peak
// memory of a run over all of k8s.io/api grows less. GOGC and
// GOMEMLIMIT, when set, still rule.
func collectLessOften() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1 << 30)
	}
}
