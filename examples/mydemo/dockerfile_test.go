package main

import (
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// Docker does not run here, so this test reads the Dockerfile and does
// what its builder stage does, with the same commands, in a directory
// standing for the builder's filesystem: COPY copies from the repository
// root (the build context), RUN runs in a shell there. Then it checks
// what the final stage takes from it.

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	line int
	cmd  string // upper case: FROM, RUN, ...
	args string
}

// stage is a FROM and the instructions after it.
type stage struct {
	base, name string
	instrs     []instruction
}

func parseDockerfile(t *testing.T, file string) []stage {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var stages []stage
	var pending strings.Builder
	start := 0
	for i, l := range strings.Split(string(raw), "\n") {
		trimmed := strings.TrimSpace(l)
		if pending.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if pending.Len() == 0 {
			start = i + 1
		}
		if cont, ok := strings.CutSuffix(trimmed, `\`); ok {
			pending.WriteString(cont + " ")
			continue
		}
		pending.WriteString(trimmed)
		cmd, args, _ := strings.Cut(pending.String(), " ")
		pending.Reset()
		in := instruction{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			s := stage{base: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) == 0 {
			t.Fatalf("%s:%d: %s before FROM", file, in.line, in.cmd)
		}
		stages[len(stages)-1].instrs = append(stages[len(stages)-1].instrs, in)
	}
	return stages
}

// builderFS runs a stage's instructions in root.
type builderFS struct {
	t        *testing.T
	context  string // the build context: the repository root
	root     string
	workdir  string // in the image, absolute
	args     map[string]string
	commands []string // the RUN lines, as run
}

func (b *builderFS) host(p string) string {
	if !path.IsAbs(p) {
		p = path.Join(b.workdir, p)
	}
	return filepath.Join(b.root, filepath.FromSlash(p))
}

func (b *builderFS) run(in instruction) {
	t := b.t
	t.Helper()
	switch in.cmd {
	case "ARG":
		name, value, _ := strings.Cut(in.args, "=")
		switch name { // the platform BuildKit sets for the target
		case "TARGETOS":
			value = runtime.GOOS
		case "TARGETARCH":
			value = runtime.GOARCH
		}
		b.args[name] = value
	case "WORKDIR":
		b.workdir = path.Join(b.workdir, in.args)
		if path.IsAbs(in.args) {
			b.workdir = in.args
		}
		if err := os.MkdirAll(b.host("."), 0o755); err != nil {
			t.Fatal(err)
		}
	case "COPY":
		f := strings.Fields(in.args)
		srcs, dst := f[:len(f)-1], f[len(f)-1]
		for _, src := range srcs {
			from := filepath.Join(b.context, filepath.FromSlash(src))
			info, err := os.Stat(from)
			if err != nil {
				t.Fatalf("Dockerfile:%d: COPY %s: %v", in.line, src, err)
			}
			to := b.host(dst)
			if info.IsDir() {
				err = copyDir(from, to)
			} else {
				if strings.HasSuffix(dst, "/") || len(srcs) > 1 {
					to = filepath.Join(to, filepath.Base(from))
				}
				err = copyFile(from, to)
			}
			if err != nil {
				t.Fatalf("Dockerfile:%d: COPY %s %s: %v", in.line, src, dst, err)
			}
		}
	case "RUN":
		cmd := exec.Command("sh", "-c", in.args)
		cmd.Dir = b.host(".")
		cmd.Env = os.Environ()
		for k, v := range b.args {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("Dockerfile:%d: RUN %s: %v\n%s", in.line, in.args, err, out)
		}
		b.commands = append(b.commands, in.args)
	default:
		t.Fatalf("Dockerfile:%d: the test does not know %s in a builder stage", in.line, in.cmd)
	}
}

// copyDir copies the tree under from into to, replacing files there, as
// COPY does.
func copyDir(from, to string) error {
	return filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		return copyFile(p, filepath.Join(to, rel))
	})
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

func TestDockerfileBuildsAStaticManagerForANonRootImage(t *testing.T) {
	stages := parseDockerfile(t, "Dockerfile")
	if len(stages) != 2 || stages[0].name == "" {
		t.Fatalf("want two stages, a named builder and the image: %+v", stages)
	}
	builder, image := stages[0], stages[1]

	gomod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil {
		t.Fatal(err)
	}
	goMinor := strings.Join(strings.SplitN(mf.Go.Version, ".", 3)[:2], ".")
	if builder.base != "golang:"+goMinor && !strings.HasPrefix(builder.base, "golang:"+goMinor+"-") && !strings.HasPrefix(builder.base, "golang:"+goMinor+".") {
		t.Errorf("builder FROM %s; go.mod asks for Go %s", builder.base, mf.Go.Version)
	}
	if image.base != "gcr.io/distroless/static:nonroot" {
		t.Errorf("image FROM %s: want a base without a shell or a C library (gcr.io/distroless/static:nonroot)", image.base)
	}

	// The image: a workdir, the binary copied from the builder, a numeric
	// non-root user (runAsNonRoot can check only a number), the binary as
	// entrypoint.
	workdir := "/"
	var from, copied, user string
	var entrypoint []string
	for _, in := range image.instrs {
		switch in.cmd {
		case "WORKDIR":
			workdir = in.args
		case "COPY":
			f := strings.Fields(in.args)
			if len(f) != 3 || f[0] != "--from="+builder.name {
				t.Fatalf("Dockerfile:%d: want COPY --from=%s SRC DST", in.line, builder.name)
			}
			from, copied = f[1], path.Join(workdir, f[2])
			if strings.HasSuffix(f[2], "/") || f[2] == "." {
				copied = path.Join(copied, path.Base(from))
			}
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(in.args), &entrypoint); err != nil {
				t.Fatalf("Dockerfile:%d: ENTRYPOINT in exec form: %v", in.line, err)
			}
		default:
			t.Errorf("Dockerfile:%d: %s in the image", in.line, in.cmd)
		}
	}
	if m := regexp.MustCompile(`^(\d+):(\d+)$`).FindStringSubmatch(user); m == nil || m[1] == "0" || m[2] == "0" {
		t.Errorf("USER %q: want a numeric non-root UID:GID", user)
	} else if uid, _ := strconv.Atoi(m[1]); uid != 65532 {
		t.Errorf("USER %q: distroless' nonroot is 65532", user)
	}
	if len(entrypoint) != 1 || entrypoint[0] != copied {
		t.Fatalf("ENTRYPOINT %q; the binary is copied to %s", entrypoint, copied)
	}
	if entrypoint[0] != "/manager" {
		t.Errorf("ENTRYPOINT %q; config/manager's Deployment runs /manager", entrypoint)
	}

	if testing.Short() {
		t.Skip("building the binary as the builder stage does; skipped with -short")
	}
	b := &builderFS{t: t, context: filepath.Join("..", ".."), root: t.TempDir(), workdir: "/", args: map[string]string{}}
	if b.context, err = filepath.Abs(b.context); err != nil {
		t.Fatal(err)
	}
	for _, in := range builder.instrs {
		b.run(in)
	}
	t.Logf("ran %q", b.commands)
	bin := b.host(from)
	if runtime.GOOS == "linux" {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatalf("the builder's %s: %v", from, err)
		}
		defer f.Close()
		libs, _ := f.ImportedLibraries()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s is dynamically linked (libraries %q): it cannot run on a static base", from, libs)
				break
			}
		}
	}
	out, err := exec.Command(bin, "-help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "metrics-secure") {
		t.Errorf("%s -help: %v\n%s", from, err, out)
	}
}
