// Package benchlines reads the result lines of `go test -bench` output,
// such as
//
//	BenchmarkMydemoReady/impl=ctrlgen-2   1   18081861408 ns/op   18.08 s
//
// for the bench module's ratios commands. It is a thin layer over
// golang.org/x/perf/benchfmt that keeps what those commands use: the
// base name, the key=value sub-benchmark parts and every metric by its
// unit as written. It also holds what those commands share around the
// lines: reading the file named on the command line, the median, and
// how a goal's verdict is written.
package benchlines

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"

	"golang.org/x/perf/benchfmt"
)

// ReadArg reads the lines of the file named by the command's one
// argument, as every ratios command does first, and returns them and the
// file's name. Without exactly one argument it prints the usage and exits
// with status 2; if the file cannot be read or parsed, it prints the error
// and exits with status 1.
func ReadArg() ([]Line, string) {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: ratios BENCH-OUTPUT")
		os.Exit(2)
	}
	lines, err := Read(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return lines, os.Args[1]
}

// Median returns the median of v, the mean of the middle two if v has an
// even length. v must not be empty; it is left as it is.
func Median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Verdict says whether a goal is met, as the ratios commands print it.
func Verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}

// A Line is one benchmark result line.
type Line struct {
	// Name is the benchmark's base name without "Benchmark", the
	// sub-benchmark parts and the -GOMAXPROCS suffix: "MydemoReady".
	Name string
	// Sub holds the name's key=value sub-benchmark parts:
	// "impl" → "ctrlgen". Parts without '=' are left out.
	Sub map[string]string
	// Values holds the line's metrics by their unit as written, not
	// rescaled ("ns/op" stays ns/op): "ns/op" → 18081861408, "s" → 18.08.
	// Of a unit written twice on one line the last value counts.
	Values map[string]float64
}

// Read returns the benchmark result lines of the file at path, in order.
func Read(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse returns the benchmark result lines read from r, in order; name
// is r's name in error messages. Every other line (configuration such
// as "goos: linux", log output, PASS, a benchmark's name alone on its
// line as `go test -v` prints it) is skipped. A line that begins with
// "Benchmark" but is not a well-formed result is an error, with its line
// number, rather than dropped: a silently missing sample would change
// the medians.
func Parse(r io.Reader, name string) ([]Line, error) {
	var lines []Line
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			lines = append(lines, line(rec))
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	return lines, nil
}

// line copies what a Line keeps out of res, which the Reader reuses.
func line(res *benchfmt.Result) Line {
	base, parts := res.Name.Parts()
	l := Line{
		Name:   string(base),
		Sub:    map[string]string{},
		Values: make(map[string]float64, len(res.Values)),
	}
	for _, p := range parts {
		// A part is "/key=value", "/positional" or the final "-GOMAXPROCS".
		p, ok := bytes.CutPrefix(p, []byte("/"))
		if !ok {
			continue
		}
		if k, v, ok := bytes.Cut(p, []byte("=")); ok {
			l.Sub[string(k)] = string(v)
		}
	}
	for _, v := range res.Values {
		// The Reader tidies units ("ns/op" into "sec/op", "peak-MB"
		// into "peak-B") and keeps the original beside them.
		if v.OrigUnit != "" {
			l.Values[v.OrigUnit] = v.OrigValue
		} else {
			l.Values[v.Unit] = v.Value
		}
	}
	return l
}
