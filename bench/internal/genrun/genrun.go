// Package genrun runs ctrlgen and k8s.io/code-generator (the version
// bench/go.mod pins) on the same input, the way a user runs them: each
// tool built once into a binary, code-generator's run with the flags and
// in the order kube_codegen.sh gives them. bench/generator times them with
// it; bench/apisurface compares the APIs they generate.
//
// It is for tests and benchmarks: setup steps take a testing.TB and fail
// it. Call Setup first, from TestMain, or make Main the TestMain.
package genrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
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

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// Paths fixed by Setup.
var (
	BenchDir string // bench/, the bench module
	RepoDir  string // the ctrlgen checkout, bench/..
	WorkDir  string // everything temporary: binaries, templates, trees
)

// Setup finds the bench module from the working directory (go test runs
// in one of its package directories) and makes WorkDir; cleanup removes
// it.
func Setup() (cleanup func(), err error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module github.com/ctrlgen/ctrlgen/bench\n")) {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, errors.New("genrun: not run inside the bench module")
		}
		dir = parent
	}
	BenchDir, RepoDir = dir, filepath.Dir(dir)
	WorkDir, err = os.MkdirTemp("", "ctrlgen-genbench-")
	if err != nil {
		return nil, err
	}
	return func() { os.RemoveAll(WorkDir) }, nil
}

// Main is the TestMain of a package whose tests run the tools: it parses
// the flags, runs Setup, then the tests, removes WorkDir and exits with
// the tests' status. If keep is not nil and *keep is true after the
// tests (a flag of the package), it leaves WorkDir and says where it is.
func Main(m *testing.M, keep *bool) {
	flag.Parse()
	cleanup, err := Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if keep != nil && *keep {
		fmt.Fprintln(os.Stderr, "trees kept under", WorkDir)
	} else {
		cleanup()
	}
	os.Exit(code)
}

// CodegenTools are the code-generator commands kube_codegen.sh installs
// and runs for deepcopy, register, apply configurations, clients, listers
// and informers.
var CodegenTools = []string{"deepcopy-gen", "register-gen", "applyconfiguration-gen", "client-gen", "lister-gen", "informer-gen"}

// Once memoizes a setup step that may fail; a failure is reported to
// every caller.
type Once[T any] struct {
	sync.Once
	v   T
	err error
}

func (o *Once[T]) Get(tb testing.TB, f func() (T, error)) T {
	tb.Helper()
	o.Do(func() { o.v, o.err = f() })
	if o.err != nil {
		tb.Fatal(o.err)
	}
	return o.v
}

var ctrlgenBuild, codegenBuild Once[string]

// CtrlgenBin builds ../cmd/ctrlgen once, in ctrlgen's own module, as
// `go install ./cmd/ctrlgen` would, and returns the binary.
func CtrlgenBin(tb testing.TB) string {
	return ctrlgenBuild.Get(tb, func() (string, error) {
		bin := filepath.Join(WorkDir, "bin", "ctrlgen")
		_, err := GoCmd(RepoDir, nil, "build", "-o", bin, "./cmd/ctrlgen")
		return bin, err
	})
}

// CodegenBinDir builds deepcopy-gen, register-gen, client-gen, lister-gen
// and informer-gen once, at the version bench/go.mod requires, and
// returns the directory holding them.
func CodegenBinDir(tb testing.TB) string {
	return codegenBuild.Get(tb, func() (string, error) {
		dir := filepath.Join(WorkDir, "bin") + string(filepath.Separator)
		args := []string{"build", "-o", dir}
		for _, t := range CodegenTools {
			args = append(args, "k8s.io/code-generator/cmd/"+t)
		}
		_, err := GoCmd(BenchDir, nil, args...)
		return dir, err
	})
}

// GoCmd runs the go command in dir with extra environment and returns its
// output. It is for setup, not for timed ops: it may fetch modules through
// the module proxy, at the versions go.sum pins, as a machine with a cold
// module cache must (code-generator's tools are not in it until built).
// In the repository it uses the repository's go.work, through which its
// modules resolve each other; elsewhere (the temporary modules) none.
func GoCmd(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	work := "off"
	if dir == RepoDir {
		work = filepath.Join(RepoDir, "go.work")
	}
	cmd.Env = append(append(os.Environ(), "GOWORK="+work), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out, nil
}

// OpEnv is the environment the tools run in during an op: no network, no
// workspace, go.mod read-only (the templates' go.mod is tidy). Setup has
// fetched every module an op needs.
var OpEnv = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=readonly")

// SetupProxy is the GOPROXY setting of the go command outside the ops,
// for the tool runs that prepare an input module.
var SetupProxy = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		return "GOPROXY=off"
	}
	return "GOPROXY=" + strings.TrimSpace(string(out))
})

// An Input is a tree the tools run on: a temporary module, made from
// its source and copied fresh from a template for each op.
type Input struct {
	Name   string
	Module string // module path of the temporary module
	// Src is the tree copied into it; "" for none. When it holds a
	// go.mod (a real project's module), that go.mod is kept, with
	// ctrlgen required and replaced by this checkout; otherwise one is
	// written (see WriteModule).
	Src string
	// CtrlgenArgs are ctrlgen's arguments, run in the module's root.
	CtrlgenArgs []string
	// Codegen is how kube_codegen.sh would be called; its In is the input
	// directory: relative to the module root, or "k8s.io/api" for that
	// module's directory in the module cache (read-only).
	Codegen KubeCodegen
	// Build says to check, when the template is made, that the module
	// builds with either tool's output in it.
	Build bool
	// SameFiles says to check, when the template is made, that both tools
	// wrote the same files under the output directory (for inputs whose
	// packages are read-only, where nothing else is written).
	SameFiles bool
	// K8sModules are k8s.io modules besides api, apimachinery and
	// client-go that a project's go.mod requires (kubectl,
	// component-base…), raised to the version ctrlgen requires of
	// k8s.io/api with ctrlgen: Kubernetes' modules move together, and
	// one left behind may import a package k8s.io/api no longer has,
	// failing go mod tidy (kubectl v0.35's k8s.io/api/scheduling/v1alpha1).
	K8sModules []string
	// Dir is the directory, relative to Src, of the module the tools run
	// in, when Src is a repository of modules that replace one another by
	// relative directories (see RepoSource): the whole repository is
	// copied, and the module at Dir is the input's. "" for Src's root.
	Dir string
	// CtrlgenBefore are ctrlgen runs, before the one with CtrlgenArgs, in
	// other modules of Src's repository (Dir set): what a project
	// generates there with a tool ctrlgen replaces, such as
	// controller-gen's deep copies in an API module of its own.
	CtrlgenBefore []CtrlgenRun
}

// A CtrlgenRun is a run of ctrlgen with Args in Dir, relative to the
// repository root.
type CtrlgenRun struct {
	Dir  string
	Args []string
}

// RepoRoot is the root of the tree the module at root belongs to: root,
// or the repository root for an input whose Dir is set.
func (in *Input) RepoRoot(root string) string {
	if in.Dir == "" {
		return root
	}
	return strings.TrimSuffix(root, string(filepath.Separator)+filepath.FromSlash(in.Dir))
}

// A Template is an input's module, ready to be copied: go.mod and go.sum
// tidy for the input and either tool's output.
type Template struct {
	Dir string
	// Codegen are the code-generator commands of one op, each "{root}"
	// standing for the op's module root.
	Codegen [][]string
}

var templates sync.Map // *Input → *Once[*Template]

// TemplateOf makes in's template once: a module requiring the k8s.io
// versions ctrlgen requires (and ctrlgen, replaced by this checkout, which
// its generated code imports); both tools are run in a scratch copy of it
// (warming every cache they use), go mod tidy settles go.mod and go.sum,
// and, for in.Build, go build checks that the output compiles.
func TemplateOf(tb testing.TB, in *Input) *Template {
	tb.Helper()
	if in.Dir != "" || in.CtrlgenBefore != nil || in.Codegen.ClientsetDir != "" {
		tb.Fatalf("genrun: %s is a module of a repository, or with a clientset elsewhere, which templates do not take", in.Name)
	}
	// Outside the once: a failed build must not leave it done and empty.
	ctrlgen, bins := CtrlgenBin(tb), CodegenBinDir(tb)
	o, _ := templates.LoadOrStore(in, new(Once[*Template]))
	return o.(*Once[*Template]).Get(tb, func() (*Template, error) {
		t := &Template{Dir: filepath.Join(WorkDir, "template-"+in.Name)}
		if err := WriteModule(t.Dir, in); err != nil {
			return nil, err
		}
		scratch := filepath.Join(WorkDir, "scratch-"+in.Name)
		if err := CopyTree(t.Dir, scratch); err != nil {
			return nil, err
		}
		// code-generator writes its clients elsewhere than ctrlgen in the
		// scratch copy, so that both outputs are built.
		both := in.Codegen
		both.OutDir = "pkg/codegen"
		env := []string{"GOFLAGS=-mod=mod", SetupProxy()} // go.mod is not tidy yet
		if _, err := Run(scratch, env, append([]string{ctrlgen}, in.CtrlgenArgs...)); err != nil {
			return nil, err
		}
		cmds, err := both.Plan(scratch, scratch, in.Module)
		if err != nil {
			return nil, err
		}
		// ctrlgen's deep copies and registration are where the
		// script's would go: it removes them first, as it does.
		if err := both.Clean(scratch); err != nil {
			return nil, err
		}
		if _, err := RunAll(scratch, env, bins, cmds); err != nil {
			return nil, err
		}
		if in.SameFiles {
			if err := sameFiles(filepath.Join(scratch, in.Codegen.OutDir), filepath.Join(scratch, both.OutDir)); err != nil {
				return nil, fmt.Errorf("%s: %w", in.Name, err)
			}
		}
		if _, err := GoCmd(scratch, env, "mod", "tidy"); err != nil {
			return nil, err
		}
		if in.Build {
			if _, err := GoCmd(scratch, []string{"GOFLAGS=-mod=readonly"}, "build", "./..."); err != nil {
				return nil, err
			}
		}
		for _, f := range []string{"go.mod", "go.sum"} {
			if err := CopyFile(filepath.Join(scratch, f), filepath.Join(t.Dir, f)); err != nil {
				return nil, err
			}
		}
		os.RemoveAll(scratch)
		t.Codegen, err = in.Codegen.Plan(t.Dir, "{root}", in.Module)
		return t, err
	})
}

// sameFiles compares the files under ctrlgen's output directory with
// those under code-generator's.
func sameFiles(ours, theirs string) error {
	list := func(root string) ([]string, error) {
		var files []string
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return err
		})
		return files, err
	}
	a, err := list(ours)
	if err != nil {
		return err
	}
	b, err := list(theirs)
	if err != nil {
		return err
	}
	var diffs []string
	for _, f := range a {
		if _, found := slices.BinarySearch(b, f); !found {
			diffs = append(diffs, "only ctrlgen wrote "+f)
		}
	}
	for _, f := range b {
		if _, found := slices.BinarySearch(a, f); !found {
			diffs = append(diffs, "only code-generator wrote "+f)
		}
	}
	if len(a) == 0 || len(diffs) > 0 {
		return fmt.Errorf("the tools wrote different files (%d and %d):\n\t%s", len(a), len(b), strings.Join(diffs, "\n\t"))
	}
	return nil
}

// WriteModule writes in's module to dir: its source tree, a boilerplate
// file (bench/generator/testdata's, unless the tree has
// hack/boilerplate.go.txt), and a go.mod requiring ctrlgen and
// k8s.io/{api,apimachinery,client-go} at the versions ctrlgen's go.mod
// requires, with a go.sum from ctrlgen's and bench's. A tree with a
// go.mod of its own keeps it, with ctrlgen added (RequireCtrlgen). For
// an input whose Dir is set, dir is the module's directory in a copy of
// the whole repository, at in.RepoRoot(dir).
func WriteModule(dir string, in *Input) error {
	if in.Src != "" {
		if err := CopyTree(in.Src, in.RepoRoot(dir)); err != nil {
			return err
		}
	}
	header := filepath.Join(dir, "hack", "boilerplate.go.txt")
	if _, err := os.Stat(header); errors.Is(err, fs.ErrNotExist) {
		if err := CopyFile(filepath.Join(BenchDir, "generator", "testdata", "boilerplate.go.txt"), header); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		if err := raiseK8s(dir, in.K8sModules); err != nil {
			return err
		}
		return RequireCtrlgen(dir)
	}
	if err := writeGoMod(dir, in.Module); err != nil {
		return err
	}
	return writeGoSum(dir, nil)
}

// RequireCtrlgen adds ctrlgen and its runtime modules, replaced by this
// checkout, to the go.mod in dir, and ctrlgen's and bench's go.sum lines
// to its go.sum.
func RequireCtrlgen(dir string) error {
	args := []string{"mod", "edit", "-require=github.com/ctrlgen/ctrlgen@v0.0.0", "-replace=github.com/ctrlgen/ctrlgen=" + RepoDir}
	for _, m := range runtimeModules {
		args = append(args, "-require="+m+"@v0.0.0", "-replace="+m+"="+runtimeDir(m))
	}
	if _, err := GoCmd(dir, nil, args...); err != nil {
		return err
	}
	return writeGoSum(dir, []string{filepath.Join(dir, "go.sum")})
}

// writeGoSum writes the go.sum in dir: ctrlgen's and bench's lines, and
// those of the files in more.
func writeGoSum(dir string, more []string) error {
	sums := append([]string{filepath.Join(RepoDir, "go.sum"), filepath.Join(BenchDir, "go.sum")}, more...)
	var sum []byte
	for _, f := range sums {
		b, err := os.ReadFile(f)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		sum = append(append(sum, b...), '\n')
	}
	lines := strings.Split(string(sum), "\n")
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return os.WriteFile(filepath.Join(dir, "go.sum"), []byte(strings.TrimPrefix(strings.Join(lines, "\n"), "\n")+"\n"), 0o644)
}

// writeGoMod writes a go.mod for module requiring ctrlgen, replaced by
// this checkout, and k8s.io/{api,apimachinery,client-go} at the versions
// ctrlgen's go.mod requires.
// runtimeModules are the modules of ctrlgen's runtime, at their directory
// under the repository, which generated code imports.
var runtimeModules = []string{"github.com/ctrlgen/ctrlgen/runtime", "github.com/ctrlgen/ctrlgen/runtime/manager"}

// runtimeDir is the directory of the runtime module m.
func runtimeDir(m string) string {
	return filepath.Join(RepoDir, strings.TrimPrefix(m, "github.com/ctrlgen/ctrlgen/"))
}

// raiseK8s raises k8s.io/{api,apimachinery,client-go} and the modules of
// more that the go.mod in dir requires below the version ctrlgen requires
// of k8s.io/api to that version, as go get of ctrlgen's runtime would for
// the first three (and go mod tidy does after the tools run): the tools
// run before go mod tidy, on a go.mod that names the versions the build
// will use. ctrlgen's resolver (loader/resolve.go) takes a module's
// version from go.mod's require lines; once, without this, kueue's JSON
// decoders came out for k8s.io/api v0.35.3 (a core/v1 type v0.37 dropped)
// and did not compile after go mod tidy raised it.
func raiseK8s(dir string, more []string) error {
	v, err := ctrlgenRequires("k8s.io/api")
	if err != nil {
		return err
	}
	mod, err := readGoMod(dir)
	if err != nil {
		return err
	}
	raise := append([]string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go"}, more...)
	args := []string{"mod", "edit"}
	for _, r := range mod.Require {
		if slices.Contains(raise, r.Mod.Path) && semver.Compare(r.Mod.Version, v) < 0 {
			args = append(args, "-require="+r.Mod.Path+"@"+v)
		}
	}
	if len(args) == 2 {
		return nil
	}
	_, err = GoCmd(dir, nil, args...)
	return err
}

// readGoMod parses the go.mod in dir.
func readGoMod(dir string) (*modfile.File, error) {
	name := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return modfile.ParseLax(name, data, nil)
}

// ctrlgenRequires is the version of module ctrlgen's go.mod requires.
func ctrlgenRequires(module string) (string, error) {
	mod, err := readGoMod(RepoDir)
	if err != nil {
		return "", err
	}
	for _, r := range mod.Require {
		if r.Mod.Path == module {
			return r.Mod.Version, nil
		}
	}
	return "", fmt.Errorf("ctrlgen's go.mod does not require %s", module)
}

func writeGoMod(dir, module string) error {
	mod, err := readGoMod(RepoDir)
	if err != nil {
		return err
	}
	var gomod strings.Builder
	fmt.Fprintf(&gomod, "module %s\n\ngo %s\n\nrequire (\n\tgithub.com/ctrlgen/ctrlgen v0.0.0\n", module, mod.Go.Version)
	for _, m := range runtimeModules {
		fmt.Fprintf(&gomod, "\t%s v0.0.0\n", m)
	}
	for _, r := range mod.Require {
		switch r.Mod.Path {
		case "k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go":
			fmt.Fprintf(&gomod, "\t%s %s\n", r.Mod.Path, r.Mod.Version)
		}
	}
	fmt.Fprintf(&gomod, ")\n\nreplace github.com/ctrlgen/ctrlgen => %s\n", RepoDir)
	for _, m := range runtimeModules {
		fmt.Fprintf(&gomod, "\nreplace %s => %s\n", m, runtimeDir(m))
	}
	return os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod.String()), 0o644)
}

// Fresh copies t into a new directory and returns it.
func (t *Template) Fresh(tb testing.TB) string {
	tb.Helper()
	root, err := os.MkdirTemp(WorkDir, "op-")
	if err != nil {
		tb.Fatal(err)
	}
	if err := CopyTree(t.Dir, root); err != nil {
		tb.Fatal(err)
	}
	return root
}

// CodegenOp is one code-generator op in root: the script's removal of
// earlier output, then its generator commands.
func (t *Template) CodegenOp(k KubeCodegen, root, binDir string) (Usage, error) {
	if err := k.Clean(root); err != nil {
		return Usage{}, err
	}
	return RunAll(root, nil, binDir, t.CodegenCmds(root))
}

// CodegenCmds are t's code-generator commands for an op in root.
func (t *Template) CodegenCmds(root string) [][]string {
	cmds := make([][]string, len(t.Codegen))
	for i, c := range t.Codegen {
		for _, a := range c {
			cmds[i] = append(cmds[i], strings.ReplaceAll(a, "{root}", root))
		}
	}
	return cmds
}

// KubeCodegen is a call of kube_codegen.sh (code-generator v0.37.2):
//
//	kube::codegen::gen_helpers  --boilerplate hack/boilerplate.go.txt IN   (helpers)
//	kube::codegen::gen_register --boilerplate hack/boilerplate.go.txt IN   (register)
//	kube::codegen::gen_client --with-watch [--with-applyconfig [--applyconfig-externals E]] \
//	    --output-dir OUT --output-pkg MODULE/OUT \
//	    --boilerplate hack/boilerplate.go.txt [--plural-exceptions X] IN
//
// Plan finds the input packages the way the script does (grep for the
// markers; its `go list -find .` per directory is replaced by the path
// relative to the input directory) and returns the generator commands
// with the flags the script gives them, in its order. The script's own
// overhead — `go install` of the generators on every call, `go list` per
// package, deleting old output — is not part of an op.
type KubeCodegen struct {
	In                string // directory relative to the module root, or "k8s.io/api"
	Helpers, Register bool
	OutDir            string // relative to the module root; "." for the root itself
	PluralExceptions  string
	PrefersProtobuf   bool // client-gen's --prefers-protobuf
	// ApplyConfig is --with-applyconfig: applyconfiguration-gen writes
	// OUT/applyconfiguration (with ApplyConfigExternals as
	// --applyconfig-externals, and no OpenAPI schema) and client-gen's
	// clients take it.
	ApplyConfig          bool
	ApplyConfigExternals string
	// ApplyConfigurationPkg is client-gen's --apply-configuration-package
	// when the apply configurations are another's (a project's committed
	// ones, client-go's), with no applyconfiguration-gen run.
	ApplyConfigurationPkg string
	// ClientsetDir is the directory, relative to OutDir, client-gen
	// writes the clientset's versioned/ to: "clientset", as the script
	// has it, unless set (prometheus-operator calls client-gen itself
	// with --output-dir OUT: "."), as ctrlgen's --clientset-name.
	ClientsetDir string
	// Packages, when set, are the only packages (relative to In) given
	// to the generators, as a user who calls the generators on some of
	// a module's packages does; otherwise every one the markers are
	// found in.
	Packages []string
}

// clientsetDir is ClientsetDir or its default.
func (k KubeCodegen) clientsetDir() string {
	if k.ClientsetDir == "" {
		return "clientset"
	}
	return k.ClientsetDir
}

var versionDir = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// Clean removes what the script removes before it generates: the
// zz_generated.{deepcopy,register}.go files under the input directory and
// the files under each output directory marked as written by the
// generator that writes there.
func (k KubeCodegen) Clean(root string) error {
	var names []string
	if k.Helpers {
		names = append(names, "zz_generated.deepcopy.go")
	}
	if k.Register {
		names = append(names, "zz_generated.register.go")
	}
	if len(names) > 0 {
		err := filepath.WalkDir(filepath.Join(root, k.In), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && slices.Contains(names, d.Name()) {
				err = os.Remove(p)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	clientset := "clientset"
	if k.ClientsetDir != "" {
		// Not all of OUT when ".": client-gen writes only versioned/.
		clientset = path.Join(k.ClientsetDir, "versioned")
	}
	generators := map[string]string{clientset: "client-gen", "listers": "lister-gen", "informers": "informer-gen"}
	if k.ApplyConfig {
		generators["applyconfiguration"] = "applyconfiguration-gen"
	}
	for sub, gen := range generators {
		line := []byte("\n// Code generated by " + gen + ". DO NOT EDIT.\n")
		err := filepath.WalkDir(filepath.Join(root, k.OutDir, sub), func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && p == filepath.Join(root, k.OutDir, sub) {
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

// Plan finds the packages in the module at scanRoot and writes paths in
// the commands as under root.
func (k KubeCodegen) Plan(scanRoot, root, module string) ([][]string, error) {
	scanDir, inDir, inPkg := filepath.Join(scanRoot, k.In), filepath.Join(root, k.In), path.Join(module, k.In)
	if k.In == "k8s.io/api" {
		out, err := GoCmd(scanRoot, nil, "list", "-m", "-f", "{{.Dir}}", "k8s.io/api")
		if err != nil {
			return nil, err
		}
		inDir, inPkg = strings.TrimSpace(string(out)), "k8s.io/api"
		scanDir = inDir
	}
	// find lists the import paths of the directories holding a .go file
	// with a line matching marker, sorted, as the script's grep does;
	// of those, only Packages when set.
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
		rels = slices.Compact(rels)
		if k.Packages != nil {
			rels = slices.DeleteFunc(rels, func(r string) bool { return !slices.Contains(k.Packages, r) })
		}
		return rels, err
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
	if k.Helpers {
		rels, err := find(`\+k8s:deepcopy-gen=`)
		if err != nil {
			return nil, err
		}
		if len(rels) > 0 {
			cmds = append(cmds, append([]string{"deepcopy-gen", "-v", "0",
				"--output-file", "zz_generated.deepcopy.go", "--go-header-file", header}, pkgs(rels)...))
		}
	}
	if k.Register {
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
	outDir, outPkg := filepath.Join(root, k.OutDir), path.Join(module, k.OutDir)
	applyPkg := k.ApplyConfigurationPkg
	if k.ApplyConfig {
		applyPkg = outPkg + "/applyconfiguration"
		cmds = append(cmds, append([]string{"applyconfiguration-gen", "-v", "0", "--go-header-file", header,
			"--output-dir", filepath.Join(outDir, "applyconfiguration"), "--output-pkg", applyPkg,
			"--external-applyconfigurations", k.ApplyConfigExternals, "--openapi-schema", ""}, pkgs(gvs)...))
	}
	cmds = append(cmds,
		append([]string{"client-gen", "-v", "0", "--go-header-file", header,
			"--output-dir", filepath.Join(outDir, k.clientsetDir()), "--output-pkg", path.Join(outPkg, k.clientsetDir()),
			"--clientset-name", "versioned", "--apply-configuration-package", applyPkg,
			"--input-base", inDir, "--plural-exceptions", k.PluralExceptions,
			"--prefers-protobuf=" + strconv.FormatBool(k.PrefersProtobuf)}, inputs...),
		append([]string{"lister-gen", "-v", "0", "--go-header-file", header,
			"--output-dir", filepath.Join(outDir, "listers"), "--output-pkg", outPkg + "/listers",
			"--plural-exceptions", k.PluralExceptions}, pkgs(gvs)...),
		append([]string{"informer-gen", "-v", "0", "--go-header-file", header,
			"--output-dir", filepath.Join(outDir, "informers"), "--output-pkg", outPkg + "/informers",
			"--versioned-clientset-package", path.Join(outPkg, k.clientsetDir(), "versioned"),
			"--listers-package", outPkg + "/listers",
			"--plural-exceptions", k.PluralExceptions}, pkgs(gvs)...),
	)
	return cmds, nil
}

// Usage is what one or more processes used.
type Usage struct {
	// PeakKiB is the largest peak RSS, in KiB: Maxrss from wait4, the
	// largest of the process's and of the children it waited for (the go
	// list processes go/packages starts).
	PeakKiB int64
	// CPU is the user and system CPU time, children included.
	CPU time.Duration
}

// Add accounts for u2 having run after u.
func (u Usage) Add(u2 Usage) Usage {
	return Usage{PeakKiB: max(u.PeakKiB, u2.PeakKiB), CPU: u.CPU + u2.CPU}
}

// Run runs one command in dir and returns what it used.
func Run(dir string, env []string, argv []string) (Usage, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(slices.Clip(OpEnv), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return Usage{}, fmt.Errorf("%s (in %s, %v): %v\n%s", strings.Join(argv, " "), dir, time.Since(start), err, out.Bytes())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return Usage{PeakKiB: ru.Maxrss, CPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
}

// RunAll runs cmds one after the other, as kube_codegen.sh does, the
// first word of each naming a binary in binDir.
func RunAll(dir string, env []string, binDir string, cmds [][]string) (Usage, error) {
	var u Usage
	for _, c := range cmds {
		argv := append([]string{filepath.Join(binDir, c[0])}, c[1:]...)
		u2, err := Run(dir, env, argv)
		if err != nil {
			return Usage{}, err
		}
		u = u.Add(u2)
	}
	return u, nil
}

// CopyTree copies the regular files under src to dst.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return CopyFile(p, filepath.Join(dst, rel))
	})
}

func CopyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// Trees makes two copies of in's module under WorkDir and generates into
// each with one tool: ctrlgen with in.CtrlgenArgs, and code-generator's
// commands for in.Codegen. Before generating, each copy gets the
// script's removal of earlier output (a real project's tree holds
// code-generator's); after, go mod tidy settles its go.mod for what that
// tool wrote. It returns the two module roots (for an input whose Dir is
// set, inside a copy of the whole repository each).
func Trees(tb testing.TB, in *Input) (ctrlgenRoot, codegenRoot string) {
	tb.Helper()
	base, err := os.MkdirTemp(WorkDir, "trees-"+in.Name+"-")
	if err != nil {
		tb.Fatal(err)
	}
	ctrlgenRoot, codegenRoot = filepath.Join(base, "ctrlgen", filepath.FromSlash(in.Dir)), filepath.Join(base, "code-generator", filepath.FromSlash(in.Dir))
	generateCtrlgen(tb, in, ctrlgenRoot)
	generateCodegen(tb, in, codegenRoot, false)
	return ctrlgenRoot, codegenRoot
}

// CtrlgenTree is Trees' ctrlgen tree alone: a copy of in's module under
// WorkDir, its earlier output removed as kube_codegen.sh removes it,
// generated into by ctrlgen with in.CtrlgenArgs, go.mod tidied. It
// returns the module root.
func CtrlgenTree(tb testing.TB, in *Input) string {
	tb.Helper()
	root := filepath.Join(tempDir(tb, "ctrlgen-"+in.Name+"-"), "ctrlgen", filepath.FromSlash(in.Dir))
	generateCtrlgen(tb, in, root)
	return root
}

// CodegenTree is Trees' code-generator tree alone, except that its
// go.mod does not require ctrlgen: code-generator's output does not
// import it, and an input whose module path lies inside ctrlgen's (one of
// this repository's examples) would otherwise find its packages in two
// modules. It returns the module root.
func CodegenTree(tb testing.TB, in *Input) string {
	tb.Helper()
	root := filepath.Join(tempDir(tb, "code-generator-"+in.Name+"-"), "code-generator", filepath.FromSlash(in.Dir))
	generateCodegen(tb, in, root, true)
	return root
}

func tempDir(tb testing.TB, pattern string) string {
	tb.Helper()
	dir, err := os.MkdirTemp(WorkDir, pattern)
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// generateCtrlgen writes in's module to root and generates into it with
// ctrlgen.
func generateCtrlgen(tb testing.TB, in *Input, root string) {
	tb.Helper()
	// code-generator's side places the clientset by ClientsetDir, ctrlgen's
	// by its flag: they must agree, or the trees compare different paths.
	flag := ""
	if i := slices.Index(in.CtrlgenArgs, "--clientset-name"); i >= 0 && i+1 < len(in.CtrlgenArgs) {
		flag = in.CtrlgenArgs[i+1]
	}
	if flag != in.Codegen.ClientsetDir {
		tb.Fatalf("genrun: %s: ctrlgen's --clientset-name %q but code-generator's ClientsetDir %q", in.Name, flag, in.Codegen.ClientsetDir)
	}
	ctrlgen := CtrlgenBin(tb)
	generate(tb, in, root, false, func(env []string) error {
		for _, r := range in.CtrlgenBefore {
			if _, err := Run(filepath.Join(in.RepoRoot(root), filepath.FromSlash(r.Dir)), env, append([]string{ctrlgen}, r.Args...)); err != nil {
				return err
			}
		}
		_, err := Run(root, env, append([]string{ctrlgen}, in.CtrlgenArgs...))
		return err
	})
}

// generateCodegen writes in's module to root, without ctrlgen in its
// go.mod if dropCtrlgen, and generates into it with code-generator.
func generateCodegen(tb testing.TB, in *Input, root string, dropCtrlgen bool) {
	tb.Helper()
	bins := CodegenBinDir(tb)
	generate(tb, in, root, dropCtrlgen, func(env []string) error {
		cmds, err := in.Codegen.Plan(root, root, in.Module)
		if err == nil {
			_, err = RunAll(root, env, bins, cmds)
		}
		return err
	})
}

// generate writes in's module to root, removes earlier output as the
// script does, runs a tool and tidies go.mod.
func generate(tb testing.TB, in *Input, root string, dropCtrlgen bool, run func(env []string) error) {
	tb.Helper()
	env := []string{"GOFLAGS=-mod=mod", SetupProxy()} // go.mod is not tidy yet
	if err := WriteModule(root, in); err != nil {
		tb.Fatal(err)
	}
	if dropCtrlgen {
		if _, err := GoCmd(root, nil, "mod", "edit", "-droprequire=github.com/ctrlgen/ctrlgen",
			"-dropreplace=github.com/ctrlgen/ctrlgen"); err != nil {
			tb.Fatal(err)
		}
	}
	if err := in.Codegen.Clean(root); err != nil {
		tb.Fatal(err)
	}
	if err := run(env); err != nil {
		tb.Fatal(err)
	}
	if _, err := GoCmd(root, env, "mod", "tidy"); err != nil {
		tb.Fatal(err)
	}
}

// ModuleSource returns the directory of module@version in the module
// cache (read-only), downloading it through the module proxy.
func ModuleSource(tb testing.TB, module, version string) string {
	tb.Helper()
	out, err := GoCmd(WorkDir, []string{SetupProxy()}, "mod", "download", "-json", module+"@"+version)
	if err != nil {
		tb.Fatal(err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		tb.Fatalf("go mod download %s@%s: %v %s", module, version, err, m.Error)
	}
	return m.Dir
}

// RepoSource assembles, under WorkDir, a repository of nested modules
// from the module proxy, whose zip of a module leaves out the modules
// nested in it: the module root at the top and each module of nested at
// its directory under it (its path relative to root's), all at version.
// It returns the repository's directory.
func RepoSource(tb testing.TB, version, root string, nested ...string) string {
	tb.Helper()
	dir := tempDir(tb, "src-"+path.Base(root)+"-")
	if err := CopyTree(ModuleSource(tb, root, version), dir); err != nil {
		tb.Fatal(err)
	}
	for _, m := range nested {
		rel, ok := strings.CutPrefix(m, root+"/")
		if !ok {
			tb.Fatalf("genrun: %s is not nested in %s", m, root)
		}
		if err := CopyTree(ModuleSource(tb, m, version), filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}
