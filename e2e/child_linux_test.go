package e2e

import (
	"os/exec"
	"runtime"
	"syscall"
)

// childSysProcAttr makes the kernel SIGKILL a child when the thread that
// started it dies, so that children of a test binary that panics or times
// out (and so never runs its cleanups) do not outlive it.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// startChildProcess starts cmd on a thread that stays alive until the test
// binary exits: Pdeathsig fires when the parent *thread* dies, and Go only
// ends a thread when a goroutine exits while locked to it, which this one
// does not (it unlocks first).
func startChildProcess(cmd *exec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Start()
}
