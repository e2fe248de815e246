package jsoncodec

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Time decodes a metav1.Time as its UnmarshalJSON does, which encoding/json
// would call: null is the zero time, a string is parsed as RFC 3339 and
// made local. A string without escapes or non-ASCII bytes (every
// timestamp Kubernetes writes) is parsed here, without the encoding/json
// pass UnmarshalJSON makes over it; anything else goes to UnmarshalJSON.
func Time(d *Decoder, p *metav1.Time) {
	if !plainTime(d, time.RFC3339, &p.Time) {
		d.Unmarshal(p)
	}
}

// MicroTime is Time for a metav1.MicroTime (RFC 3339 with microseconds).
func MicroTime(d *Decoder, p *metav1.MicroTime) {
	if !plainTime(d, metav1.RFC3339Micro, &p.Time) {
		d.Unmarshal(p)
	}
}

// plainTime parses a plain string in layout into *t, made local, and
// reports true; for anything else it consumes nothing and reports false.
func plainTime(d *Decoder, layout string, t *time.Time) bool {
	s, ok := d.plainString()
	if !ok {
		return false
	}
	parsed, err := time.Parse(layout, s)
	if err != nil {
		d.Fail(err)
		return true
	}
	*t = parsed.Local()
	return true
}

// plainString consumes the next value if it is a string of printable
// ASCII without escapes, and returns its text.
func (d *Decoder) plainString() (string, bool) {
	if d.err != nil || d.ws() != '"' {
		return "", false
	}
	data := d.data
	i := d.pos + 1
	for i < len(data) && plain[data[i]] {
		i++
	}
	if i >= len(data) || data[i] != '"' {
		return "", false
	}
	s := string(data[d.pos+1 : i])
	d.pos = i + 1
	return s, true
}
