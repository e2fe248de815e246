package wire

import (
	"errors"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// JSONFramer splits a watch response into its JSON values as
// apimachinery's json.Framer does, in one pass over the bytes: that framer
// decodes each value with encoding/json's Decoder into a json.RawMessage,
// which scans it twice (reading it, then unmarshalling it) and copies it.
// It reads frames as a Stream does; jsoncodec.NegotiatedSerializer puts it
// in json.Framer's place for client-go's own watches.
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
var JSONFramer runtime.Framer = jsonFramer{}

type jsonFramer struct{}

func (jsonFramer) NewFrameReader(r io.ReadCloser) io.ReadCloser {
	return &jsonFrameReader{body: r, frames: frameReader{r: r}}
}

func (jsonFramer) NewFrameWriter(w io.Writer) io.Writer { return json.Framer.NewFrameWriter(w) }

// errFrameSyntax is frameScanner's error for bytes that are no JSON
// object or array.
var errFrameSyntax = errors.New("invalid JSON in the watch stream")

// maxDepth is encoding/json's nesting limit, which jsoncodec's decoder
// keeps too.
const maxDepth = 10000

// frameScanner finds where a JSON object or array ends by counting
// brackets outside strings, across calls as more of a stream arrives. It
// refuses what cannot be in one (a control character in a string, nesting
// deeper than encoding/json's limit); the rest is checked by whoever
// decodes the frame. Its zero value is ready for a frame.
type frameScanner struct {
	depth             int
	inString, escaped bool
}

// Scan goes on scanning the frame that buf starts with from buf[i:],
// earlier calls having scanned buf[:i]. It returns the length of the frame
// once its closing bracket is in buf, and is then ready for the next one;
// ok is false when buf ends first.
func (s *frameScanner) Scan(buf []byte, i int) (n int, ok bool, err error) {
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
				return 0, false, errFrameSyntax
			}
			i++
			continue
		}
		switch c := buf[i]; {
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

// jsonFrameReader hands out JSONFramer's frames as json.Framer's reader
// does: a frame longer than the caller's buffer comes in parts, each but
// the last with io.ErrShortBuffer.
type jsonFrameReader struct {
	body   io.ReadCloser
	frames frameReader
	// remaining is the rest of a frame longer than the caller's buffer.
	remaining []byte
}

func (f *jsonFrameReader) Read(data []byte) (int, error) {
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
	frame, err := f.frames.jsonFrame(false)
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

func (f *jsonFrameReader) Close() error { return f.body.Close() }
