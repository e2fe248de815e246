package benchlines

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    []Line
		wantErr string // a substring of the error; "" for none
	}{
		{
			name: "sub-benchmark with several metrics",
			input: "BenchmarkMydemoReady/impl=ctrlgen-2  \t       1\t18081861408 ns/op\t" +
				"         3.630 bench-cpu-s\t         9.360 other-cpu-s\t        18.08 s\n",
			want: []Line{{
				Name: "MydemoReady",
				Sub:  map[string]string{"impl": "ctrlgen"},
				// ns/op is kept as written, not tidied into sec/op.
				Values: map[string]float64{"ns/op": 18081861408, "bench-cpu-s": 3.63, "other-cpu-s": 9.36, "s": 18.08},
			}},
		},
		{
			name: "two keys, a dash in a value, units benchfmt would rescale",
			input: "BenchmarkGenerate/input=one-gv-noop/impl=code-generator-2  \t1\t  69699888 ns/op\t" +
				"0.09612 cpu-sec/op\t19.89 peak-MB\t1069 cpu-ns/object\n",
			want: []Line{{
				Name:   "Generate",
				Sub:    map[string]string{"input": "one-gv-noop", "impl": "code-generator"},
				Values: map[string]float64{"ns/op": 69699888, "cpu-sec/op": 0.09612, "peak-MB": 19.89, "cpu-ns/object": 1069},
			}},
		},
		{
			name:  "no GOMAXPROCS suffix, a positional part",
			input: "BenchmarkMemory/fixed/impl=client-go 1 1338710440 ns/op 141.7 B/object\n",
			want: []Line{{
				Name:   "Memory",
				Sub:    map[string]string{"impl": "client-go"},
				Values: map[string]float64{"ns/op": 1338710440, "B/object": 141.7},
			}},
		},
		{
			name:  "no sub-benchmark",
			input: "BenchmarkPlain-8 1000 1234 ns/op 56 B/op 7 allocs/op\n",
			want: []Line{{
				Name:   "Plain",
				Sub:    map[string]string{},
				Values: map[string]float64{"ns/op": 1234, "B/op": 56, "allocs/op": 7},
			}},
		},
		{
			name: "other lines are skipped, results kept in order",
			input: `goversion: go1.26.8
# load average before: 1.73 2.03 2.70 on 2 CPUs
goos: linux
pkg: github.com/ctrlgen/ctrlgen/bench/controller
cpu: Intel(R) Xeon(R) Processor
BenchmarkMydemoReady/impl=floor
BenchmarkMydemoReady/impl=floor-2   1   14013895995 ns/op   14.01 s
--- BENCH: BenchmarkMydemoReady/impl=floor-2
    controller_bench_test.go:58: namespace bench-floor-87wjl deleted in 15.7s

PASS
ok  	github.com/ctrlgen/ctrlgen/bench/controller	120.5s
BenchmarkMydemoReady/impl=ctrlgen-2   1   14830510645 ns/op   14.83 s
`,
			want: []Line{
				{Name: "MydemoReady", Sub: map[string]string{"impl": "floor"}, Values: map[string]float64{"ns/op": 14013895995, "s": 14.01}},
				{Name: "MydemoReady", Sub: map[string]string{"impl": "ctrlgen"}, Values: map[string]float64{"ns/op": 14830510645, "s": 14.83}},
			},
		},
		{
			name:  "nothing but other lines",
			input: "goos: linux\nPASS\n",
			want:  nil,
		},
		{
			name:    "a measurement that is not a number",
			input:   "goos: linux\nBenchmarkX/impl=ctrlgen-2  1  100 ns/op  oops s\n",
			wantErr: "in.txt:2: parsing measurement",
		},
		{
			name:    "a value without its unit",
			input:   "BenchmarkX/impl=ctrlgen-2  1  100 ns/op  5\n",
			wantErr: "in.txt:1: missing units",
		},
		{
			name:    "no iteration count",
			input:   "BenchmarkX/impl=ctrlgen-2  many  100 ns/op\n",
			wantErr: "in.txt:1: parsing iteration count",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.input), "in.txt")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want one containing %q (lines %+v)", err, tt.wantErr, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.txt")
	if err := os.WriteFile(path, []byte("goos: linux\nBenchmarkWorkQueue/impl=ctrlgen-2  8  137636315 ns/op  137.6 ns/item\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{{Name: "WorkQueue", Sub: map[string]string{"impl": "ctrlgen"}, Values: map[string]float64{"ns/op": 137636315, "ns/item": 137.6}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read = %+v, want %+v", got, want)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.txt")); err == nil {
		t.Error("Read of a missing file: no error")
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		in := slices.Clone(tc.in)
		if got := Median(in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("Median(%v) reordered its argument: %v", tc.in, in)
		}
	}
}
