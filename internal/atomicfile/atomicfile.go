// Package atomicfile writes files whole or not at all: into a temporary
// file in the same directory, then renamed (or linked) into place.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to name with mode perm, replacing the file if it
// exists, and makes name's directory if missing.
func Write(name string, data []byte, perm fs.FileMode) error {
	return place(name, data, perm, os.Rename)
}

// Create is Write, but fails with an error satisfying
// errors.Is(err, fs.ErrExist) if name exists, also when it appears while
// data is written.
func Create(name string, data []byte, perm fs.FileMode) error {
	return place(name, data, perm, os.Link)
}

func place(name string, data []byte, perm fs.FileMode, into func(tmp, name string) error) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a rename, a no-op
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = into(tmp.Name(), name)
	}
	return err
}
