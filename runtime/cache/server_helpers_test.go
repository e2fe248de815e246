package cache_test

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/cache/cachetest"
)

type server = cachetest.Server[*corev1.ConfigMap]

func newServer() *server {
	return cachetest.NewServer[*corev1.ConfigMap](schema.GroupResource{Resource: "configmaps"})
}

func cm(ns, name, data string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data:       map[string]string{"v": data},
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func create(s *server, obj *corev1.ConfigMap) *corev1.ConfigMap {
	out, err := s.Create(obj)
	if err != nil {
		panic(err)
	}
	return out
}

func update(s *server, ns, name, data string) *corev1.ConfigMap {
	out, err := s.Mutate(cache.NewObjectName(ns, name), func(o *corev1.ConfigMap) { o.Data = map[string]string{"v": data} })
	if err != nil {
		panic(err)
	}
	return out
}

func del(s *server, ns, name string) *corev1.ConfigMap {
	out, err := s.Delete(cache.NewObjectName(ns, name))
	if err != nil {
		panic(err)
	}
	return out
}

func isExpired(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

var fastBackoff = cache.BackoffConfig{Initial: time.Millisecond, Max: 5 * time.Millisecond}
