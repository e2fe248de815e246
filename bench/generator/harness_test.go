package generator

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Paths fixed by TestMain.
var (
	benchDir string // bench/, the bench module
	repoDir  string // the ctrlgen checkout, bench/..
	workDir  string // everything temporary: binaries, templates, op trees
)

func TestMain(m *testing.M) {
	wd, err := os.Getwd() // go test runs in bench/generator
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	benchDir = filepath.Dir(wd)
	repoDir = filepath.Dir(benchDir)
	workDir, err = os.MkdirTemp("", "ctrlgen-genbench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(workDir)
	os.Exit(code)
}

// codegenTools are the code-generator commands kube_codegen.sh installs
// and runs for deepcopy, register, clients, listers and informers.
var codegenTools = []string{"deepcopy-gen", "register-gen", "client-gen", "lister-gen", "informer-gen"}

// once memoizes a setup step that may fail; a failure is reported to
// every caller.
type once[T any] struct {
	sync.Once
	v   T
	err error
}

func (o *once[T]) get(tb testing.TB, f func() (T, error)) T {
	tb.Helper()
	o.Do(func() { o.v, o.err = f() })
	if o.err != nil {
		tb.Fatal(o.err)
	}
	return o.v
}

var ctrlgenBuild, codegenBuild once[string]

// ctrlgenBin builds ../cmd/ctrlgen once, in ctrlgen's own module, as
// `go install ./cmd/ctrlgen` would, and returns the binary.
func ctrlgenBin(tb testing.TB) string {
	return ctrlgenBuild.get(tb, func() (string, error) {
		bin := filepath.Join(workDir, "bin", "ctrlgen")
		_, err := goCmd(repoDir, nil, "build", "-o", bin, "./cmd/ctrlgen")
		return bin, err
	})
}

// codegenBinDir builds deepcopy-gen, register-gen, client-gen, lister-gen
// and informer-gen once, at the version bench/go.mod requires, and
// returns the directory holding them.
func codegenBinDir(tb testing.TB) string {
	return codegenBuild.get(tb, func() (string, error) {
		dir := filepath.Join(workDir, "bin") + string(filepath.Separator)
		args := []string{"build", "-o", dir}
		for _, t := range codegenTools {
			args = append(args, "k8s.io/code-generator/cmd/"+t)
		}
		_, err := goCmd(benchDir, nil, args...)
		return dir, err
	})
}

// goCmd runs the go command in dir with extra environment and returns its
// output. It is for setup, not for timed ops: it may fetch modules through
// the module proxy, at the versions go.sum pins, as a machine with a cold
// module cache must (code-generator's tools are not in it until built).
func goCmd(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out, nil
}

// opEnv is the environment the tools run in during an op: no network, no
// workspace, go.mod read-only (the templates' go.mod is tidy). Setup has
// fetched every module an op needs.
var opEnv = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=readonly")

// setupProxy is the GOPROXY setting of the go command outside the ops,
// for the tool runs that prepare an input module.
var setupProxy = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		return "GOPROXY=off"
	}
	return "GOPROXY=" + strings.TrimSpace(string(out))
})

// An input is a tree the tools run on: a temporary module, copied fresh
// from a template for each op.
type input struct {
	name   string
	module string // module path of the temporary module
	src    string // testdata tree copied into it; "" for none
	// ctrlgen's arguments, run in the module's root.
	ctrlgenArgs []string
	// codegen is how kube_codegen.sh would be called; in is its input
	// directory: relative to the module root, or "k8s.io/api" for that
	// module's directory in the module cache (read-only).
	codegen kubeCodegen
	// build says to check, when the template is made, that the module
	// builds with either tool's output in it.
	build bool
}

var (
	oneGV = &input{
		name:   "one-gv",
		module: "example.com/sample",
		src:    "testdata/one-gv",
		ctrlgenArgs: []string{"--output-dir", "pkg/generated", "--boilerplate", "hack/boilerplate.go.txt",
			"./pkg/apis/..."},
		codegen: kubeCodegen{
			in:       "pkg/apis",
			helpers:  true,
			register: true,
			outDir:   "pkg/generated",
		},
		build: true,
	}
	k8sAPI = &input{
		name:   "k8s-api",
		module: "example.com/k8sapi",
		ctrlgenArgs: []string{"--output-dir", "pkg/generated", "--boilerplate", "hack/boilerplate.go.txt",
			"k8s.io/api/..."},
		codegen: kubeCodegen{
			in:     "k8s.io/api",
			outDir: "pkg/generated",
			// ctrlgen's built-in exception; Kubernetes passes the same to
			// generate client-go.
			pluralExceptions: "Endpoints:Endpoints",
			// As Kubernetes generates client-go, and as ctrlgen does for
			// k8s.io/api without being asked.
			prefersProtobuf: true,
		},
	}
)

// template is an input's module, ready to be copied: go.mod and go.sum
// tidy for the input and either tool's output.
type template struct {
	dir string
	// codegen are the code-generator commands of one op, each "{root}"
	// standing for the op's module root.
	codegen [][]string
}

var templates sync.Map // *input → *once[*template]

// templateOf makes in's template once: a module requiring the k8s.io
// versions ctrlgen requires (and ctrlgen, replaced by this checkout, which
// its generated code imports); both tools are run in a scratch copy of it
// (warming every cache they use), go mod tidy settles go.mod and go.sum,
// and, for in.build, go build checks that the output compiles.
func templateOf(tb testing.TB, in *input) *template {
	tb.Helper()
	// Outside the once: a failed build must not leave it done and empty.
	ctrlgen, bins := ctrlgenBin(tb), codegenBinDir(tb)
	o, _ := templates.LoadOrStore(in, new(once[*template]))
	return o.(*once[*template]).get(tb, func() (*template, error) {
		t := &template{dir: filepath.Join(workDir, "template-"+in.name)}
		if err := writeModule(t.dir, in); err != nil {
			return nil, err
		}
		scratch := filepath.Join(workDir, "scratch-"+in.name)
		if err := copyTree(t.dir, scratch); err != nil {
			return nil, err
		}
		// code-generator writes its clients elsewhere than ctrlgen in the
		// scratch copy, so that both outputs are built.
		both := in.codegen
		both.outDir = "pkg/codegen"
		env := []string{"GOFLAGS=-mod=mod", setupProxy()} // go.mod is not tidy yet
		if _, err := run(scratch, env, append([]string{ctrlgen}, in.ctrlgenArgs...)); err != nil {
			return nil, err
		}
		cmds, err := both.plan(scratch, scratch, in.module)
		if err != nil {
			return nil, err
		}
		// ctrlgen's deep copies and registration are where the
		// script's would go: it removes them first, as it does.
		if err := both.clean(scratch); err != nil {
			return nil, err
		}
		if _, err := runAll(scratch, env, bins, cmds); err != nil {
			return nil, err
		}
		if _, err := goCmd(scratch, env, "mod", "tidy"); err != nil {
			return nil, err
		}
		if in.build {
			if _, err := goCmd(scratch, []string{"GOFLAGS=-mod=readonly"}, "build", "./..."); err != nil {
				return nil, err
			}
		}
		for _, f := range []string{"go.mod", "go.sum"} {
			if err := copyFile(filepath.Join(scratch, f), filepath.Join(t.dir, f)); err != nil {
				return nil, err
			}
		}
		os.RemoveAll(scratch)
		t.codegen, err = in.codegen.plan(t.dir, "{root}", in.module)
		return t, err
	})
}

// writeModule writes in's module to dir: its source tree, a boilerplate
// file, and a go.mod requiring ctrlgen and k8s.io/{api,apimachinery,
// client-go} at the versions ctrlgen's go.mod requires, with a go.sum
// from ctrlgen's and bench's.
func writeModule(dir string, in *input) error {
	if in.src != "" {
		if err := copyTree(in.src, dir); err != nil {
			return err
		}
	}
	if err := copyFile("testdata/boilerplate.go.txt", filepath.Join(dir, "hack", "boilerplate.go.txt")); err != nil {
		return err
	}
	out, err := goCmd(repoDir, nil, "mod", "edit", "-json")
	if err != nil {
		return err
	}
	var mod struct {
		Go      string
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		return err
	}
	var gomod strings.Builder
	fmt.Fprintf(&gomod, "module %s\n\ngo %s\n\nrequire (\n\tgithub.com/ctrlgen/ctrlgen v0.0.0\n", in.module, mod.Go)
	for _, r := range mod.Require {
		switch r.Path {
		case "k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go":
			fmt.Fprintf(&gomod, "\t%s %s\n", r.Path, r.Version)
		}
	}
	fmt.Fprintf(&gomod, ")\n\nreplace github.com/ctrlgen/ctrlgen => %s\n", repoDir)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod.String()), 0o644); err != nil {
		return err
	}
	var sum []byte
	for _, f := range []string{filepath.Join(repoDir, "go.sum"), filepath.Join(benchDir, "go.sum")} {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		sum = append(sum, b...)
	}
	lines := strings.Split(string(sum), "\n")
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return os.WriteFile(filepath.Join(dir, "go.sum"), []byte(strings.TrimPrefix(strings.Join(lines, "\n"), "\n")+"\n"), 0o644)
}

// fresh copies t into a new directory and returns it.
func (t *template) fresh(tb testing.TB) string {
	tb.Helper()
	root, err := os.MkdirTemp(workDir, "op-")
	if err != nil {
		tb.Fatal(err)
	}
	if err := copyTree(t.dir, root); err != nil {
		tb.Fatal(err)
	}
	return root
}

// codegenOp is one code-generator op in root: the script's removal of
// earlier output, then its generator commands.
func (t *template) codegenOp(k kubeCodegen, root, binDir string) (usage, error) {
	if err := k.clean(root); err != nil {
		return usage{}, err
	}
	return runAll(root, nil, binDir, t.codegenCmds(root))
}

// codegenCmds are t's code-generator commands for an op in root.
func (t *template) codegenCmds(root string) [][]string {
	cmds := make([][]string, len(t.codegen))
	for i, c := range t.codegen {
		for _, a := range c {
			cmds[i] = append(cmds[i], strings.ReplaceAll(a, "{root}", root))
		}
	}
	return cmds
}

// kubeCodegen is a call of kube_codegen.sh (code-generator v0.37.2):
//
//	kube::codegen::gen_helpers  --boilerplate hack/boilerplate.go.txt IN   (helpers)
//	kube::codegen::gen_register --boilerplate hack/boilerplate.go.txt IN   (register)
//	kube::codegen::gen_client --with-watch --output-dir OUT --output-pkg MODULE/OUT \
//	    --boilerplate hack/boilerplate.go.txt [--plural-exceptions X] IN
//
// plan finds the input packages the way the script does (grep for the
// markers; its `go list -find .` per directory is replaced by the path
// relative to the input directory) and returns the generator commands
// with the flags the script gives them, in its order. The script's own
// overhead — `go install` of the generators on every call, `go list` per
// package, deleting old output — is not part of an op.
type kubeCodegen struct {
	in                string // directory relative to the module root, or "k8s.io/api"
	helpers, register bool
	outDir            string // relative to the module root
	pluralExceptions  string
	prefersProtobuf   bool // client-gen's --prefers-protobuf
}

var versionDir = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// clean removes what the script removes before it generates: the
// zz_generated.{deepcopy,register}.go files under the input directory and
// the files under each output directory marked as written by the
// generator that writes there.
func (k kubeCodegen) clean(root string) error {
	var names []string
	if k.helpers {
		names = append(names, "zz_generated.deepcopy.go")
	}
	if k.register {
		names = append(names, "zz_generated.register.go")
	}
	if len(names) > 0 {
		err := filepath.WalkDir(filepath.Join(root, k.in), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && slices.Contains(names, d.Name()) {
				err = os.Remove(p)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	for sub, gen := range map[string]string{"clientset": "client-gen", "listers": "lister-gen", "informers": "informer-gen"} {
		line := []byte("\n// Code generated by " + gen + ". DO NOT EDIT.\n")
		err := filepath.WalkDir(filepath.Join(root, k.outDir, sub), func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && p == filepath.Join(root, k.outDir, sub) {
				return fs.SkipDir
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			data, err := os.ReadFile(p)
			if err == nil && bytes.Contains(data, line) {
				err = os.Remove(p)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// plan finds the packages in the module at scanRoot and writes paths in
// the commands as under root.
func (k kubeCodegen) plan(scanRoot, root, module string) ([][]string, error) {
	scanDir, inDir, inPkg := filepath.Join(scanRoot, k.in), filepath.Join(root, k.in), module+"/"+k.in
	if k.in == "k8s.io/api" {
		out, err := goCmd(scanRoot, nil, "list", "-m", "-f", "{{.Dir}}", "k8s.io/api")
		if err != nil {
			return nil, err
		}
		inDir, inPkg = strings.TrimSpace(string(out)), "k8s.io/api"
		scanDir = inDir
	}
	// find lists the import paths of the directories holding a .go file
	// with a line matching marker, sorted, as the script's grep does.
	find := func(marker string) ([]string, error) {
		re := regexp.MustCompile(`^\s*//\s*` + marker)
		var rels []string
		err := filepath.WalkDir(scanDir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			s := bufio.NewScanner(f)
			s.Buffer(nil, 1<<20)
			for s.Scan() {
				if re.Match(s.Bytes()) {
					rel, _ := filepath.Rel(scanDir, filepath.Dir(p))
					rels = append(rels, filepath.ToSlash(rel))
					break
				}
			}
			return s.Err()
		})
		slices.Sort(rels)
		return slices.Compact(rels), err
	}
	pkgs := func(rels []string) []string {
		var ps []string
		for _, r := range rels {
			ps = append(ps, path.Join(inPkg, r))
		}
		return ps
	}
	header := filepath.Join(root, "hack", "boilerplate.go.txt")
	var cmds [][]string
	if k.helpers {
		rels, err := find(`\+k8s:deepcopy-gen=`)
		if err != nil {
			return nil, err
		}
		if len(rels) > 0 {
			cmds = append(cmds, append([]string{"deepcopy-gen", "-v", "0",
				"--output-file", "zz_generated.deepcopy.go", "--go-header-file", header}, pkgs(rels)...))
		}
	}
	if k.register {
		rels, err := find(`\+groupName`)
		if err != nil {
			return nil, err
		}
		if len(rels) > 0 {
			cmds = append(cmds, append([]string{"register-gen", "-v", "0",
				"--output-file", "zz_generated.register.go", "--go-header-file", header}, pkgs(rels)...))
		}
	}
	rels, err := find(`\+genclient`)
	if err != nil {
		return nil, err
	}
	var gvs, inputs []string
	for _, r := range rels {
		if versionDir.MatchString(path.Base(r)) {
			gvs = append(gvs, r)
			inputs = append(inputs, "--input", path.Base(path.Dir(r))+"/"+path.Base(r))
		}
	}
	if len(gvs) == 0 {
		return nil, fmt.Errorf("%s: no +genclient group/versions", scanDir)
	}
	outDir, outPkg := filepath.Join(root, k.outDir), module+"/"+k.outDir
	cmds = append(cmds,
		append([]string{"client-gen", "-v", "0", "--go-header-file", header,
			"--output-dir", outDir + "/clientset", "--output-pkg", outPkg + "/clientset",
			"--clientset-name", "versioned", "--apply-configuration-package", "",
			"--input-base", inDir, "--plural-exceptions", k.pluralExceptions,
			"--prefers-protobuf=" + strconv.FormatBool(k.prefersProtobuf)}, inputs...),
		append([]string{"lister-gen", "-v", "0", "--go-header-file", header,
			"--output-dir", outDir + "/listers", "--output-pkg", outPkg + "/listers",
			"--plural-exceptions", k.pluralExceptions}, pkgs(gvs)...),
		append([]string{"informer-gen", "-v", "0", "--go-header-file", header,
			"--output-dir", outDir + "/informers", "--output-pkg", outPkg + "/informers",
			"--versioned-clientset-package", outPkg + "/clientset/versioned",
			"--listers-package", outPkg + "/listers",
			"--plural-exceptions", k.pluralExceptions}, pkgs(gvs)...),
	)
	return cmds, nil
}

// usage is what one or more processes used.
type usage struct {
	// peakKiB is the largest peak RSS, in KiB: Maxrss from wait4, the
	// largest of the process's and of the children it waited for (the go
	// list processes go/packages starts).
	peakKiB int64
	// cpu is the user and system CPU time, children included.
	cpu time.Duration
}

// add accounts for u2 having run after u.
func (u usage) add(u2 usage) usage {
	return usage{peakKiB: max(u.peakKiB, u2.peakKiB), cpu: u.cpu + u2.cpu}
}

// run runs one command in dir and returns what it used.
func run(dir string, env []string, argv []string) (usage, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(slices.Clip(opEnv), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return usage{}, fmt.Errorf("%s (in %s, %v): %v\n%s", strings.Join(argv, " "), dir, time.Since(start), err, out.Bytes())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return usage{peakKiB: ru.Maxrss, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
}

// runAll runs cmds one after the other, as kube_codegen.sh does, the
// first word of each naming a binary in binDir.
func runAll(dir string, env []string, binDir string, cmds [][]string) (usage, error) {
	var u usage
	for _, c := range cmds {
		argv := append([]string{filepath.Join(binDir, c[0])}, c[1:]...)
		u2, err := run(dir, env, argv)
		if err != nil {
			return usage{}, err
		}
		u = u.add(u2)
	}
	return u, nil
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}
