// Package cgout keeps what controller-gen's generators write in memory,
// for the benchmarks and checks that compare ctrlgen's files with theirs.
package cgout

import (
	"bytes"
	"io"
	"sync"

	cgloader "sigs.k8s.io/controller-tools/pkg/loader"
)

// Memory is a genall.OutputRule that keeps each file written.
type Memory struct {
	mu    sync.Mutex
	files map[string]*bytes.Buffer
}

// Open starts the file at path, replacing an earlier one.
func (m *Memory) Open(_ *cgloader.Package, path string) (io.WriteCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string]*bytes.Buffer{}
	}
	b := &bytes.Buffer{}
	m.files[path] = b
	return nopCloser{b}, nil
}

// Files returns what was written, by path.
func (m *Memory) Files() map[string][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string][]byte, len(m.files))
	for name, b := range m.files {
		out[name] = b.Bytes()
	}
	return out
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
