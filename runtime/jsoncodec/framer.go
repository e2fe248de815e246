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

var errFrameSyntax = errors.New("invalid JSON in the watch stream")

type frameReader struct {
	r io.ReadCloser
	// buf[start:] holds bytes read and not yet returned; scan is how far
	// the frame at start has been scanned, with depth, inString and
	// escaped the scanner's state there.
	buf              []byte
	start, scan      int
	depth            int
	inString         bool
	escaped, started bool
	err              error
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
			f.start, f.scan = end, end
			f.depth, f.inString, f.escaped, f.started = 0, false, false, false
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
	buf := f.buf
	i := f.scan
	if !f.started {
		for i < len(buf) && isSpace(buf[i]) {
			i++
		}
		f.start, f.scan = i, i
		if i == len(buf) {
			return 0, false, nil
		}
		if c := buf[i]; c != '{' && c != '[' {
			// Not an object: no watch event, whose decoding would
			// fail anyway.
			return 0, false, errFrameSyntax
		}
		f.started, f.depth = true, 1
		i++
	}
	for ; i < len(buf); i++ {
		c := buf[i]
		if f.inString {
			switch {
			case f.escaped:
				f.escaped = false
			case c == '\\':
				f.escaped = true
			case c == '"':
				f.inString = false
			case c < 0x20:
				return 0, false, errFrameSyntax
			}
			continue
		}
		switch c {
		case '"':
			f.inString = true
		case '{', '[':
			f.depth++
			if f.depth > maxDepth {
				return 0, false, errFrameSyntax
			}
		case '}', ']':
			f.depth--
			if f.depth == 0 {
				f.scan = i + 1
				return i + 1, true, nil
			}
		}
	}
	f.scan = i
	return 0, false, nil
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
