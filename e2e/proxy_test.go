package e2e

import (
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/ctrlgen/ctrlgen/testenv"
)

// proxy forwards TCP connections to target. Cut severs every connection
// and refuses new ones until Restore, so one client can be disconnected
// from the apiserver while others keep writing.
type proxy struct {
	target string
	ln     net.Listener

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.Cut() })
	return p
}

func (p *proxy) Addr() string { return p.ln.Addr().String() }

// proxied starts a proxy to e's apiserver and returns it with a client
// config that goes through it, so a test can cut a reader off.
func proxied(t *testing.T, e *testenv.Env) (*proxy, *rest.Config) {
	t.Helper()
	apiserver, _ := url.Parse(e.Config().Host)
	p := startProxy(t, apiserver.Host)
	cfg := e.Config()
	cfg.Host = "https://" + p.Addr()
	return p, cfg
}

func (p *proxy) serve() {
	for {
		in, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		go p.forward(in)
	}
}

func (p *proxy) forward(in net.Conn) {
	if !p.track(in) {
		in.Close()
		return
	}
	out, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(out) {
		in.Close()
		if out != nil {
			out.Close()
		}
		return
	}
	var wg sync.WaitGroup
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		io.Copy(dst, src)
		dst.Close()
		src.Close()
	}
	wg.Add(2)
	go pipe(out, in)
	go pipe(in, out)
	wg.Wait()
	p.untrack(in)
	p.untrack(out)
}

func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// Cut closes every connection and refuses new ones.
func (p *proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// Restore accepts connections again.
func (p *proxy) Restore() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
}
