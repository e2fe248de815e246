package jsoncodec

import (
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// topLevel reads apiVersion and kind while the document is decoded, as
// apimachinery's SimpleMetaFactory.Interpret reads them with a second
// pass of encoding/json: every member of the top-level object whose key
// equals "apiVersion" or "kind" ignoring case (Unicode simple folding, so
// "KIND" and "\u212aind" count) is read, the last one wins, null leaves
// the value alone, and any value but a string or null makes Interpret
// fail.
type topLevel struct {
	on bool
	// pending is the member whose value is being decoded: 1 apiVersion,
	// 2 kind, 0 neither; start is where its value begins.
	pending    int8
	start      int
	apiVersion string
	kind       string
	bad        bool
}

func (t *topLevel) member(key []byte, valueStart int) {
	switch {
	case foldEqual(key, "APIVERSION"):
		t.pending, t.start = 1, valueStart
	case foldEqual(key, "KIND"):
		t.pending, t.start = 2, valueStart
	}
}

// finish reads the pending member's value, which ends at end.
func (t *topLevel) finish(data []byte, end int) {
	v := data[t.start:end]
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r') {
		v = v[1:]
	}
	which := t.pending
	t.pending = 0
	switch {
	case len(v) > 0 && v[0] == '"':
		s, ok := unquote(v)
		if !ok {
			t.bad = true
			return
		}
		if which == 1 {
			t.apiVersion = string(s)
		} else {
			t.kind = string(s)
		}
	case string(v) == "null":
	default:
		t.bad = true
	}
}

// gvk is what Interpret returns, or false where it fails.
func (t *topLevel) gvk() (schema.GroupVersionKind, bool) {
	if t.bad {
		return schema.GroupVersionKind{}, false
	}
	gv, err := schema.ParseGroupVersion(t.apiVersion)
	if err != nil {
		return schema.GroupVersionKind{}, false
	}
	return gv.WithKind(t.kind), true
}

// foldEqual reports whether key folds to folded (upper-case ASCII), as
// encoding/json's foldName compares a key with a field name.
func foldEqual(key []byte, folded string) bool {
	j := 0
	for i := 0; i < len(key); {
		if c := key[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			if j >= len(folded) || folded[j] != c {
				return false
			}
			i++
			j++
			continue
		}
		r, n := utf8.DecodeRune(key[i:])
		var buf [utf8.UTFMax]byte
		m := utf8.EncodeRune(buf[:], foldRune(r))
		if j+m > len(folded) || string(buf[:m]) != folded[j:j+m] {
			return false
		}
		i += n
		j += m
	}
	return j == len(folded)
}

// foldRune is the smallest rune of r's fold set, as encoding/json's.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// peek reads the apiVersion and kind that lead the top-level object (as
// Kubernetes writes objects), to guess the type to decode into; the
// guess is checked against what the whole document says afterwards.
// It leaves the decoder at the start.
func (d *Decoder) peek() (apiVersion, kind string, ok bool) {
	defer d.reset(d.data)
	if !d.Object() {
		return "", "", false
	}
	for k, more := d.Key(); more; k, more = d.Key() {
		var which int
		switch {
		case foldEqual(k, "APIVERSION"):
			which = 1
		case foldEqual(k, "KIND"):
			which = 2
		default:
			return apiVersion, kind, kind != ""
		}
		if d.ws() != '"' {
			return "", "", false
		}
		s := d.readString()
		if d.err != nil {
			return "", "", false
		}
		if which == 1 {
			apiVersion = string(s)
		} else {
			kind = string(s)
		}
	}
	return apiVersion, kind, kind != "" && d.err == nil
}
