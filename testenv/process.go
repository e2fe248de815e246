package testenv

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// proc is one running child: etcd, kube-apiserver or kube-controller-manager.
type proc struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed once the process has exited and been reaped
	err     error         // cmd.Wait's result; read only after done
}

// startProc starts `bin name args...` in its own process group, with
// stdout and stderr appended to logPath (and copied to logs if not nil).
func startProc(bin, dir, name, logPath string, args []string, logs io.Writer, logsMu *sync.Mutex) (*proc, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(f, "=== %s: starting %s %s\n", time.Now().Format(time.RFC3339Nano), name, strings.Join(args, " "))

	cmd := exec.Command(bin, append([]string{name}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTRLPLANE_PARENT_PID="+strconv.Itoa(os.Getpid()))
	cmd.SysProcAttr = sysProcAttr()
	var pw *prefixWriter
	if logs != nil {
		pw = &prefixWriter{prefix: "[" + name + "] ", w: logs, mu: logsMu}
		w := io.MultiWriter(f, pw)
		cmd.Stdout, cmd.Stderr = w, w
	} else {
		cmd.Stdout, cmd.Stderr = f, f // the child writes to the file directly
	}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		if pw != nil {
			pw.flush()
		}
		fmt.Fprintf(f, "=== %s: %s (pid %d) exited: %v\n", time.Now().Format(time.RFC3339Nano), name, cmd.Process.Pid, exitStatus(p.err))
		f.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the process group and, if it is still there after
// grace, SIGKILL; with grace 0 it sends SIGKILL at once. It returns once the
// process has been reaped.
func (p *proc) stop(grace time.Duration) error {
	if p.exited() {
		return nil
	}
	pid := p.pid()
	if grace > 0 {
		if err := signalGroup(pid, sigTERM); err != nil {
			return fmt.Errorf("stopping %s (pid %d): %w", p.name, pid, err)
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-p.done:
			// Reap any stragglers in the group too (there should be none).
			_ = signalGroup(pid, sigKILL)
			return nil
		case <-t.C:
		}
	}
	if err := signalGroup(pid, sigKILL); err != nil {
		return fmt.Errorf("killing %s (pid %d): %w", p.name, pid, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, pid)
	}
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// logTail returns the last lines of a component's log, for error messages.
func logTail(path string, maxLines int) string {
	const maxBytes = 16 << 10
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxBytes {
		_, _ = f.Seek(-maxBytes, io.SeekEnd)
	}
	data, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return strings.Join(lines, "\n")
}

// prefixWriter copies whole lines to w, each prefixed with the component's
// name; mu is shared by all components writing to the same w.
type prefixWriter struct {
	prefix string
	w      io.Writer
	mu     *sync.Mutex
	buf    []byte // incomplete last line; only touched by the copying goroutine
}

func (pw *prefixWriter) Write(b []byte) (int, error) {
	pw.buf = append(pw.buf, b...)
	i := bytes.LastIndexByte(pw.buf, '\n')
	if i < 0 {
		if len(pw.buf) < 64<<10 {
			return len(b), nil
		}
		i = len(pw.buf) - 1 // a very long line: flush it anyway
	}
	pw.emit(pw.buf[:i+1])
	pw.buf = append(pw.buf[:0], pw.buf[i+1:]...)
	return len(b), nil
}

func (pw *prefixWriter) flush() {
	if len(pw.buf) > 0 {
		pw.emit(append(pw.buf, '\n'))
		pw.buf = pw.buf[:0]
	}
}

func (pw *prefixWriter) emit(lines []byte) {
	var out bytes.Buffer
	for _, l := range bytes.SplitAfter(lines, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		out.WriteString(pw.prefix)
		out.Write(l)
	}
	pw.mu.Lock()
	defer pw.mu.Unlock()
	_, _ = pw.w.Write(out.Bytes()) // errors from the user's writer don't stop the child
}
