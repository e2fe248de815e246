package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
)

// TestContentTypes checks what the controller's two clientsets send, as
// Init builds them from one rest config: protobuf for the built-in
// ConfigMaps, through client-go's clientset, and JSON for Mydemos, a
// custom resource the apiserver serves as JSON only, through the
// generated one.
func TestContentTypes(t *testing.T) {
	type request struct{ contentType, accept string }
	var (
		mu  sync.Mutex
		got = map[string]request{}
	)
	pb := protobuf.NewSerializer(kubescheme.Scheme, kubescheme.Scheme)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		got[r.URL.Path] = request{r.Header.Get("Content-Type"), r.Header.Get("Accept")}
		mu.Unlock()
		if r.Header.Get("Content-Type") == runtime.ContentTypeProtobuf {
			// Answer in kind, as kube-apiserver does.
			obj, _, err := pb.Decode(body, nil, nil)
			if err != nil {
				t.Errorf("%s: the body is not protobuf: %v", r.URL.Path, err)
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", runtime.ContentTypeProtobuf)
			w.WriteHeader(http.StatusCreated)
			if err := pb.Encode(obj, w); err != nil {
				t.Error(err)
			}
			return
		}
		w.Header().Set("Content-Type", runtime.ContentTypeJSON)
		w.WriteHeader(http.StatusCreated)
		w.Write(body)
	}))
	defer srv.Close()

	config := &rest.Config{Host: srv.URL}
	cs, err := versioned.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cm, err := kube.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Data:       map[string]string{"k": "v"},
	}, metav1.CreateOptions{})
	if err != nil || cm.Data["k"] != "v" {
		t.Fatalf("creating a ConfigMap: %v, %v", cm, err)
	}
	md, err := cs.CrddemoV1().Mydemos("ns").Create(ctx, &crddemov1.Mydemo{
		TypeMeta:   metav1.TypeMeta{APIVersion: "crddemo.k8s.io/v1", Kind: "Mydemo"},
		ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Spec:       crddemov1.MydemoSpec{IP: "10.0.0.1", Port: 80},
	}, metav1.CreateOptions{})
	if err != nil || md.Spec.IP != "10.0.0.1" {
		t.Fatalf("creating a Mydemo: %v, %v", md, err)
	}

	want := map[string]request{
		"/api/v1/namespaces/ns/configmaps":              {runtime.ContentTypeProtobuf, runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON},
		"/apis/crddemo.k8s.io/v1/namespaces/ns/mydemos": {runtime.ContentTypeJSON, runtime.ContentTypeJSON + ", */*"},
	}
	mu.Lock()
	defer mu.Unlock()
	for path, w := range want {
		if g := got[path]; g != w {
			t.Errorf("%s: Content-Type %q, Accept %q; want %q, %q", path, g.contentType, g.accept, w.contentType, w.accept)
		}
	}
}
