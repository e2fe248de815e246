package webhook

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	kerrors "k8s.io/apimachinery/pkg/util/errors"
	kjson "sigs.k8s.io/json"
)

// applyPatch applies a marker's strategic merge patch to a webhook, as
// controller-gen does with apimachinery's strategicpatch: objects merge
// field by field, null removes a field, lists are replaced except those
// whose field is tagged patchStrategy:"merge" (matchConditions, by
// name), whose items merge by that key, an item {"$patch": "delete"}
// removing the one of its key; {"$patch": "replace"} in an object or a
// merged list replaces it whole. Unknown or miscased fields are an error.
// It is written for the webhook types, whose only merged lists are keyed
// by a string, instead of linking strategicpatch, which more than doubled
// ctrlgen's binary and the start-up every run pays; patch_test.go checks
// it against strategicpatch.
func applyPatch[T any](w *T, patch string) error {
	if patch == "" {
		return nil
	}
	var p map[string]any
	strict, err := kjson.UnmarshalStrict([]byte(patch), &p)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return kerrors.NewAggregate(strict)
	}
	t := reflect.TypeFor[T]()
	if err := checkPatchFields(p, t); err != nil {
		return err
	}
	raw, err := json.Marshal(w)
	if err != nil {
		return err
	}
	var current map[string]any
	if err := json.Unmarshal(raw, &current); err != nil {
		return err
	}
	merged, err := mergeObject(current, p, t)
	if err != nil {
		return err
	}
	patched, err := json.Marshal(merged)
	if err != nil {
		return err
	}
	var out T
	strict, err = kjson.UnmarshalStrict(patched, &out)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return kerrors.NewAggregate(strict)
	}
	*w = out
	return nil
}

// field is a struct field found by its JSON name.
type field struct {
	typ      reflect.Type // pointers and slices removed: the element's
	mergeKey string       // for a list tagged patchStrategy:"merge"
}

// lookup finds the field of struct t whose JSON name is name, exactly.
func lookup(t reflect.Type, name string) (field, bool) {
	t = deref(t)
	if t.Kind() != reflect.Struct {
		return field{}, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && jsonName == "" {
			if found, ok := lookup(f.Type, name); ok {
				return found, true
			}
			continue
		}
		if jsonName != name {
			continue
		}
		out := field{typ: deref(f.Type)}
		if out.typ.Kind() == reflect.Slice {
			out.typ = deref(out.typ.Elem())
			if strings.Contains(f.Tag.Get("patchStrategy"), "merge") {
				out.mergeKey = f.Tag.Get("patchMergeKey")
			}
		}
		return out, true
	}
	return field{}, false
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// checkPatchFields refuses fields the webhook type does not have, before
// the merge drops those set to null, and the directives this merge does
// not apply.
func checkPatchFields(p map[string]any, t reflect.Type) error {
	for key, value := range p {
		if strings.HasPrefix(key, "$") {
			if key != "$patch" {
				return fmt.Errorf("patch directive %q: only $patch is applied to webhooks", key)
			}
			continue
		}
		if deref(t).Kind() == reflect.Map {
			continue // label selectors' matchLabels: any key
		}
		f, ok := lookup(t, key)
		if !ok {
			return fmt.Errorf("invalid patch field %q: unable to find api field in struct %s for the json field %q", key, deref(t).Name(), key)
		}
		switch value := value.(type) {
		case map[string]any:
			if err := checkPatchFields(value, f.typ); err != nil {
				return err
			}
		case []any:
			for _, item := range value {
				if item, ok := item.(map[string]any); ok {
					if err := checkPatchFields(item, f.typ); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// mergeObject merges patch into current, an object of type t.
func mergeObject(current, patch map[string]any, t reflect.Type) (map[string]any, error) {
	switch patch["$patch"] {
	case nil:
	case "replace":
		return withoutDirectives(patch), nil
	case "delete":
		return map[string]any{}, nil // strategicpatch leaves {}
	default:
		return nil, fmt.Errorf("unknown $patch %v", patch["$patch"])
	}
	out := maps.Clone(current)
	if out == nil {
		out = map[string]any{}
	}
	for key, value := range patch {
		if strings.HasPrefix(key, "$") {
			continue
		}
		if value == nil {
			delete(out, key)
			continue
		}
		f, _ := lookup(t, key)
		if deref(t).Kind() == reflect.Map {
			f.typ = deref(deref(t).Elem())
		}
		switch value := value.(type) {
		case map[string]any:
			cur, _ := out[key].(map[string]any)
			merged, err := mergeObject(cur, value, f.typ)
			if err != nil {
				return nil, err
			}
			out[key] = merged
		case []any:
			if f.mergeKey == "" {
				out[key] = value
				continue
			}
			cur, _ := out[key].([]any)
			merged, err := mergeList(cur, value, f.mergeKey, f.typ)
			if err != nil {
				return nil, err
			}
			out[key] = merged
		default:
			out[key] = value
		}
	}
	return out, nil
}

// mergeList merges a patch list into current by key, in strategicpatch's
// order (see orderMerged).
func mergeList(current, patch []any, key string, elem reflect.Type) ([]any, error) {
	for _, item := range patch {
		if m, ok := item.(map[string]any); ok && m["$patch"] == "replace" {
			var out []any
			for _, item := range patch {
				if m, ok := item.(map[string]any); !ok || m["$patch"] == nil {
					out = append(out, item)
				}
			}
			return out, nil
		}
	}
	out := append([]any(nil), current...)
	inPatch := map[any]int{}
	for _, item := range patch {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("a list merged by %s holds %v, not an object", key, item)
		}
		k, ok := m[key]
		if !ok {
			return nil, fmt.Errorf("an item of a list merged by %s has no %s", key, key)
		}
		if m["$patch"] == nil {
			inPatch[k] = len(inPatch)
		}
		i := indexByKey(out, key, k)
		switch {
		case m["$patch"] == "delete":
			if i >= 0 {
				out = append(out[:i], out[i+1:]...)
			}
		case i >= 0:
			cur, _ := out[i].(map[string]any)
			merged, err := mergeObject(cur, m, elem)
			if err != nil {
				return nil, err
			}
			out[i] = merged
		default:
			merged, err := mergeObject(nil, m, elem)
			if err != nil {
				return nil, err
			}
			out = append(out, merged)
		}
	}
	return orderMerged(out, current, key, inPatch), nil
}

// orderMerged orders a merged list as strategicpatch does: the patch's
// items in the patch's order, the others in their current order, and the
// two interleaved by their current positions where both items have one.
func orderMerged(merged, current []any, key string, inPatch map[any]int) []any {
	var patched, others []any
	for _, item := range merged {
		if _, ok := inPatch[item.(map[string]any)[key]]; ok {
			patched = append(patched, item)
		} else {
			others = append(others, item)
		}
	}
	slices.SortStableFunc(patched, func(a, b any) int {
		return inPatch[a.(map[string]any)[key]] - inPatch[b.(map[string]any)[key]]
	})
	position := func(item any) int { return indexByKey(current, key, item.(map[string]any)[key]) }
	out := make([]any, 0, len(merged))
	i, j := 0, 0
	for i < len(others) || j < len(patched) {
		switch {
		case j >= len(patched):
			out = append(out, others[i])
			i++
		case i >= len(others):
			out = append(out, patched[j])
			j++
		default:
			if li, ri := position(others[i]), position(patched[j]); li >= 0 && ri >= 0 && li < ri {
				out = append(out, others[i])
				i++
			} else {
				out = append(out, patched[j])
				j++
			}
		}
	}
	return out
}

func indexByKey(items []any, key string, value any) int {
	for i, item := range items {
		if m, ok := item.(map[string]any); ok && reflect.DeepEqual(m[key], value) {
			return i
		}
	}
	return -1
}

func withoutDirectives(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !strings.HasPrefix(k, "$") {
			out[k] = v
		}
	}
	return out
}
