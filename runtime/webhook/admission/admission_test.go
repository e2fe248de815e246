package admission

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"
)

type configMapHooks struct {
	deleted  chan string
	deadline chan time.Time
}

func (h *configMapHooks) Default(ctx context.Context, cm *corev1.ConfigMap) error {
	switch cm.Name {
	case "panic":
		panic("user code panicked")
	case "refuse":
		return errors.New("refused by the defaulter")
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data["defaulted"] = "yes"
	delete(cm.Labels, "drop")
	if d, ok := ctx.Deadline(); ok && h.deadline != nil {
		h.deadline <- d
	}
	return nil
}

func (h *configMapHooks) ValidateCreate(ctx context.Context, cm *corev1.ConfigMap) (Warnings, error) {
	if _, ok := RequestFromContext(ctx); !ok {
		return nil, errors.New("no request in the context")
	}
	if cm.Data["port"] == "0" {
		return Warnings{"port 0 is odd"}, field.ErrorList{
			field.Invalid(field.NewPath("data", "port"), "0", "must be between 1 and 65535"),
			field.Required(field.NewPath("data", "ip"), "an address is needed"),
		}.ToAggregate()
	}
	if cm.Data["plain"] == "no" {
		return nil, errors.New("plain refusal")
	}
	return Warnings{"created"}, nil
}

func (h *configMapHooks) ValidateUpdate(_ context.Context, old, cm *corev1.ConfigMap) (Warnings, error) {
	if old.Data["immutable"] != cm.Data["immutable"] {
		return nil, apierrors.NewForbidden(corev1.Resource("configmaps"), cm.Name, errors.New("immutable changed"))
	}
	return nil, nil
}

func (h *configMapHooks) ValidateDelete(_ context.Context, cm *corev1.ConfigMap) (Warnings, error) {
	h.deleted <- cm.Name
	if cm.Data["keep"] == "true" {
		return nil, field.Forbidden(field.NewPath("data", "keep"), "this ConfigMap is kept")
	}
	return nil, nil
}

func reviewBody(t *testing.T, apiVersion, op string, obj, old string) []byte {
	t.Helper()
	req := map[string]any{
		"uid":       "uid-1",
		"kind":      map[string]string{"group": "", "version": "v1", "kind": "ConfigMap"},
		"resource":  map[string]string{"group": "", "version": "v1", "resource": "configmaps"},
		"name":      "cm",
		"namespace": "default",
		"operation": op,
		"userInfo":  map[string]any{"username": "alice", "groups": []string{"a", "b"}, "extra": map[string][]string{"x": {"1"}}},
		"dryRun":    false,
	}
	if obj != "" {
		req["object"] = json.RawMessage(obj)
	}
	if old != "" {
		req["oldObject"] = json.RawMessage(old)
	}
	b, err := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": "AdmissionReview", "request": req})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func post(t *testing.T, h http.Handler, url string, body []byte) (*httptest.ResponseRecorder, admissionv1.AdmissionReview) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var out admissionv1.AdmissionReview
	if w.Code == http.StatusOK {
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("response %s: %v", w.Body, err)
		}
		if out.Response == nil || out.Response.UID != "uid-1" {
			t.Fatalf("response without the request's uid: %s", w.Body)
		}
	}
	return w, out
}

const cmJSON = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"default","labels":{"drop":"x","keep":"y"}},"data":{"a":"b"},"unknownField":{"kept":true},"binaryData":null}`

func TestDefaultingPatchesOnlyWhatTheDefaulterChanged(t *testing.T) {
	hooks := &configMapHooks{deadline: make(chan time.Time, 1)}
	wh := Defaulting(NewDecoder[*corev1.ConfigMap](scheme.Scheme), hooks)
	raw := fmt.Sprintf(cmJSON, "cm")
	w, out := post(t, wh, "/mutate?timeout=7s", reviewBody(t, "admission.k8s.io/v1", "CREATE", raw, ""))
	if w.Code != http.StatusOK || !out.Response.Allowed || out.Response.PatchType == nil || *out.Response.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("got %d %s", w.Code, w.Body)
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" {
		t.Errorf("response envelope %s/%s", out.APIVersion, out.Kind)
	}
	select {
	case d := <-hooks.deadline:
		if left := time.Until(d); left <= 0 || left > 7*time.Second {
			t.Errorf("deadline %v from now, want within the request's 7s", left)
		}
	default:
		t.Error("the defaulter's context has no deadline from ?timeout=7s")
	}
	patch, err := jsonpatch.DecodePatch(out.Response.Patch)
	if err != nil {
		t.Fatalf("patch %s: %v", out.Response.Patch, err)
	}
	patched, err := patch.Apply([]byte(raw))
	if err != nil {
		t.Fatalf("applying %s: %v", out.Response.Patch, err)
	}
	var got map[string]any
	json.Unmarshal(patched, &got)
	want := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata":     map[string]any{"name": "cm", "namespace": "default", "labels": map[string]any{"keep": "y"}},
		"data":         map[string]any{"a": "b", "defaulted": "yes"},
		"unknownField": map[string]any{"kept": true}, "binaryData": nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("patched object\n got %v\nwant %v\npatch %s", got, want, out.Response.Patch)
	}
}

func TestDefaultingLeavesDeletesAndUnchangedObjectsAlone(t *testing.T) {
	wh := Defaulting(NewDecoder[*corev1.ConfigMap](scheme.Scheme), &configMapHooks{})
	_, out := post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "DELETE", "", fmt.Sprintf(cmJSON, "cm")))
	if !out.Response.Allowed || out.Response.Patch != nil {
		t.Errorf("delete: %+v", out.Response)
	}
	done := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"defaulted":"yes"}}`
	_, out = post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "UPDATE", done, done))
	if !out.Response.Allowed || out.Response.Patch != nil {
		t.Errorf("already defaulted: %+v", out.Response)
	}
}

func TestValidatingAnswersAsTheAPIServerWould(t *testing.T) {
	hooks := &configMapHooks{deleted: make(chan string, 1)}
	wh := Validating(NewDecoder[*corev1.ConfigMap](scheme.Scheme), hooks)

	_, out := post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "CREATE", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"port":"0"}}`, ""))
	r := out.Response
	if r.Allowed || r.Result == nil || r.Result.Reason != "Invalid" || r.Result.Code != 422 || r.Result.Details == nil || len(r.Result.Details.Causes) != 2 {
		t.Fatalf("field errors: %+v", r)
	}
	wantMsg := `ConfigMap "cm" is invalid: [data.port: Invalid value: "0": must be between 1 and 65535, data.ip: Required value: an address is needed]`
	if r.Result.Message != wantMsg {
		t.Errorf("message\n got %s\nwant %s", r.Result.Message, wantMsg)
	}
	if !reflect.DeepEqual(r.Warnings, []string{"port 0 is odd"}) {
		t.Errorf("warnings %v", r.Warnings)
	}

	_, out = post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "CREATE", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"plain":"no"}}`, ""))
	if r := out.Response; r.Allowed || r.Result.Code != 403 || r.Result.Reason != "Forbidden" || r.Result.Message != "plain refusal" {
		t.Errorf("plain error: %+v", r.Result)
	}

	_, out = post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "CREATE", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`, ""))
	if r := out.Response; !r.Allowed || !reflect.DeepEqual(r.Warnings, []string{"created"}) {
		t.Errorf("allowed with warnings: %+v", r)
	}

	_, out = post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "UPDATE", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"immutable":"2"}}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"immutable":"1"}}`))
	if r := out.Response; r.Allowed || r.Result.Reason != "Forbidden" || !strings.Contains(r.Result.Message, "immutable changed") {
		t.Errorf("update with an APIStatus: %+v", r.Result)
	}

	_, out = post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1beta1", "DELETE", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"gone"},"data":{"keep":"true"}}`))
	if got := <-hooks.deleted; got != "gone" {
		t.Errorf("ValidateDelete saw %q, want the oldObject", got)
	}
	if r := out.Response; r.Allowed || r.Result.Reason != "Invalid" || out.APIVersion != "admission.k8s.io/v1beta1" {
		t.Errorf("delete: %s %+v", out.APIVersion, r.Result)
	}
}

func TestBadRequestsGetClearAnswers(t *testing.T) {
	wh := Validating(NewDecoder[*corev1.ConfigMap](scheme.Scheme), &configMapHooks{})
	for _, tc := range []struct {
		name, body, contentType string
		code                    int
		says                    string
	}{
		{"not JSON", `{"apiVersion":`, "application/json", 400, "malformed AdmissionReview"},
		{"an array", `[]`, "application/json", 400, "cannot unmarshal array"},
		{"null", `null`, "application/json", 400, "is a JSON object"},
		{"wrong kind", `{"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{"uid":"1"}}`, "application/json", 400, `kind "Pod"`},
		{"wrong version", `{"apiVersion":"v1","kind":"AdmissionReview","request":{"uid":"1"}}`, "application/json", 400, `apiVersion "v1"`},
		{"no request", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, "application/json", 400, "without a request"},
		{"no uid", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}`, "application/json", 400, "without a uid"},
		{"request of the wrong type", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7}}`, "application/json", 400, "malformed"},
		{"empty", ``, "application/json", 400, "empty body"},
		{"YAML", `a: b`, "application/yaml", 415, "expected application/json"},
		{"too large", `{"x":"` + strings.Repeat("a", 8<<20) + `"}`, "application/json", 413, "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", tc.contentType)
			w := httptest.NewRecorder()
			wh.ServeHTTP(w, r)
			if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.says) {
				t.Errorf("got %d %q, want %d saying %q", w.Code, w.Body, tc.code, tc.says)
			}
		})
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	w := httptest.NewRecorder()
	wh.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", w.Code)
	}
}

func TestObjectsThatDoNotDecodeAreRefusedWithTheError(t *testing.T) {
	wh := Validating(NewDecoder[*corev1.ConfigMap](scheme.Scheme), &configMapHooks{})
	_, out := post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "CREATE", `{"apiVersion":"v1","kind":"ConfigMap","data":7}`, ""))
	if r := out.Response; r.Allowed || r.Result.Code != 400 || !strings.Contains(r.Result.Message, "decoding the object") {
		t.Errorf("%+v", r.Result)
	}
	_, out = post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "UPDATE", `{"apiVersion":"v1","kind":"ConfigMap"}`, ""))
	if r := out.Response; r.Allowed || !strings.Contains(r.Result.Message, "no oldObject") {
		t.Errorf("%+v", r.Result)
	}
}

func TestPanicsAreRefusedAndTheServerGoesOn(t *testing.T) {
	wh := Defaulting(NewDecoder[*corev1.ConfigMap](scheme.Scheme), &configMapHooks{})
	for range 2 {
		w, out := post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "CREATE", fmt.Sprintf(cmJSON, "panic"), ""))
		if r := out.Response; w.Code != 200 || r.Allowed || r.Result.Code != 500 || strings.Contains(r.Result.Message, "user code panicked") {
			t.Errorf("panic: %d %+v", w.Code, r.Result)
		}
	}
	_, out := post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "CREATE", fmt.Sprintf(cmJSON, "refuse"), ""))
	if r := out.Response; r.Allowed || r.Result.Message != "refused by the defaulter" {
		t.Errorf("defaulter's error: %+v", r.Result)
	}
	_, out = post(t, wh, "/", reviewBody(t, "admission.k8s.io/v1", "CREATE", fmt.Sprintf(cmJSON, "fine"), ""))
	if !out.Response.Allowed {
		t.Errorf("after the panics: %+v", out.Response.Result)
	}
}

func TestRequestIsReadWhole(t *testing.T) {
	body := reviewBody(t, "admission.k8s.io/v1", "UPDATE", `{"a":1}`, `{"b":2}`)
	var req admissionv1.AdmissionRequest
	if _, err := decodeReview(body, &req); err != nil {
		t.Fatal(err)
	}
	var want admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&req, want.Request) {
		t.Errorf("decoded\n%+v\nencoding/json\n%+v", req, *want.Request)
	}
}

// TestPatchTurnsOneDocumentIntoTheOther applies the patch between random
// documents and checks it gives the second.
func TestPatchTurnsOneDocumentIntoTheOther(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		from, to := randomValue(rng, 0), randomValue(rng, 0)
		if rng.IntN(2) == 0 {
			to = mutate(rng, from)
		}
		fromJSON, _ := json.Marshal(map[string]any{"root": from})
		toJSON, _ := json.Marshal(map[string]any{"root": to})
		a, _ := parseJSON(fromJSON)
		b, _ := parseJSON(toJSON)
		patchJSON, err := marshalPatch(createPatch(a, b))
		if err != nil {
			t.Fatal(err)
		}
		patch, err := jsonpatch.DecodePatch(patchJSON)
		if err != nil {
			t.Fatalf("%d: %s: %v", i, patchJSON, err)
		}
		got, err := patch.Apply(fromJSON)
		if err != nil {
			t.Fatalf("%d: applying %s to %s: %v", i, patchJSON, fromJSON, err)
		}
		gotTree, err := parseJSON(got)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotTree, b) {
			t.Fatalf("%d: %s patched by %s is %s, want %s", i, fromJSON, patchJSON, got, toJSON)
		}
	}
}

func randomValue(rng *rand.Rand, depth int) any {
	n := rng.IntN(6)
	if depth > 3 {
		n = rng.IntN(3)
	}
	keys := []string{"a", "b", "c/d", "e~f", "g"}
	switch n {
	case 0:
		return rng.IntN(3)
	case 1:
		return []string{"x", "y", "<&>"}[rng.IntN(3)]
	case 2:
		return nil
	case 3, 4:
		m := map[string]any{}
		for range rng.IntN(4) {
			m[keys[rng.IntN(len(keys))]] = randomValue(rng, depth+1)
		}
		return m
	default:
		var s []any
		for range rng.IntN(4) {
			s = append(s, randomValue(rng, depth+1))
		}
		return s
	}
}

func mutate(rng *rand.Rand, v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range v {
			if rng.IntN(4) != 0 {
				m[k] = mutate(rng, e)
			}
		}
		if rng.IntN(3) == 0 {
			m["new"] = randomValue(rng, 3)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = mutate(rng, e)
		}
		return s
	}
	if rng.IntN(3) == 0 {
		return randomValue(rng, 3)
	}
	return v
}

func TestResponseIsValidJSON(t *testing.T) {
	r := &response{uid: "u\"<", allowed: false, warnings: []string{"a\x01\u2028\xff"}, patch: []byte(`[]`)}
	b, err := r.encode("admission.k8s.io/v1")
	if err != nil {
		t.Fatal(err)
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if out.Response.UID != "u\"<" || out.Response.Warnings[0] != "a\x01\u2028\ufffd" || base64.StdEncoding.EncodeToString(out.Response.Patch) != "W10=" {
		t.Errorf("%s", b)
	}
}

// FuzzReviews sends arbitrary bodies: the endpoint answers every one,
// with a review or a 4xx, and never panics (the handler recovers only
// user code's panics, so one in the decoding would reach the test).
func FuzzReviews(f *testing.F) {
	f.Add([]byte(fmt.Sprintf(cmJSON, "cm")), "CREATE")
	f.Add([]byte(`{"apiVersion":"v1","kind":"ConfigMap","data":{"port":"0"}}`), "UPDATE")
	f.Add([]byte(`{"apiVersion":"v1","kind":"ConfigMap","data":7}`), "DELETE")
	f.Add([]byte(`null`), "CONNECT")
	f.Add([]byte(`{"metadata":{"labels":{"a":"\ud800"}}}`), "CREATE")
	scheme := scheme.Scheme
	hooks := &configMapHooks{deleted: make(chan string, 1<<20)}
	defaulting := Defaulting(NewDecoder[*corev1.ConfigMap](scheme), hooks)
	validating := Validating(NewDecoder[*corev1.ConfigMap](scheme), hooks)
	f.Fuzz(func(t *testing.T, object []byte, op string) {
		bodies := [][]byte{object}
		if json.Valid(object) {
			req := map[string]any{"uid": "u", "operation": op, "object": json.RawMessage(object), "oldObject": json.RawMessage(object),
				"kind": map[string]string{"version": "v1", "kind": "ConfigMap"}}
			b, _ := json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req})
			bodies = append(bodies, b)
		}
		for _, body := range bodies {
			for _, wh := range []http.Handler{defaulting, validating} {
				r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				wh.ServeHTTP(w, r)
				switch w.Code {
				case http.StatusOK:
					var out admissionv1.AdmissionReview
					if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.Response == nil {
						t.Fatalf("a 200 that is not a review: %s (%v)", w.Body, err)
					}
					if !out.Response.Allowed && (out.Response.Result == nil || out.Response.Result.Message == "") {
						t.Fatalf("a refusal without a message: %s", w.Body)
					}
				case http.StatusBadRequest:
					if w.Body.Len() == 0 {
						t.Fatal("a 400 without a message")
					}
				default:
					t.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		}
	})
}
