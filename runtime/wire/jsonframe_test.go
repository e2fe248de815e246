package wire

import (
	"bytes"
	gojson "encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// chunked reads data n bytes at a time (at least one).
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(max(c.n, 1), len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// frames reads every frame as the streaming decoder does (a small
// buffer, grown on io.ErrShortBuffer) and the error that ended them.
func frames(f runtime.Framer, data []byte, chunk int) ([]string, error) {
	r := f.NewFrameReader(io.NopCloser(&chunked{data, chunk}))
	var out []string
	buf := make([]byte, 8)
	for len(out) < 1000 {
		base := 0
		for {
			n, err := r.Read(buf[base:])
			if err == io.ErrShortBuffer {
				base += n
				buf = append(buf, make([]byte, len(buf))...)
				continue
			}
			if err != nil {
				return out, err
			}
			base += n
			break
		}
		out = append(out, string(buf[:base]))
	}
	return out, nil
}

// checkFramer compares JSONFramer with apimachinery's json.Framer on one
// stream: where json.Framer reads the stream to its end (io.EOF, or
// io.ErrUnexpectedEOF in a truncated value), the same frames and the same
// end; where it stops at malformed JSON, the same frames before it, and
// then an error or a frame that is not valid JSON, which the serializer
// refuses; at a value that is not an object or array (no watch event),
// the frames before it and an error.
func checkFramer(t *testing.T, data []byte, chunk int) {
	t.Helper()
	want, wantErr := frames(json.Framer, data, chunk)
	got, err := frames(JSONFramer, data, chunk)
	for k, w := range want {
		if w[0] != '{' && w[0] != '[' {
			// Not a watch event: refused where json.Framer frames it.
			if fmt.Sprint(got) != fmt.Sprint(want[:k]) || err == nil || err == io.EOF {
				t.Errorf("%q in chunks of %d: frames %q, %v; want %q and an error where json.Framer frames %q", data, chunk, got, err, want[:k], w)
			}
			return
		}
	}
	if wantErr == io.ErrUnexpectedEOF && !truncatedObject(data, want) {
		// A truncated number, literal or string: no watch event either.
		if fmt.Sprint(got) != fmt.Sprint(want) || err == nil || err == io.EOF {
			t.Errorf("%q in chunks of %d: frames %q, %v; json.Framer's %q, %v", data, chunk, got, err, want, wantErr)
		}
		return
	}
	if wantErr == io.EOF || wantErr == io.ErrUnexpectedEOF {
		if fmt.Sprint(got) != fmt.Sprint(want) || err != wantErr {
			t.Errorf("%q in chunks of %d: frames %q, %v; json.Framer's %q, %v", data, chunk, got, err, want, wantErr)
		}
		return
	}
	if len(got) < len(want) || fmt.Sprint(got[:len(want)]) != fmt.Sprint(want) {
		t.Errorf("%q in chunks of %d: frames %q, %v; json.Framer's %q before %v", data, chunk, got, err, want, wantErr)
		return
	}
	if len(got) > len(want) {
		if next := got[len(want)]; gojson.Valid([]byte(next)) {
			t.Errorf("%q in chunks of %d: frame %q after %q, where json.Framer stops with %v", data, chunk, next, want, wantErr)
		}
	} else if err == nil || errors.Is(err, io.EOF) {
		t.Errorf("%q in chunks of %d: frames %q end with %v; json.Framer's %q with %v", data, chunk, got, err, want, wantErr)
	}
}

// truncatedObject reports whether what follows frames in data starts an
// object or array.
func truncatedObject(data []byte, frames []string) bool {
	pos := 0
	for _, f := range frames {
		pos += bytes.Index(data[pos:], []byte(f)) + len(f)
	}
	rest := bytes.TrimLeft(data[pos:], " \t\r\n")
	return len(rest) > 0 && (rest[0] == '{' || rest[0] == '[')
}

var framerSeeds = []string{
	`{"type":"ADDED","object":{"kind":"Mydemo","metadata":{"name":"a"}}}` + "\n" + `{"type":"MODIFIED","object":{"kind":"Mydemo","spec":{"s":"}{]["}}}` + "\n",
	`{"a":"\"}"}{"b":[1,{"c":"\\"}]}`, `  {}  []  `, `{"a":1`, `{"a":"x`, `[1,2`, `"str" "s\"t"`, `5 6`, `true false null`, `1.5e3`, `-`,
	`{"a":1}}`, `{"a":1},{"b":2}`, `{"a" 1}`, `{"a":1]`, "{\"a\":\"\x01\"}", `5x`, `}`, `]`, `{]`, "\xff", ``, ` `, `{"a":` + strings.Repeat("[", 10001) + `}`,
}

func TestJSONFramerMatchesAPIMachinerys(t *testing.T) {
	for _, s := range framerSeeds {
		for _, chunk := range []int{1, 3, 64, 4096} {
			checkFramer(t, []byte(s), chunk)
		}
	}
	big := `{"type":"MODIFIED","object":{"data":"` + strings.Repeat("x", 100000) + `"}}`
	checkFramer(t, []byte(big+big), 1000)
}

func FuzzJSONFramer(f *testing.F) {
	for _, s := range framerSeeds {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		checkFramer(t, data, int(chunk))
	})
}

func TestJSONFramerWritesAsAPIMachinerys(t *testing.T) {
	var a, b bytes.Buffer
	JSONFramer.NewFrameWriter(&a).Write([]byte(`{"a":1}`))
	json.Framer.NewFrameWriter(&b).Write([]byte(`{"a":1}`))
	if a.String() != b.String() {
		t.Errorf("wrote %q, json.Framer %q", a.String(), b.String())
	}
}

// referenceScan is frameScanner.Scan one byte at a time, as it was before
// its fast path through strings.
func referenceScan(s *frameScanner, buf []byte, i int) (int, bool, error) {
	for ; i < len(buf); i++ {
		c := buf[i]
		if s.inString {
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			case c < 0x20:
				return 0, false, errFrameSyntax
			}
			continue
		}
		switch {
		case s.depth == 0 && c != '{' && c != '[':
			return 0, false, errFrameSyntax
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			if s.depth++; s.depth > maxDepth {
				return 0, false, errFrameSyntax
			}
		case c == '}' || c == ']':
			if s.depth--; s.depth == 0 {
				return i + 1, true, nil
			}
		}
	}
	return 0, false, nil
}

// checkScanSplit scans data given in two calls, split at every byte, with
// Scan and with referenceScan, and wants the same outcome and state.
func checkScanSplit(t *testing.T, data []byte) {
	t.Helper()
	for split := 0; split <= len(data); split++ {
		var got, want frameScanner
		type outcome struct {
			n   int
			ok  bool
			err error
		}
		g := outcome{}
		g.n, g.ok, g.err = got.Scan(data[:split], 0)
		w := outcome{}
		w.n, w.ok, w.err = referenceScan(&want, data[:split], 0)
		if !g.ok && g.err == nil && !w.ok && w.err == nil {
			g.n, g.ok, g.err = got.Scan(data, split)
			w.n, w.ok, w.err = referenceScan(&want, data, split)
		}
		if g != w || got != want {
			t.Fatalf("%q split at %d: %+v with state %+v; want %+v with %+v", data, split, g, got, w, want)
		}
	}
}

func TestFrameScannerMatchesAByteAtATimeScan(t *testing.T) {
	seeds := append([]string{
		`{"a":"\\"}`, `{"a":"\"\\\""}`, "{\"a\":\"\\\x01\"}", "{\"a\":\"x\x1fy\"}", `{"a":"é\u00e9"}` + "\xff",
		`["a\\\\",{"b":"]}"}]`, `{"a":"` + strings.Repeat("xy", 300) + `"}`,
	}, framerSeeds...)
	for _, s := range seeds {
		checkScanSplit(t, []byte(s))
	}
}

func FuzzFrameScanner(f *testing.F) {
	for _, s := range framerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		checkScanSplit(t, data)
	})
}
