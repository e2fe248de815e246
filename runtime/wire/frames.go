package wire

import (
	"encoding/binary"
	"fmt"
	"io"
)

// maxFrame is the largest watch event read, as client-go's streaming
// decoder's limit.
const maxFrame = 16 << 20

// frameReader reads a stream into a buffer and hands out its frames as
// slices of it, valid until the next call: the decoders copy what they
// keep.
type frameReader struct {
	r io.Reader
	// buf[start:end] is read and not handed out yet.
	buf        []byte
	start, end int
	// scanned is how far past start a JSON frame has been scanned.
	scanned int
	scanner frameScanner
}

// fill reads more, making room for at least need bytes from start.
func (f *frameReader) fill(need int) error {
	if f.start == f.end {
		f.start, f.end = 0, 0
	}
	if f.start+need > len(f.buf) {
		if need > len(f.buf) {
			buf := make([]byte, max(32<<10, 2*len(f.buf), need))
			f.end = copy(buf, f.buf[f.start:f.end])
			f.buf = buf
		} else {
			f.end = copy(f.buf, f.buf[f.start:f.end])
		}
		f.start = 0
	}
	n, err := f.r.Read(f.buf[f.end:])
	f.end += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	if err == io.EOF && f.end > f.start {
		return io.ErrUnexpectedEOF
	}
	return err
}

// peek returns the next byte without consuming it.
func (f *frameReader) peek() (byte, error) {
	for f.end == f.start {
		if err := f.fill(1); err != nil {
			return 0, err
		}
	}
	return f.buf[f.start], nil
}

// protobufFrame returns the next length-prefixed frame.
func (f *frameReader) protobufFrame() ([]byte, error) {
	for f.end-f.start < 4 {
		if err := f.fill(4); err != nil {
			return nil, err
		}
	}
	size := binary.BigEndian.Uint32(f.buf[f.start:])
	if size > maxFrame {
		return nil, decodeError{fmt.Errorf("watch event of more than %d bytes", maxFrame)}
	}
	n := int(size)
	for f.end-f.start < 4+n {
		if err := f.fill(4 + n); err != nil {
			return nil, err
		}
	}
	frame := f.buf[f.start+4 : f.start+4+n]
	f.start += 4 + n
	return frame, nil
}

// jsonFrame returns the next JSON object or array of the stream. A watch
// event's (event) must be an object no longer than a protobuf frame with
// its length (maxFrame+4 bytes), and what is wrong with its bytes is a
// decodeError. JSONFramer's frames have no limit, and its errors are
// json.Framer's.
func (f *frameReader) jsonFrame(event bool) ([]byte, error) {
	for {
		if f.scanned == 0 {
			for f.start < f.end && isJSONSpace(f.buf[f.start]) {
				f.start++
			}
			if event && f.start < f.end && f.buf[f.start] != '{' {
				return nil, decodeError{fmt.Errorf("watch event is not a JSON object: starts with %q", f.buf[f.start])}
			}
		}
		n, ok, err := f.scanner.Scan(f.buf[f.start:f.end], f.scanned)
		switch {
		case err != nil && event:
			return nil, decodeError{err}
		case err != nil:
			return nil, err
		case ok:
			frame := f.buf[f.start : f.start+n]
			f.start, f.scanned = f.start+n, 0
			return frame, nil
		}
		f.scanned = f.end - f.start
		if event && f.scanned >= maxFrame+4 {
			return nil, decodeError{fmt.Errorf("watch event of more than %d bytes", maxFrame)}
		}
		if err := f.fill(f.scanned + 1); err != nil {
			return nil, err
		}
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
