package conversion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Three versions of a Widget: v2 is the hub; v1 has one color where v2
// has a list; v3 calls the size "length".
type (
	widgetV1 struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata,omitempty"`
		Size              int    `json:"size"`
		Color             string `json:"color,omitempty"`
	}
	widgetV2 struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata,omitempty"`
		Size              int      `json:"size"`
		Colors            []string `json:"colors,omitempty"`
	}
	widgetV3 struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata,omitempty"`
		Length            int      `json:"length"`
		Colors            []string `json:"colors,omitempty"`
	}
)

func (w *widgetV1) DeepCopyObject() runtime.Object { c := *w; return &c }
func (w *widgetV2) DeepCopyObject() runtime.Object { c := *w; return &c }
func (w *widgetV3) DeepCopyObject() runtime.Object { c := *w; return &c }

func (*widgetV2) Hub() {}

func (w *widgetV1) ConvertTo(dst Hub) error {
	h := dst.(*widgetV2)
	h.ObjectMeta, h.Size = w.ObjectMeta, w.Size
	if w.Color == "panic" {
		panic("conversion panicked")
	}
	if w.Color == "bad" {
		return errors.New("bad color")
	}
	if w.Color != "" {
		h.Colors = []string{w.Color}
	}
	return nil
}

func (w *widgetV1) ConvertFrom(src Hub) error {
	h := src.(*widgetV2)
	w.ObjectMeta, w.Size = h.ObjectMeta, h.Size
	if len(h.Colors) > 0 {
		w.Color = h.Colors[0]
	}
	return nil
}

func (w *widgetV3) ConvertTo(dst Hub) error {
	h := dst.(*widgetV2)
	h.ObjectMeta, h.Size, h.Colors = w.ObjectMeta, w.Length, w.Colors
	return nil
}

func (w *widgetV3) ConvertFrom(src Hub) error {
	h := src.(*widgetV2)
	w.ObjectMeta, w.Length, w.Colors = h.ObjectMeta, h.Size, h.Colors
	return nil
}

const group = "widgets.example.com"

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"}, &widgetV1{})
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: "v2", Kind: "Widget"}, &widgetV2{})
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: "v3", Kind: "Widget"}, &widgetV3{})
	return s
}

type reviewResponse struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Response   struct {
		UID              string            `json:"uid"`
		ConvertedObjects []json.RawMessage `json:"convertedObjects"`
		Result           metav1.Status     `json:"result"`
	} `json:"response"`
}

func convert(t *testing.T, wh http.Handler, desired string, objects ...string) reviewResponse {
	t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":%q,"objects":[%s]}}`,
		desired, strings.Join(objects, ","))
	r := httptest.NewRequest(http.MethodPost, "/convert?timeout=30s", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	wh.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var out reviewResponse
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s: %v", w.Body, err)
	}
	if out.Response.UID != "u1" || out.Kind != "ConversionReview" || out.APIVersion != "apiextensions.k8s.io/v1" {
		t.Fatalf("envelope: %s", w.Body)
	}
	return out
}

func TestConvertsThroughTheHub(t *testing.T) {
	wh := NewWebhook(newScheme())
	v1 := `{"apiVersion":"widgets.example.com/v1","kind":"Widget","metadata":{"name":"a","uid":"x"},"size":3,"color":"red"}`
	v2 := `{"apiVersion":"widgets.example.com/v2","kind":"Widget","metadata":{"name":"b"},"size":4,"colors":["blue","green"]}`
	v3 := `{"apiVersion":"widgets.example.com/v3","kind":"Widget","metadata":{"name":"c"},"length":5}`

	out := convert(t, wh, "widgets.example.com/v3", v1, v2, v3)
	if out.Response.Result.Status != metav1.StatusSuccess || len(out.Response.ConvertedObjects) != 3 {
		t.Fatalf("%+v", out.Response)
	}
	want := []string{
		`{"kind":"Widget","apiVersion":"widgets.example.com/v3","metadata":{"name":"a","uid":"x"},"length":3,"colors":["red"]}`,
		`{"kind":"Widget","apiVersion":"widgets.example.com/v3","metadata":{"name":"b"},"length":4,"colors":["blue","green"]}`,
		v3, // already in the version wanted: as it came
	}
	for i, got := range out.Response.ConvertedObjects {
		if string(got) != want[i] {
			t.Errorf("object %d\n got %s\nwant %s", i, got, want[i])
		}
	}

	out = convert(t, wh, "widgets.example.com/v1", v3)
	if got := string(out.Response.ConvertedObjects[0]); got != `{"kind":"Widget","apiVersion":"widgets.example.com/v1","metadata":{"name":"c"},"size":5}` {
		t.Errorf("v3 to v1: %s", got)
	}
}

func TestConversionFailuresFailTheReview(t *testing.T) {
	wh := NewWebhook(newScheme())
	good := `{"apiVersion":"widgets.example.com/v1","kind":"Widget","size":1}`
	for _, tc := range []struct {
		name, object, desired, says string
	}{
		{"user error", `{"apiVersion":"widgets.example.com/v1","kind":"Widget","color":"bad"}`, "widgets.example.com/v2", "bad color"},
		{"panic", `{"apiVersion":"widgets.example.com/v1","kind":"Widget","color":"panic"}`, "widgets.example.com/v2", "internal error"},
		{"undecodable", `{"apiVersion":"widgets.example.com/v1","kind":"Widget","size":"big"}`, "widgets.example.com/v2", "decoding"},
		{"unknown kind", `{"apiVersion":"widgets.example.com/v1","kind":"Gadget"}`, "widgets.example.com/v2", "not a kind this webhook converts"},
		{"no apiVersion", `{"kind":"Widget"}`, "widgets.example.com/v2", "without a valid apiVersion"},
		{"other group", good, "other.example.com/v2", "cannot convert to group"},
		{"bad desired", good, "a/b/c", "desiredAPIVersion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := convert(t, wh, tc.desired, good, tc.object)
			r := out.Response
			if r.Result.Status != metav1.StatusFailure || !strings.Contains(r.Result.Message, tc.says) || len(r.ConvertedObjects) != 0 {
				t.Errorf("%+v, want a failure saying %q", r, tc.says)
			}
			if tc.name == "panic" && strings.Contains(r.Result.Message, "conversion panicked") {
				t.Errorf("the panic's value reached the caller: %s", r.Result.Message)
			}
		})
	}
}

func TestMalformedReviewsAre400(t *testing.T) {
	wh := NewWebhook(newScheme())
	for _, body := range []string{
		`{`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","desiredAPIVersion":"a/v1"}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"desiredAPIVersion":"a/v1"}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"1"}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"1","desiredAPIVersion":"a/v1","objects":{}}}`,
	} {
		r := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader([]byte(body)))
		w := httptest.NewRecorder()
		wh.ServeHTTP(w, r)
		if w.Code != http.StatusBadRequest || w.Body.Len() < 10 {
			t.Errorf("%s: %d %q", body, w.Code, w.Body)
		}
	}
}

func TestOneHubRegisteredTwice(t *testing.T) {
	s := newScheme()
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: "v4", Kind: "Widget"}, &widgetV2{})
	wh := NewWebhook(s)
	// v2 and v4 are one Go type: a single hub, registered twice, is fine.
	out := convert(t, wh, "widgets.example.com/v3", `{"apiVersion":"widgets.example.com/v1","kind":"Widget","size":1}`)
	if out.Response.Result.Status != metav1.StatusSuccess {
		t.Errorf("%+v", out.Response.Result)
	}
}

// FuzzReviews sends arbitrary objects and bodies: the endpoint answers
// every one, with a review or a 400, and never panics.
func FuzzReviews(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"widgets.example.com/v1","kind":"Widget","size":1,"color":"red"}`), "widgets.example.com/v3")
	f.Add([]byte(`{"apiVersion":"widgets.example.com/v2","kind":"Widget","colors":[]}`), "widgets.example.com/v1")
	f.Add([]byte(`{"apiVersion":"widgets.example.com/v9","kind":"Widget"}`), "widgets.example.com/v2")
	f.Add([]byte(`[`), "")
	wh := NewWebhook(newScheme())
	f.Fuzz(func(t *testing.T, object []byte, desired string) {
		bodies := [][]byte{object}
		if json.Valid(object) {
			b, _ := json.Marshal(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
				"request": map[string]any{"uid": "u", "desiredAPIVersion": desired, "objects": []json.RawMessage{object, object}}})
			bodies = append(bodies, b)
		}
		for _, body := range bodies {
			r := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body))
			w := httptest.NewRecorder()
			wh.ServeHTTP(w, r)
			switch w.Code {
			case http.StatusOK:
				var out reviewResponse
				if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
					t.Fatalf("a 200 that is not a review: %s (%v)", w.Body, err)
				}
				if out.Response.Result.Status == metav1.StatusFailure && out.Response.Result.Message == "" {
					t.Fatalf("a failure without a message: %s", w.Body)
				}
			case http.StatusBadRequest:
				if w.Body.Len() == 0 {
					t.Fatal("a 400 without a message")
				}
			default:
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
		}
	})
}

// otherHub is another package's Hub interface, as controller-runtime's
// pkg/conversion declares it; gadgets convert with it, as a kubebuilder
// project's hand-written conversions do.
type otherHub interface {
	runtime.Object
	Hub()
}

type (
	gadgetV1 struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata,omitempty"`
		Name              string `json:"name"`
	}
	gadgetV2 struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata,omitempty"`
		Title             string `json:"title"`
	}
)

func (g *gadgetV1) DeepCopyObject() runtime.Object { c := *g; return &c }
func (g *gadgetV2) DeepCopyObject() runtime.Object { c := *g; return &c }
func (*gadgetV2) Hub()                             {}

func (g *gadgetV1) ConvertTo(dst otherHub) error {
	h := dst.(*gadgetV2)
	h.ObjectMeta, h.Title = g.ObjectMeta, g.Name
	if g.Name == "bad" {
		return errors.New("bad name")
	}
	return nil
}

func (g *gadgetV1) ConvertFrom(src otherHub) error {
	h := src.(*gadgetV2)
	g.ObjectMeta, g.Name = h.ObjectMeta, h.Title
	return nil
}

// TestConvertsWithAnotherPackagesHub: the conversions of a kubebuilder
// project, written against controller-runtime's Hub, are served as they
// are, errors included.
func TestConvertsWithAnotherPackagesHub(t *testing.T) {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Gadget"}, &gadgetV1{})
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: "v2", Kind: "Gadget"}, &gadgetV2{})
	wh := NewWebhook(s)
	out := convert(t, wh, "widgets.example.com/v2", `{"apiVersion":"widgets.example.com/v1","kind":"Gadget","metadata":{"name":"a"},"name":"x"}`)
	if got, want := string(out.Response.ConvertedObjects[0]), `{"kind":"Gadget","apiVersion":"widgets.example.com/v2","metadata":{"name":"a"},"title":"x"}`; got != want {
		t.Errorf("v1 to v2:\n got %s\nwant %s", got, want)
	}
	out = convert(t, wh, "widgets.example.com/v1", `{"apiVersion":"widgets.example.com/v2","kind":"Gadget","metadata":{"name":"b"},"title":"y"}`)
	if got, want := string(out.Response.ConvertedObjects[0]), `{"kind":"Gadget","apiVersion":"widgets.example.com/v1","metadata":{"name":"b"},"name":"y"}`; got != want {
		t.Errorf("v2 to v1:\n got %s\nwant %s", got, want)
	}
	out = convert(t, wh, "widgets.example.com/v2", `{"apiVersion":"widgets.example.com/v1","kind":"Gadget","metadata":{"name":"c"},"name":"bad"}`)
	if out.Response.Result.Status != metav1.StatusFailure || !strings.Contains(out.Response.Result.Message, "bad name") {
		t.Errorf("a failing conversion: %+v", out.Response.Result)
	}
}
