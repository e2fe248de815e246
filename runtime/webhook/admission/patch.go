package admission

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/ctrlgen/ctrlgen/runtime/jsoncodec"
	"github.com/ctrlgen/ctrlgen/runtime/webhook/internal/review"
)

// operation is one JSON patch (RFC 6902) operation.
type operation struct {
	op, path string
	value    any // for add and replace
}

// parseJSON reads a document as sigs.k8s.io/json does: integers stay
// int64, so that both sides of a diff compare alike.
func parseJSON(data []byte) (any, error) {
	d := jsoncodec.NewDecoder(data)
	defer d.Release()
	var v any
	jsoncodec.Any(d, &v)
	return v, d.End()
}

// createPatch is the JSON patch that turns document from into to. Objects
// are compared member by member and arrays of the same length element by
// element; an array whose length changed is replaced whole.
func createPatch(from, to any) []operation {
	var ops []operation
	diff("", from, to, &ops)
	return ops
}

func diff(path string, from, to any, ops *[]operation) {
	switch f := from.(type) {
	case map[string]any:
		if t, ok := to.(map[string]any); ok {
			for _, k := range sortedKeys(f) {
				if _, ok := t[k]; !ok {
					*ops = append(*ops, operation{op: "remove", path: path + "/" + escape(k)})
				}
			}
			for _, k := range sortedKeys(t) {
				if fv, ok := f[k]; ok {
					diff(path+"/"+escape(k), fv, t[k], ops)
				} else {
					*ops = append(*ops, operation{op: "add", path: path + "/" + escape(k), value: t[k]})
				}
			}
			return
		}
	case []any:
		if t, ok := to.([]any); ok && len(t) == len(f) {
			for i := range f {
				diff(path+"/"+strconv.Itoa(i), f[i], t[i], ops)
			}
			return
		}
	default:
		// A scalar: comparable, and unequal to anything of another type.
		if from == to {
			return
		}
	}
	*ops = append(*ops, operation{op: "replace", path: path, value: to})
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// escape is a JSON pointer's escaping of a key (RFC 6901).
func escape(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return escaper.Replace(k)
}

// escaper and unescaper are a JSON pointer's escaping (RFC 6901).
var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// has reports whether the JSON pointer path names a value in doc.
func has(doc any, path string) bool {
	for _, tok := range strings.Split(path, "/")[1:] {
		tok = unescaper.Replace(tok)
		switch d := doc.(type) {
		case map[string]any:
			v, ok := d[tok]
			if !ok {
				return false
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(d) {
				return false
			}
			doc = d[i]
		default:
			return false
		}
	}
	return true
}

// marshalPatch writes ops as a JSON patch document.
func marshalPatch(ops []operation) ([]byte, error) {
	b := []byte{'['}
	for i, o := range ops {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"op":`...)
		b = review.AppendString(b, o.op)
		b = append(b, `,"path":`...)
		b = review.AppendString(b, o.path)
		if o.op != "remove" {
			v, err := json.Marshal(o.value)
			if err != nil {
				return nil, err
			}
			b = append(b, `,"value":`...)
			b = append(b, v...)
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}
