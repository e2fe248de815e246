package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	setsv1 "github.com/ctrlgen/ctrlgen/examples/configmapset/apis/sets/v1"
	"github.com/ctrlgen/ctrlgen/examples/configmapset/controllers/secretset"
	"github.com/ctrlgen/ctrlgen/examples/configmapset/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/examples/configmapset/generated/informers/externalversions"
	"github.com/ctrlgen/ctrlgen/runtime/metadatainformer"
)

// secretReads records the Accept header of every list and watch of
// Secrets a client sends (with streaming lists, a watch may be all).
type secretReads struct {
	rt      http.RoundTripper
	mu      sync.Mutex
	accepts []string
}

func (s *secretReads) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/secrets") {
		s.mu.Lock()
		s.accepts = append(s.accepts, r.Header.Get("Accept"))
		s.mu.Unlock()
	}
	return s.rt.RoundTrip(r)
}

// TestMetadataOnlyCacheHoldsSecretsWithoutData runs examples/configmapset's
// SecretSet controller (owns=core/v1.Secret,adopt=spec.selector,
// metadataOnly) as its generated RBAC's ServiceAccount: it adopts an
// orphan, creates and deletes Secrets to spec.replicas through its
// expectations, and every list and watch of Secrets it sends asks for
// PartialObjectMetadata, so the Secrets' data never reaches it.
func TestMetadataOnlyCacheHoldsSecretsWithoutData(t *testing.T) {
	e := env(t)
	createCRD(t, e, "../examples/configmapset/config/crd/sets.ctrlgen.io_secretsets.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	admin := kubeClient(t, e)
	ns := namespace(t, admin)
	sets, err := versioned.NewForConfig(e.Config())
	if err != nil {
		t.Fatal(err)
	}
	account := newAccount(t, e, ns, configMapSetRBACDir)
	account.waitOwnerKindAdmitted(t, e, setsv1.SchemeGroupVersion.WithKind("SecretSet"))
	eventually(t, time.Minute, "SecretSets to be served", func() (bool, string) {
		if _, err := sets.SetsV1().SecretSets(ns).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			return false, err.Error()
		}
		return true, ""
	})

	payload := map[string][]byte{"key": bytes.Repeat([]byte{'k'}, 4096)}
	orphan, err := admin.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "orphan", Labels: map[string]string{setLabel: "vault"}},
		Data:       payload,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	cfg := account.config(e)
	reads := &secretReads{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { reads.rt = rt; return reads })
	controllerSets, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := metadata.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	factory := externalversions.NewSharedInformerFactoryWithOptions(controllerSets, 0, externalversions.WithNamespace(ns))
	metaFactory := metadatainformer.NewFilteredSharedInformerFactory(meta, 0, ns, nil)
	c, err := secretset.New(controllerSets, factory, kube, metaFactory, record.NewFakeRecorder(100))
	if err != nil {
		t.Fatal(err)
	}
	runController(t, ctx, cancel, func(ctx context.Context) error { return c.Run(ctx, 2) }, factory, metaFactory)

	if _, err := sets.SetsV1().SecretSets(ns).Create(ctx, &setsv1.SecretSet{
		ObjectMeta: metav1.ObjectMeta{Name: "vault"},
		Spec: setsv1.SecretSetSpec{
			Replicas: 3,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{setLabel: "vault"}},
			Data:     payload,
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	converged := func(replicas int32) func() (bool, string) {
		return func() (bool, string) {
			set, err := sets.SetsV1().SecretSets(ns).Get(ctx, "vault", metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			list, err := admin.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: setLabel + "=vault"})
			if err != nil {
				return false, err.Error()
			}
			var live int32
			for _, s := range list.Items {
				if s.DeletionTimestamp == nil && metav1.IsControlledBy(&s, set) {
					live++
					if len(s.Data["key"]) != 4096 {
						return false, fmt.Sprintf("secret %s has %d bytes of data, want 4096", s.Name, len(s.Data["key"]))
					}
				}
			}
			if live != replicas || set.Status.Replicas != replicas || set.Status.ObservedGeneration != set.Generation {
				return false, fmt.Sprintf("%d controlled Secrets, status %+v at generation %d; want %d", live, set.Status, set.Generation, replicas)
			}
			return true, ""
		}
	}
	eventually(t, time.Minute, "3 Secrets", converged(3))
	adopted, err := admin.CoreV1().Secrets(ns).Get(ctx, orphan.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(adopted); ref == nil || ref.Name != "vault" {
		t.Errorf("the orphan was not adopted: controller %v", ref)
	}

	if _, err := sets.SetsV1().SecretSets(ns).Patch(ctx, "vault", types.MergePatchType, []byte(`{"spec":{"replicas":1}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "1 Secret", converged(1))

	reads.mu.Lock()
	defer reads.mu.Unlock()
	if len(reads.accepts) == 0 {
		t.Error("no list or watch of Secrets was seen")
	}
	for _, accept := range reads.accepts {
		if !strings.Contains(accept, "as=PartialObjectMetadata") {
			t.Errorf("a read of Secrets accepted %q: not metadata alone", accept)
		}
	}
	account.log.checkNone(t)
}
