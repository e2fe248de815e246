package generator

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ctrlgen/ctrlgen/bench/internal/genrun"
)

// BenchmarkGenerate times ctrlgen and code-generator on the same inputs,
// sub-benchmarks input=…/impl=… so that `benchstat -col /impl` compares
// them. Ops take seconds: run with -benchtime=1x and -count (run.sh).
func BenchmarkGenerate(b *testing.B) {
	for _, in := range []*genrun.Input{oneGV, k8sAPI, k8sAPIApply} {
		b.Run("input="+in.Name, func(b *testing.B) {
			b.Run("impl=ctrlgen", func(b *testing.B) {
				bin, t := genrun.CtrlgenBin(b), genrun.TemplateOf(b, in)
				argv := append([]string{bin}, in.CtrlgenArgs...)
				benchOps(b, t, func(root string) (genrun.Usage, error) { return genrun.Run(root, nil, argv) })
			})
			b.Run("impl=code-generator", func(b *testing.B) {
				bins, t := genrun.CodegenBinDir(b), genrun.TemplateOf(b, in)
				logged.Do(in, func() {
					b.Logf("in {root}, the op's fresh copy of the module, ctrlgen runs:\n\tctrlgen %s", shellJoin(in.CtrlgenArgs))
					b.Logf("and code-generator, one after the other:")
					for _, c := range t.Codegen {
						b.Logf("\t%s", shellJoin(c))
					}
				})
				benchOps(b, t, func(root string) (genrun.Usage, error) { return t.CodegenOp(in.Codegen, root, bins) })
			})
		})
		if in == oneGV {
			// ctrlgen again on its own output: nothing to write.
			b.Run("input=one-gv-noop", func(b *testing.B) {
				b.Run("impl=ctrlgen", func(b *testing.B) {
					bin, t := genrun.CtrlgenBin(b), genrun.TemplateOf(b, in)
					argv := append([]string{bin}, in.CtrlgenArgs...)
					root := t.Fresh(b)
					defer os.RemoveAll(root)
					if _, err := genrun.Run(root, nil, argv); err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					var total genrun.Usage
					for i := 0; i < b.N; i++ {
						u, err := genrun.Run(root, nil, argv)
						if err != nil {
							b.Fatal(err)
						}
						total = total.Add(u)
					}
					report(b, total)
				})
			})
		}
	}
}

// logged says which inputs' invocations were logged: once per run.
var logged onceBy[*genrun.Input]

type onceBy[K comparable] struct {
	mu   sync.Mutex
	done map[K]bool
}

func (o *onceBy[K]) Do(k K, f func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.done[k] {
		if o.done == nil {
			o.done = map[K]bool{}
		}
		o.done[k] = true
		f()
	}
}

// shellJoin quotes args for a shell where they need it.
func shellJoin(args []string) string {
	var q []string
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$*?") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q = append(q, a)
	}
	return strings.Join(q, " ")
}

// report reports what the b.N ops used: peak-MB, the largest peak RSS of
// any process of any op, in units of 10⁶ bytes (benchstat reads "MB" so
// and prints MiB); cpu-sec/op, their user and system CPU time per op,
// which unlike the wall time barely depends on what else the machine runs.
func report(b *testing.B, total genrun.Usage) {
	b.ReportMetric(float64(total.PeakKiB)*1024/1e6, "peak-MB")
	b.ReportMetric(total.CPU.Seconds()/float64(b.N), "cpu-sec/op")
}

// benchOps times op on a fresh copy of t per iteration (the copy is not
// timed) and reports what they used.
func benchOps(b *testing.B, t *genrun.Template, op func(root string) (genrun.Usage, error)) {
	b.ResetTimer()
	var total genrun.Usage
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		root := t.Fresh(b)
		b.StartTimer()
		u, err := op(root)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		os.RemoveAll(root)
		b.StartTimer()
		total = total.Add(u)
	}
	report(b, total)
}
