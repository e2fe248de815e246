package jsondecode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/client-go/features"
	"k8s.io/client-go/rest"
	kjson "sigs.k8s.io/json"

	"github.com/ctrlgen/ctrlgen/bench/internal/clientgen"
	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/scheme"
)

// The decode benchmarks: a typed client of examples/mydemo receiving
// Mydemos over HTTP from a server that replays what kube-apiserver sends
// (bench/scale's objects: four labels, an owner, 650 bytes of data, the
// managedFields of a create and a patch), three ways:
//
//   - impl=client-go: the clientset with client-gen's serializer
//     (apimachinery's JSON serializer, sigs.k8s.io/json);
//   - impl=ctrlgen: the clientset as ctrlgen generates it, decoding with
//     the generated JSON decoders;
//   - impl=client-go-cbor: client-gen's clientset asking for CBOR
//     (ClientsAllowCBOR on, Content-Type application/cbor), which
//     kube-apiserver 1.37 serves for custom resources with the alpha
//     CBORServingAndStorage gate; the bytes are those its CBOR serializer
//     writes for the unstructured object it serves.
//
// Run alternating, e.g.:
//
//	cd bench && go test -run '^$' -bench 'Mydemo(Watch|List)' -count 6 ./jsondecode | tee results/jsondecode.txt
//	go tool benchstat -col /impl results/jsondecode.txt

func init() {
	// client-go reads its feature gates from the environment once; the
	// CBOR side needs ClientsAllowCBOR, which changes nothing for JSON.
	os.Setenv("KUBE_FEATURE_ClientsAllowCBOR", "true")
}

var benchPayload = strings.Repeat("key: value # filler so that each object carries about a kilobyte\n", 10)

// servedMydemo is object i as kube-apiserver serves it: the unstructured
// form (keys sorted), with the managedFields of a create and a patch.
func servedMydemo(i int) map[string]any {
	t := metav1.NewTime(time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC))
	owner := true
	md := &crddemov1.Mydemo{
		TypeMeta: metav1.TypeMeta{APIVersion: "crddemo.k8s.io/v1", Kind: "Mydemo"},
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("obj-%06d", i), Namespace: fmt.Sprintf("scale-%02d", i%100),
			UID:             "0b6d4e3c-2a7f-4c55-9d61-7f3c1a9e5b42",
			ResourceVersion: fmt.Sprint(1000000 + i), Generation: 2, CreationTimestamp: t,
			Labels: map[string]string{
				"app.kubernetes.io/name": "scale-bench", "app.kubernetes.io/component": "frontend",
				"app.kubernetes.io/managed-by": "scale-harness", "shard": fmt.Sprintf("shard-%02d", i%16),
			},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "7d0f5b9e-1111-4c2e-8f3a-2b6c9d0e4f11", Controller: &owner}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "scale.test", Operation: "Update", APIVersion: "crddemo.k8s.io/v1", Time: &t, FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app.kubernetes.io/component":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:shard":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"7d0f5b9e-1111-4c2e-8f3a-2b6c9d0e4f11\"}":{}}},"f:spec":{".":{},"f:data":{".":{},"f:config.yaml":{}},"f:ip":{},"f:port":{}}}`)}},
				{Manager: "scale.test", Operation: "Update", APIVersion: "crddemo.k8s.io/v1", Time: &t, FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:data":{"f:generation":{}}}}`)}},
			},
		},
		Spec: crddemov1.MydemoSpec{IP: "10.0.0.1", Port: 8080, Data: map[string]string{"config.yaml": benchPayload, "generation": "00000001"}},
	}
	data, err := json.Marshal(md)
	if err != nil {
		panic(err)
	}
	// As kube-apiserver holds it: integers stay int64.
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &m); err != nil {
		panic(err)
	}
	return m
}

// wire is what the replaying server sends in one format.
type wire struct {
	contentType, streamType string
	event                   []byte // one watch event, framed
	list                    []byte // a list of listSize objects
}

const listSize = 500

func jsonWire() wire {
	ev, _ := json.Marshal(map[string]any{"type": "MODIFIED", "object": servedMydemo(1)})
	items := make([]any, listSize)
	for i := range items {
		items[i] = servedMydemo(i)
	}
	list, _ := json.Marshal(map[string]any{"apiVersion": "crddemo.k8s.io/v1", "kind": "MydemoList", "metadata": map[string]any{"resourceVersion": "2000000"}, "items": items})
	return wire{contentType: runtime.ContentTypeJSON, streamType: runtime.ContentTypeJSON, event: append(ev, '\n'), list: list}
}

func cborWire() wire {
	s := cbor.NewSerializer(scheme.Scheme, scheme.Scheme)
	var obj bytes.Buffer
	if err := s.Encode(&unstructured.Unstructured{Object: servedMydemo(1)}, &obj); err != nil {
		panic(err)
	}
	var ev bytes.Buffer
	if err := s.Encode(&metav1.WatchEvent{Type: "MODIFIED", Object: runtime.RawExtension{Raw: obj.Bytes()}}, &ev); err != nil {
		panic(err)
	}
	items := make([]any, listSize)
	for i := range items {
		items[i] = servedMydemo(i)
	}
	var list bytes.Buffer
	u := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "crddemo.k8s.io/v1", "kind": "MydemoList", "metadata": map[string]any{"resourceVersion": "2000000"}}}
	for _, it := range items {
		u.Items = append(u.Items, unstructured.Unstructured{Object: it.(map[string]any)})
	}
	if err := s.Encode(u, &list); err != nil {
		panic(err)
	}
	return wire{contentType: runtime.ContentTypeCBOR, streamType: runtime.ContentTypeCBORSequence, event: ev.Bytes(), list: list.Bytes()}
}

// replay serves w: the list for a list request, events for a watch, as
// many as the client reads.
func replay(w wire, events int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			rw.Header().Set("Content-Type", w.contentType)
			rw.Write(w.list)
			return
		}
		rw.Header().Set("Content-Type", w.streamType)
		flusher := rw.(http.Flusher)
		for i := 0; i < events; i++ {
			if _, err := rw.Write(w.event); err != nil {
				return
			}
			if i%64 == 63 {
				flusher.Flush()
			}
		}
		flusher.Flush()
		<-r.Context().Done()
	}))
}

type impl struct {
	name   string
	wire   func() wire
	client func(cfg *rest.Config) (versioned.Interface, error)
}

var impls = []impl{
	{"client-go", jsonWire, func(cfg *rest.Config) (versioned.Interface, error) { return clientgen.MydemoClient(cfg, "") }},
	{"ctrlgen", jsonWire, func(cfg *rest.Config) (versioned.Interface, error) { return versioned.NewForConfig(cfg) }},
	{"client-go-cbor", cborWire, func(cfg *rest.Config) (versioned.Interface, error) {
		return clientgen.MydemoClient(cfg, runtime.ContentTypeCBOR)
	}},
}

// BenchmarkMydemoWatch: one watch event (MODIFIED, one Mydemo) received
// and decoded per op, as an informer gets updates.
func BenchmarkMydemoWatch(b *testing.B) {
	if !features.FeatureGates().Enabled(features.ClientsAllowCBOR) {
		b.Fatal("ClientsAllowCBOR is off")
	}
	for _, im := range impls {
		b.Run("impl="+im.name, func(b *testing.B) {
			srv := replay(im.wire(), b.N)
			defer srv.Close()
			client, err := im.client(&rest.Config{Host: srv.URL, QPS: -1})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b.ReportAllocs()
			b.ResetTimer()
			w, err := client.CrddemoV1().Mydemos("").Watch(ctx, metav1.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Stop()
			for i := 0; i < b.N; i++ {
				ev := <-w.ResultChan()
				if md, ok := ev.Object.(*crddemov1.Mydemo); !ok || md.Spec.Port != 8080 {
					b.Fatalf("event %d: %#v", i, ev.Object)
				}
			}
		})
	}
}

// BenchmarkMydemoList: a list of 500 Mydemos received and decoded per op.
func BenchmarkMydemoList(b *testing.B) {
	for _, im := range impls {
		b.Run("impl="+im.name, func(b *testing.B) {
			srv := replay(im.wire(), 0)
			defer srv.Close()
			client, err := im.client(&rest.Config{Host: srv.URL, QPS: -1})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l, err := client.CrddemoV1().Mydemos("").List(context.Background(), metav1.ListOptions{})
				if err != nil || len(l.Items) != listSize {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReplayedObjectsDecodeAlike checks that the three sides of the
// benchmarks decode the replayed objects into the same Mydemos.
func TestReplayedObjectsDecodeAlike(t *testing.T) {
	var lists []*crddemov1.MydemoList
	for _, im := range impls {
		srv := replay(im.wire(), 0)
		client, err := im.client(&rest.Config{Host: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		l, err := client.CrddemoV1().Mydemos("").List(context.Background(), metav1.ListOptions{})
		srv.Close()
		if err != nil {
			t.Fatalf("%s: %v", im.name, err)
		}
		lists = append(lists, l)
	}
	for i, l := range lists[1:] {
		if diff := firstDiff(lists[0], l); diff != "" {
			t.Errorf("%s decodes the list differently from %s: %s", impls[i+1].name, impls[0].name, diff)
		}
	}
}

// firstDiff is "" when a and b are deep-equal, else both, as JSON.
func firstDiff(a, b any) string {
	if reflect.DeepEqual(a, b) {
		return ""
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return fmt.Sprintf("\n%s\n%s", ja, jb)
}
