package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restclientwatch "k8s.io/client-go/rest/watch"
)

var codecs = scheme.Codecs.WithoutConversion()

// streamInfo is how the apiserver frames a watch in mediaType.
func streamInfo(t *testing.T, mediaType string) runtime.SerializerInfo {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
	if !ok || info.StreamSerializer == nil {
		t.Fatalf("no stream serializer for %s", mediaType)
	}
	return info
}

// encodeWatch writes events as the apiserver writes a watch response in
// mediaType.
func encodeWatch(t *testing.T, mediaType string, events []watch.Event) []byte {
	t.Helper()
	info := streamInfo(t, mediaType)
	var buf bytes.Buffer
	enc := restclientwatch.NewEncoder(
		streaming.NewEncoder(info.StreamSerializer.Framer.NewFrameWriter(&buf), info.StreamSerializer.Serializer),
		codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion))
	for i := range events {
		if err := enc.Encode(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// clientGoEvents decodes a watch response as client-go's REST client does
// (its StreamWatcher over the negotiated stream decoder), until the
// channel closes.
func clientGoEvents(t *testing.T, mediaType string, body []byte) []watch.Event {
	t.Helper()
	info := streamInfo(t, mediaType)
	w := watch.NewStreamWatcher(
		restclientwatch.NewDecoder(
			streaming.NewDecoder(info.StreamSerializer.Framer.NewFrameReader(io.NopCloser(bytes.NewReader(body))), info.StreamSerializer.Serializer),
			codecs.DecoderToVersion(info.Serializer, nil)),
		apierrors.NewClientErrorReporter(http.StatusInternalServerError, http.MethodGet, "ClientWatchDecoding"))
	var out []watch.Event
	for ev := range w.ResultChan() {
		out = append(out, ev)
	}
	return out
}

// streamed is an event as a Stream gives it.
type streamed struct {
	typ watch.EventType
	obj *corev1.ConfigMap
	err error
}

// ourEvents reads body through a Stream until it returns an error.
func ourEvents(body io.Reader) (events []streamed, end error) {
	s := newStream[*corev1.ConfigMap](context.Background(), io.NopCloser(body), codecs)
	defer s.Stop()
	for {
		typ, obj, err := s.Next()
		if err == io.EOF {
			return events, nil
		}
		events = append(events, streamed{typ, obj, err})
		if err != nil {
			return events, err
		}
	}
}

// sameEvents checks that ours are the events client-go's watch gives:
// the same objects, and ERROR events as the error they make.
func sameEvents(t *testing.T, ours []streamed, theirs []watch.Event) {
	t.Helper()
	if len(ours) != len(theirs) {
		t.Fatalf("%d events, client-go's watch gives %d:\nours   %v\ntheirs %v", len(ours), len(theirs), ours, theirs)
	}
	for i, want := range theirs {
		got := ours[i]
		if want.Type == watch.Error {
			wantErr := apierrors.FromObject(want.Object)
			if got.err == nil || !reflect.DeepEqual(got.err, wantErr) {
				t.Errorf("event %d: error %#v, want %#v", i, got.err, wantErr)
			}
			continue
		}
		if got.err != nil || got.typ != want.Type || !reflect.DeepEqual(got.obj, want.Object) {
			t.Errorf("event %d: %s %#v (error %v), want %s %#v", i, got.typ, got.obj, got.err, want.Type, want.Object)
		}
	}
}

func watchFixture(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns", UID: types.UID("uid-" + name), ResourceVersion: rv,
			Labels:          map[string]string{"app": "x", "tier": "\"quoted\" \\ {braces}"},
			Annotations:     map[string]string{"note": "line\nbreak, ] } \" \\\""},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "o", Controller: new(true)}},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:k":{}}}`)}}},
		},
		Data:       map[string]string{"k": strings.Repeat("v", 700), "empty": ""},
		BinaryData: map[string][]byte{"b": {0, 1, 2, 255}},
	}
}

func watchFixtureEvents() []watch.Event {
	bookmark := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9",
		Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	big := watchFixture("big", "8")
	big.Data["k"] = strings.Repeat("0123456789", 10_000) // past the first buffer
	return []watch.Event{
		{Type: watch.Added, Object: watchFixture("a", "5")},
		{Type: watch.Added, Object: watchFixture("b", "6")},
		{Type: watch.Modified, Object: watchFixture("a", "7")},
		{Type: watch.Added, Object: big},
		{Type: watch.Bookmark, Object: bookmark},
		{Type: watch.Deleted, Object: watchFixture("b", "10")},
		{Type: watch.Error, Object: &apierrors.NewResourceExpired("too old resource version: 1 (5)").ErrStatus},
	}
}

var watchMediaTypes = []string{runtime.ContentTypeProtobuf, runtime.ContentTypeJSON}

// TestBodyStreamDecodesAsClientGo: a watch read from its body, in the
// reader's goroutine, gives the events client-go's watch gives on the same
// bytes, however the reads split them.
func TestBodyStreamDecodesAsClientGo(t *testing.T) {
	for _, mediaType := range watchMediaTypes {
		body := encodeWatch(t, mediaType, watchFixtureEvents())
		want := clientGoEvents(t, mediaType, body)
		if len(want) != len(watchFixtureEvents()) {
			t.Fatalf("%s: client-go decoded %d events, want %d", mediaType, len(want), len(watchFixtureEvents()))
		}
		for name, r := range map[string]func() io.Reader{
			"whole":    func() io.Reader { return bytes.NewReader(body) },
			"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(body)) },
			"halves":   func() io.Reader { return iotest.HalfReader(bytes.NewReader(body)) },
		} {
			t.Run(mediaType+"/"+name, func(t *testing.T) {
				got, end := ourEvents(r())
				sameEvents(t, got, want)
				if !apierrors.IsResourceExpired(end) {
					t.Errorf("the stream ended with %v, want the ERROR event's 410", end)
				}
			})
		}
	}
}

// TestBodyStreamEndsAsClientGo: a body that ends, between events or in
// the middle of one, ends the stream with io.EOF, as client-go's watch
// closes its channel; a reset connection too.
func TestBodyStreamEndsAsClientGo(t *testing.T) {
	events := watchFixtureEvents()[:3]
	for _, mediaType := range watchMediaTypes {
		body := encodeWatch(t, mediaType, events)
		for _, cut := range []int{len(body), len(body) - 3, 2} {
			t.Run(fmt.Sprintf("%s/%d of %d bytes", mediaType, cut, len(body)), func(t *testing.T) {
				want := clientGoEvents(t, mediaType, body[:cut])
				got, end := ourEvents(bytes.NewReader(body[:cut]))
				if end != nil {
					t.Fatalf("ended with %v, want io.EOF", end)
				}
				sameEvents(t, got, want)
			})
		}
		reset := io.MultiReader(bytes.NewReader(body), iotest.ErrReader(errors.New("read tcp: connection reset by peer")))
		if got, end := ourEvents(reset); end != nil || len(got) != len(events) {
			t.Errorf("%s: a reset connection gave %d events and %v, want %d and io.EOF", mediaType, len(got), end, len(events))
		}
	}
}

// TestBodyStreamReportsUndecodableEventsAsClientGo: an event that cannot
// be read ends the stream as it ends client-go's watch: with the error of
// an ERROR event whose Status has the cause ClientWatchDecoding (the same
// error when the event's object is what fails to decode), or, for a
// truncated protobuf event, normally.
func TestBodyStreamReportsUndecodableEventsAsClientGo(t *testing.T) {
	good := watchFixtureEvents()[:1]
	type body struct {
		bytes []byte
		// sameMessage: the envelope was read, so the error is client-go's
		// to the letter.
		sameMessage bool
	}
	bodies := map[string]map[string]body{
		runtime.ContentTypeProtobuf: {
			"unknown event type": {bytes.Replace(encodeWatch(t, runtime.ContentTypeProtobuf, good), []byte("ADDED"), []byte("ADDEX"), 1), true},
			"truncated event":    {append(binary.BigEndian.AppendUint32(nil, 2), 0x12, 0x7f), true},
			"bad wire type":      {append(binary.BigEndian.AppendUint32(nil, 2), 0x08, 0x01), false},
			"object of no kind": {encodeWatch(t, runtime.ContentTypeProtobuf, []watch.Event{{Type: watch.Added,
				Object: &runtime.Unknown{Raw: []byte("not k8s")}}}), true},
		},
		runtime.ContentTypeJSON: {
			"unknown event type": {bytes.Replace(encodeWatch(t, runtime.ContentTypeJSON, good), []byte("ADDED"), []byte("ADDEX"), 1), true},
			"not an object":      {[]byte(`["type", "ADDED"]`), false},
			"type not a string":  {[]byte(`{"type": 1, "object": {}}`), false},
			"object missing":     {[]byte(`{"type": "ADDED"}`), true},
			"object null":        {[]byte(`{"type": "ADDED", "object": null}`), true},
			"object of no kind":  {[]byte(`{"type": "ADDED", "object": {"metadata": {"name": "x"}}}`), true},
			"control character":  {[]byte("{\"type\": \"ADDED\", \"object\": {\"kind\": \"A\x01\"}}"), false},
			"nested too deep":    {[]byte(`{"type": "ADDED", "object": {"a": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`), false},
		},
	}
	for mediaType, cases := range bodies {
		for name, b := range cases {
			t.Run(mediaType+"/"+name, func(t *testing.T) {
				want := clientGoEvents(t, mediaType, b.bytes)
				got, end := ourEvents(bytes.NewReader(b.bytes))
				if len(want) == 0 {
					if len(got) != 0 || end != nil {
						t.Fatalf("%v and %v; client-go's watch just ends", got, end)
					}
					return
				}
				if len(want) != 1 || want[0].Type != watch.Error {
					t.Fatalf("client-go gave %v, want one ERROR event", want)
				}
				wantErr := apierrors.FromObject(want[0].Object).(*apierrors.StatusError)
				var gotErr *apierrors.StatusError
				if !errors.As(end, &gotErr) || len(got) != 1 {
					t.Fatalf("%d events, ending with %#v; want only client-go's error %#v", len(got), end, wantErr)
				}
				if b.sameMessage {
					if !reflect.DeepEqual(gotErr, wantErr) {
						t.Errorf("error %#v, client-go's %#v", gotErr, wantErr)
					}
					return
				}
				g, w := gotErr.Status(), wantErr.Status()
				if g.Code != w.Code || g.Reason != w.Reason || g.Details == nil || len(g.Details.Causes) != len(w.Details.Causes) ||
					g.Details.Causes[len(g.Details.Causes)-1].Type != "ClientWatchDecoding" {
					t.Errorf("error %#v, want one like client-go's %#v", g, w)
				}
			})
		}
	}
}

// TestJSONWatchEventReadsAsTheSerializer: the envelope's keys in any order,
// unknown ones, escapes and white space are read as the JSON serializer
// reads a metav1.WatchEvent.
func TestJSONWatchEventReadsAsTheSerializer(t *testing.T) {
	info := streamInfo(t, runtime.ContentTypeJSON)
	for _, frame := range []string{
		`{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}}`,
		` { "object" : {"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a}\"{"}} , "extra": [1, {"x": "}"}], "type" : "MODIFIED" } `,
		`{"type":"A\u0044DED","object":{"kind":"ConfigMap","apiVersion":"v1"},"Type":"DELETED"}`,
		`{"type":"DELETED","type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1"},"n":-1.5e3,"t":true,"z":null}`,
		`{"type":"ADDED","object":null}`,
		`{}`,
	} {
		var want metav1.WatchEvent
		if _, _, err := info.StreamSerializer.Serializer.Decode([]byte(frame), nil, &want); err != nil {
			t.Fatalf("%s: %v", frame, err)
		}
		typ, raw, err := jsonWatchEvent([]byte(strings.TrimSpace(frame)))
		if err != nil {
			t.Errorf("%s: %v", frame, err)
			continue
		}
		if string(typ) != want.Type || !bytes.Equal(raw, want.Object.Raw) {
			t.Errorf("%s: type %q, object %s; the serializer reads %q, %s", frame, typ, raw, want.Type, want.Object.Raw)
		}
	}
}

// recordingServer serves the watch requests it gets with body, and
// remembers them.
type recordingServer struct {
	mu       sync.Mutex
	requests []*http.Request
	body     []byte
}

func (s *recordingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
	w.Header().Set("Content-Type", runtime.ContentTypeProtobuf+";stream=watch")
	w.Write(s.body)
}

// TestRESTWatchStreamSendsTheTypedClientsWatch: the request is the one the
// typed client's Watch sends (same URL, query, Accept, no rate limiter),
// tweaked as the informer's ListWatch tweaks it, and its events are those
// of the typed client's watch.
func TestRESTWatchStreamSendsTheTypedClientsWatch(t *testing.T) {
	srv := &recordingServer{body: encodeWatch(t, runtime.ContentTypeProtobuf, watchFixtureEvents()[:3])}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	// A limiter that would block every request: watches never wait on it.
	client := kubernetes.NewForConfigOrDie(&rest.Config{Host: hs.URL, RateLimiter: blockingLimiter{}})
	tweak := func(o *metav1.ListOptions) { o.LabelSelector = "app=x" }
	opts := metav1.ListOptions{ResourceVersion: "5", AllowWatchBookmarks: true, TimeoutSeconds: new(int64(300))}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tweaked := opts
	tweak(&tweaked)
	w, err := client.CoreV1().ConfigMaps("ns").Watch(ctx, tweaked)
	if err != nil {
		t.Fatal(err)
	}
	var want []watch.Event
	for ev := range w.ResultChan() {
		want = append(want, ev)
	}
	start := RESTWatchStream[*corev1.ConfigMap](RESTResource{
		Client: client.CoreV1().RESTClient(), Namespace: "ns", Resource: "configmaps", PrefersProtobuf: true,
		ParameterCodec: scheme.ParameterCodec, Serializer: codecs,
	}, tweak)
	s, err := start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []streamed
	for {
		typ, obj, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, streamed{typ, obj, nil})
	}
	s.Stop()
	sameEvents(t, got, want)

	if len(srv.requests) != 2 {
		t.Fatalf("%d requests, want 2", len(srv.requests))
	}
	theirs, ours := srv.requests[0], srv.requests[1]
	if ours.Method != theirs.Method || ours.URL.String() != theirs.URL.String() {
		t.Errorf("request %s %s, the typed client's %s %s", ours.Method, ours.URL, theirs.Method, theirs.URL)
	}
	for _, h := range []string{"Accept", "Accept-Encoding", "User-Agent"} {
		if ours.Header.Get(h) != theirs.Header.Get(h) {
			t.Errorf("%s: %q, the typed client's %q", h, ours.Header.Get(h), theirs.Header.Get(h))
		}
	}
}

type blockingLimiter struct{}

func (blockingLimiter) TryAccept() bool { return false }
func (blockingLimiter) Accept()         { select {} }
func (blockingLimiter) Stop()           {}
func (blockingLimiter) QPS() float32    { return 0 }
func (blockingLimiter) Wait(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

// TestRESTWatchStreamNotForNilClients: without a REST client (a fake
// clientset's is a nil *rest.RESTClient) there is no stream, and the
// ListWatch keeps its WatchFunc.
func TestRESTWatchStreamNotForNilClients(t *testing.T) {
	var nilClient *rest.RESTClient
	for name, c := range map[string]rest.Interface{"nil": nil, "nil *rest.RESTClient": nilClient} {
		if f := RESTWatchStream[*corev1.ConfigMap](RESTResource{Client: c, Resource: "configmaps",
			ParameterCodec: scheme.ParameterCodec, Serializer: codecs}, nil); f != nil {
			t.Errorf("%s: a stream function, want none", name)
		}
	}
}
