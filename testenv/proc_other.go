//go:build !unix

package testenv

import (
	"context"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func signalGroup(pid int, sig syscall.Signal) error { return errUnsupported }

const (
	sigTERM = syscall.SIGTERM
	sigKILL = syscall.SIGKILL
)

func lockFile(ctx context.Context, path string) (func(), error) { return nil, errUnsupported }
