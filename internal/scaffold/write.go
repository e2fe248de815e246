package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/atomicfile"
)

// Write writes files under dir. A new file must not exist and an Update
// must; otherwise Write names every file in the way and writes nothing.
// Each file is written to a temporary file next to it and moved into
// place, so that no file is ever half written; a new one is linked into
// place, which fails rather than replace a file that appeared meanwhile.
func Write(dir string, files []File) error {
	var exist, missing []string
	for _, f := range files {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.Path)))
		switch {
		case err == nil && !f.Update:
			exist = append(exist, f.Path)
		case errors.Is(err, fs.ErrNotExist) && f.Update:
			missing = append(missing, f.Path)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	var errs []error
	if len(exist) > 0 {
		errs = append(errs, fmt.Errorf("not overwriting what is there: %s", strings.Join(exist, ", ")))
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("missing, and needed to add to: %s", strings.Join(missing, ", ")))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Content, f.Update); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(name string, content []byte, replace bool) error {
	if !replace {
		err := atomicfile.Create(name, content, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("not overwriting %s, which appeared while writing", name)
		}
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(name); err == nil {
		mode = fi.Mode().Perm()
	}
	return atomicfile.Write(name, content, mode)
}
