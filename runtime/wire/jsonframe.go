package jsoncodec

import (
	"errors"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// Framer splits a watch response into its JSON values as apimachinery's
// json.Framer does, in one pass over the bytes: that framer decodes each
// value with encoding/json's Decoder into a json.RawMessage, which scans
// it twice (reading it, then unmarshalling it) and copies it.
//
// It finds where each object ends by counting brackets outside strings;
// the value itself is checked by whoever decodes the frame (the
// serializer, which hands a malformed one to apimachinery's serializer,
// which refuses it). A watch stream whose JSON is malformed therefore
// ends with an error as with json.Framer, possibly a frame later and
// with another message; so does a stream of values that are not objects
// or arrays, which are no watch events. Frames, io.EOF at the end of the stream and
// io.ErrUnexpectedEOF inside a value, and io.ErrShortBuffer for a frame
// longer than the buffer given are json.Framer's.
var Framer runtime.Framer = framer{}

type framer struct{}

func (framer) NewFrameReader(r io.ReadCloser) io.ReadCloser { return &frameReader{r: r} }

func (framer) NewFrameWriter(w io.Writer) io.Writer { return json.Framer.NewFrameWriter(w) }

// ErrFrameSyntax is FrameScanner's error for bytes that are no JSON
// object or array.
var ErrFrameSyntax = errors.New("invalid JSON in the watch stream")

// FrameScanner finds where a JSON object or array ends by counting
// brackets outside strings, across calls as more of a stream arrives. It
// refuses what cannot be in one (a control character in a string, nesting
// deeper than encoding/json's limit); the rest is checked by whoever
// decodes the frame. Its zero value is ready for a frame.
type FrameScanner struct {
	depth             int
	inString, escaped bool
}

// Scan goes on scanning the frame that buf starts with from buf[i:],
// earlier calls having scanned buf[:i]. It returns the length of the frame
// once its closing bracket is in buf, and is then ready for the next one;
// ok is false when buf ends first.
func (s *FrameScanner) Scan(buf []byte, i int) (n int, ok bool, err error) {
	for i < len(buf) {
		if s.inString {
			if s.escaped {
				s.escaped = false
				i++
			}
			// Most of an object's bytes are in its strings.
			for i < len(buf) && inString[buf[i]] {
				i++
			}
			if i == len(buf) {
				break
			}
			switch buf[i] {
			case '\\':
				s.escaped = true
			case '"':
				s.inString = false
			default: // a control character
				return 0, false, ErrFrameSyntax
			}
			i++
			continue
		}
		switch c := buf[i]; {
		case s.depth == 0 && c != '{' && c != '[':
			return 0, false, ErrFrameSyntax
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			if s.depth++; s.depth > maxDepth {
				return 0, false, ErrFrameSyntax
			}
		case c == '}' || c == ']':
			if s.depth--; s.depth == 0 {
				return i + 1, true, nil
			}
		}
		i++
	}
	return 0, false, nil
}

// inString marks the bytes a string holds that neither end it, start an
// escape nor are refused.
var inString = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

type frameReader struct {
	r io.ReadCloser
	// buf[start:] holds bytes read and not yet returned; buf[start:scan]
	// has been scanned, started telling whether a frame has begun.
	buf         []byte
	start, scan int
	started     bool
	scanner     FrameScanner
	err         error
	// remaining is the rest of a frame longer than the caller's buffer.
	remaining []byte
}

func (f *frameReader) Read(data []byte) (int, error) {
	if n := len(f.remaining); n > 0 {
		if n <= len(data) {
			copy(data, f.remaining)
			f.remaining = nil
			return n, nil
		}
		n = copy(data, f.remaining)
		f.remaining = f.remaining[n:]
		return n, io.ErrShortBuffer
	}
	frame, err := f.next()
	if err != nil {
		return 0, err
	}
	n := copy(data, frame)
	if n < len(frame) {
		f.remaining = append([]byte(nil), frame[n:]...)
		return n, io.ErrShortBuffer
	}
	return n, nil
}

// next returns the next frame, valid until the next call.
func (f *frameReader) next() ([]byte, error) {
	for {
		if end, ok, err := f.scanFrame(); err != nil {
			return nil, err
		} else if ok {
			frame := f.buf[f.start:end]
			f.start, f.scan, f.started = end, end, false
			return frame, nil
		}
		if err := f.fill(); err != nil {
			if err == io.EOF && f.started {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// scanFrame goes on scanning the frame at start; ok when it ends at end.
func (f *frameReader) scanFrame() (end int, ok bool, err error) {
	if !f.started {
		i := f.scan
		for i < len(f.buf) && isSpace(f.buf[i]) {
			i++
		}
		f.start, f.scan = i, i
		if i == len(f.buf) {
			return 0, false, nil
		}
		f.started = true
	}
	n, ok, err := f.scanner.Scan(f.buf[f.start:], f.scan-f.start)
	if !ok {
		f.scan = len(f.buf)
		return 0, false, err
	}
	return f.start + n, true, nil
}

// fill reads more of the stream, keeping the frame in progress.
func (f *frameReader) fill() error {
	if f.err != nil {
		return f.err
	}
	if f.start > 0 {
		n := copy(f.buf, f.buf[f.start:])
		f.buf = f.buf[:n]
		f.scan -= f.start
		f.start = 0
	}
	if len(f.buf) == cap(f.buf) {
		f.buf = append(f.buf, make([]byte, max(4096, len(f.buf)))...)[:len(f.buf)]
	}
	n, err := f.r.Read(f.buf[len(f.buf):cap(f.buf)])
	f.buf = f.buf[:len(f.buf)+n]
	if err != nil {
		f.err = err
		if n > 0 {
			return nil
		}
	}
	return f.err
}

func (f *frameReader) Close() error { return f.r.Close() }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
