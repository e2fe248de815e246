package wire

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// protobufWatchEvent reads a metav1.WatchEvent in protobuf, as the
// apiserver frames it in a watch (no envelope): field 1 the type, field 2
// a RawExtension whose field 1 holds the encoded object. It returns the
// type and the object's bytes as slices of frame; as the generated
// unmarshaler, the last occurrence of a field wins and unknown fields are
// skipped.
func protobufWatchEvent(frame []byte) (typ, raw []byte, err error) {
	err = protobufFields(frame, func(field uint64, value []byte) error {
		switch field {
		case 1:
			typ = value
		case 2:
			return protobufFields(value, func(field uint64, value []byte) error {
				if field == 1 {
					raw = value
				}
				return nil
			})
		}
		return nil
	})
	return typ, raw, err
}

// protobufFields calls f with every length-delimited field of msg, and
// skips the others; fields 1 and 2, which f reads, must be
// length-delimited.
func protobufFields(msg []byte, f func(field uint64, value []byte) error) error {
	for len(msg) > 0 {
		key, n := protobufVarint(msg)
		if n <= 0 {
			return protobufVarintError(n)
		}
		msg = msg[n:]
		field, wire := key>>3, key&7
		if field == 0 {
			return errors.New("proto: illegal field number 0")
		}
		if (field == 1 || field == 2) && wire != 2 {
			return fmt.Errorf("proto: wrong wireType = %d for field %d", wire, field)
		}
		switch wire {
		case 0:
			if _, n = protobufVarint(msg); n <= 0 {
				return protobufVarintError(n)
			}
			msg = msg[n:]
		case 1, 5:
			size := 8
			if wire == 5 {
				size = 4
			}
			if len(msg) < size {
				return io.ErrUnexpectedEOF
			}
			msg = msg[size:]
		case 2:
			l, n := protobufVarint(msg)
			if n <= 0 {
				return protobufVarintError(n)
			}
			if l > uint64(len(msg)-n) {
				return io.ErrUnexpectedEOF
			}
			if err := f(field, msg[n:n+int(l)]); err != nil {
				return err
			}
			msg = msg[n+int(l):]
		default:
			return fmt.Errorf("proto: illegal wireType %d", wire)
		}
	}
	return nil
}

func protobufVarint(b []byte) (uint64, int) { return binary.Uvarint(b) }

// protobufVarintError is the generated unmarshalers' error for a varint
// that runs past the message (n == 0) or overflows (n < 0); the first is
// io.ErrUnexpectedEOF, which client-go's watch takes for the end of the
// stream.
func protobufVarintError(n int) error {
	if n == 0 {
		return io.ErrUnexpectedEOF
	}
	return errors.New("proto: integer overflow")
}

// jsonWatchEvent reads a metav1.WatchEvent in JSON, {"type":…,"object":…},
// as the serializer does: keys matched case-sensitively, the last of a
// repeated key winning, others ignored, and "object": null the same as no
// object. It returns the type and the object's bytes as slices of frame,
// which must be one JSON object (jsonFrame's).
func jsonWatchEvent(frame []byte) (typ, raw []byte, err error) {
	i := skipJSONSpace(frame, 0)
	if i == len(frame) || frame[i] != '{' {
		return nil, nil, errors.New("watch event is not a JSON object")
	}
	i = skipJSONSpace(frame, i+1)
	if i < len(frame) && frame[i] == '}' {
		return nil, nil, nil
	}
	for {
		var key []byte
		if key, i, err = jsonString(frame, i); err != nil {
			return nil, nil, err
		}
		if i = skipJSONSpace(frame, i); i == len(frame) || frame[i] != ':' {
			return nil, nil, errors.New("watch event: want ':' after a key")
		}
		start := skipJSONSpace(frame, i+1)
		end, err := jsonValueEnd(frame, start)
		if err != nil {
			return nil, nil, err
		}
		switch string(key) {
		case "type":
			if typ, _, err = jsonString(frame, start); err != nil {
				return nil, nil, fmt.Errorf("watch event type: %w", err)
			}
		case "object":
			raw = frame[start:end]
			if string(raw) == "null" {
				raw = nil
			}
		}
		switch i = skipJSONSpace(frame, end); {
		case i < len(frame) && frame[i] == ',':
			i = skipJSONSpace(frame, i+1)
		case i < len(frame) && frame[i] == '}':
			return typ, raw, nil
		default:
			return nil, nil, errors.New("watch event: want ',' or '}' after a value")
		}
	}
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	return i
}

// jsonString reads the string that starts at b[i] and returns its value
// (the bytes between the quotes when it has no escapes) and the index
// after it.
func jsonString(b []byte, i int) (s []byte, next int, err error) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, errors.New("want a JSON string")
	}
	end, err := jsonValueEnd(b, i)
	if err != nil {
		return nil, 0, err
	}
	s = b[i+1 : end-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		var unquoted string
		if err := json.Unmarshal(b[i:end], &unquoted); err != nil {
			return nil, 0, err
		}
		s = []byte(unquoted)
	}
	return s, end, nil
}

// jsonValueEnd returns the index after the JSON value starting at b[i].
func jsonValueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("watch event: want a value")
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
		return 0, errors.New("watch event: unterminated string")
	case '{', '[':
		var s frameScanner
		switch n, ok, err := s.Scan(b[i:], 0); {
		case err != nil:
			return 0, err
		case !ok:
			return 0, errors.New("watch event: unterminated object or array")
		default:
			return i + n, nil
		}
	}
	j := i
	for j < len(b) && !isJSONSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
		j++
	}
	if j == i {
		return 0, fmt.Errorf("watch event: unexpected %q", b[i])
	}
	return j, nil
}
