//go:build !linux

package e2e

import (
	"os/exec"
	"syscall"
)

func childSysProcAttr() *syscall.SysProcAttr { return nil }

func startChildProcess(cmd *exec.Cmd) error { return cmd.Start() }
