// Package review holds what admission and conversion endpoints share: a
// request body read within a limit, the apiserver's timeout honoured, a
// panic in user code turned into an answer, and JSON written without
// reflection.
package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/klog/v2"

	"github.com/ctrlgen/ctrlgen/runtime/jsoncodec"
)

// MaxBodyBytes bounds a review's body: the apiserver's own limit on a
// request is 3 MiB of object; an AdmissionReview carries two (object and
// oldObject), and a ConversionReview a list of them, as controller-runtime
// allows 7 MiB.
const MaxBodyBytes = 7 << 20

// BadRequest is a review that is not one: the endpoint answers 400 with
// its message, not a review.
type BadRequest struct{ Err error }

func (e *BadRequest) Error() string { return e.Err.Error() }
func (e *BadRequest) Unwrap() error { return e.Err }

// Badf is a BadRequest.
func Badf(format string, args ...any) error {
	return &BadRequest{Err: fmt.Errorf(format, args...)}
}

// Read reads a review's body: JSON, within MaxBodyBytes.
func Read(r *http.Request) ([]byte, int, error) {
	if r.Method != http.MethodPost {
		return nil, http.StatusMethodNotAllowed, fmt.Errorf("method %s: reviews are POSTed", r.Method)
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return nil, http.StatusUnsupportedMediaType, fmt.Errorf("content type %q: expected application/json", ct)
		}
	}
	if r.Body == nil {
		return nil, http.StatusBadRequest, errors.New("empty body: expected a review")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("reading the body: %w", err)
	}
	if len(body) > MaxBodyBytes {
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("body larger than %d bytes", MaxBodyBytes)
	}
	if len(body) == 0 {
		return nil, http.StatusBadRequest, errors.New("empty body: expected a review")
	}
	return body, 0, nil
}

// Context is the request's context with the deadline the apiserver asks
// for in its "timeout" query parameter ("10s"), which it gives every
// webhook call.
func Context(r *http.Request) (context.Context, context.CancelFunc) {
	if t := r.URL.Query().Get("timeout"); t != "" {
		if d, err := time.ParseDuration(t); err == nil && d > 0 {
			return context.WithTimeout(r.Context(), d)
		}
	}
	return context.WithCancel(r.Context())
}

// Serve reads the body and answers with handle's bytes; handle's
// BadRequest becomes a 400. It is every endpoint's ServeHTTP.
func Serve(w http.ResponseWriter, r *http.Request, handle func(ctx context.Context, body []byte) ([]byte, error)) {
	body, code, err := Read(r)
	if err != nil {
		http.Error(w, err.Error(), code)
		return
	}
	ctx, cancel := Context(r)
	defer cancel()
	out, err := handle(ctx, body)
	if err != nil {
		var bad *BadRequest
		code := http.StatusInternalServerError
		if errors.As(err, &bad) {
			code = http.StatusBadRequest
		}
		http.Error(w, err.Error(), code)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.Write(out)
}

// PanicMessage is what a caller is told when user code panics: the panic
// itself may hold anything, and goes to the log.
const PanicMessage = "internal error in the webhook; the server logged it"

// Guard calls f, turning a panic into an error with PanicMessage, logged
// with its stack.
func Guard(ctx context.Context, what string, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			klog.FromContext(ctx).Error(fmt.Errorf("panic: %v", p), "Webhook panicked", "in", what, "stack", string(debug.Stack()))
			err = &Panic{Value: p}
		}
	}()
	return f()
}

// Panic is the error Guard returns for a panic.
type Panic struct{ Value any }

func (p *Panic) Error() string { return PanicMessage }

// AppendString appends s as a JSON string, as encoding/json writes it
// (HTML characters escaped, invalid UTF-8 replaced).
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// DecodeEnvelope reads a review: its apiVersion, one of versions, its
// kind, which must be kind, and its request, which decodeRequest reads
// from the decoder (the rest of the review is skipped). It returns the
// apiVersion, which the response repeats.
func DecodeEnvelope(body []byte, kind string, versions []string, decodeRequest func(*jsoncodec.Decoder)) (string, error) {
	d := jsoncodec.NewDecoder(body)
	defer d.Release()
	var apiVersion, gotKind string
	hasRequest := false
	if !d.Object() {
		if d.Err() == nil {
			return "", Badf("a %s is a JSON object", kind)
		}
		return "", Badf("malformed %s: %v", kind, d.Err())
	}
	for key, ok := d.Key(); ok; key, ok = d.Key() {
		switch string(key) {
		case "apiVersion":
			jsoncodec.String(d, &apiVersion)
		case "kind":
			jsoncodec.String(d, &gotKind)
		case "request":
			hasRequest = !d.Null()
			if hasRequest {
				decodeRequest(d)
			}
		default:
			d.Skip()
		}
	}
	if err := d.End(); err != nil {
		return "", Badf("malformed %s: %v", kind, err)
	}
	switch {
	case gotKind != kind:
		return "", Badf("kind %q: expected %s", gotKind, kind)
	case !slices.Contains(versions, apiVersion):
		return "", Badf("apiVersion %q: expected %s", apiVersion, strings.Join(versions, " or "))
	case !hasRequest:
		return "", Badf("%s without a request", kind)
	}
	return apiVersion, nil
}
