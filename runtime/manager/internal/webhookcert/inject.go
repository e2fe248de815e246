package webhookcert

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// Target says which webhooks are this server's: those whose clientConfig
// names Service, or a URL on one of Hosts. CRDs says whether it serves
// conversion webhooks, whose CRDs get the bundle too.
type Target struct {
	Service types.NamespacedName
	Hosts   []string
	CRDs    bool
}

func (t Target) matches(service *admissionregistrationv1.ServiceReference, rawURL *string) bool {
	if service != nil {
		return service.Namespace == t.Service.Namespace && service.Name == t.Service.Name
	}
	if rawURL == nil {
		return false
	}
	u, err := url.Parse(*rawURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	return slices.Contains(t.Hosts, host)
}

// CRDs is the resource of CustomResourceDefinitions.
var CRDs = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// Inject writes bundle as the caBundle of every webhook of t in the
// mutating and validating webhook configurations, and, with t.CRDs, of
// every CRD whose conversion webhook is t's. It reports how many objects
// it changed.
func Inject(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, t Target, bundle []byte) (int, error) {
	changed := 0
	var errs []error

	mutating := kube.AdmissionregistrationV1().MutatingWebhookConfigurations()
	ms, err := mutating.List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("listing MutatingWebhookConfigurations: %w", err)
	}
	for _, c := range ms.Items {
		n, err := injectConfig(ctx, t, bundle, &c, c.Name, mutating.Get, mutating.Update,
			func(c *admissionregistrationv1.MutatingWebhookConfiguration, each func(*admissionregistrationv1.WebhookClientConfig)) {
				for i := range c.Webhooks {
					each(&c.Webhooks[i].ClientConfig)
				}
			})
		changed += n
		errs = append(errs, err)
	}
	validating := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	vs, err := validating.List(ctx, metav1.ListOptions{})
	if err != nil {
		return changed, fmt.Errorf("listing ValidatingWebhookConfigurations: %w", err)
	}
	for _, c := range vs.Items {
		n, err := injectConfig(ctx, t, bundle, &c, c.Name, validating.Get, validating.Update,
			func(c *admissionregistrationv1.ValidatingWebhookConfiguration, each func(*admissionregistrationv1.WebhookClientConfig)) {
				for i := range c.Webhooks {
					each(&c.Webhooks[i].ClientConfig)
				}
			})
		changed += n
		errs = append(errs, err)
	}

	if !t.CRDs {
		return changed, errors.Join(errs...)
	}
	list, err := dyn.Resource(CRDs).List(ctx, metav1.ListOptions{})
	if err != nil {
		return changed, fmt.Errorf("listing CustomResourceDefinitions: %w", err)
	}
	encoded := base64.StdEncoding.EncodeToString(bundle)
	needs := func(crd *unstructured.Unstructured) bool {
		old, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		return t.matchesCRD(crd) && old != encoded
	}
	for _, c := range list.Items {
		if !needs(&c) {
			continue // as listed: read again only to write
		}
		n, err := updateWebhooks(ctx, c.GetName(), func(ctx context.Context) (bool, error) {
			cur, err := dyn.Resource(CRDs).Get(ctx, c.GetName(), metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if !needs(cur) {
				return false, nil
			}
			if err := unstructured.SetNestedField(cur.Object, encoded, "spec", "conversion", "webhook", "clientConfig", "caBundle"); err != nil {
				return false, err
			}
			_, err = dyn.Resource(CRDs).Update(ctx, cur, metav1.UpdateOptions{})
			return true, err
		})
		changed += n
		errs = append(errs, err)
	}
	return changed, errors.Join(errs...)
}

// injectConfig writes bundle into the webhooks of t in one webhook
// configuration, listed as listed: it is read again, to be written, only
// when one of them needs the bundle.
func injectConfig[T any](ctx context.Context, t Target, bundle []byte, listed T, name string,
	get func(context.Context, string, metav1.GetOptions) (T, error),
	update func(context.Context, T, metav1.UpdateOptions) (T, error),
	clientConfigs func(T, func(*admissionregistrationv1.WebhookClientConfig))) (int, error) {
	needed := false
	clientConfigs(listed, func(cc *admissionregistrationv1.WebhookClientConfig) {
		needed = needed || t.matches(cc.Service, cc.URL) && !bytes.Equal(cc.CABundle, bundle)
	})
	if !needed {
		return 0, nil
	}
	return updateWebhooks(ctx, name, func(ctx context.Context) (bool, error) {
		cur, err := get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		hit := false
		clientConfigs(cur, func(cc *admissionregistrationv1.WebhookClientConfig) {
			if t.matches(cc.Service, cc.URL) && !bytes.Equal(cc.CABundle, bundle) {
				cc.CABundle, hit = bundle, true
			}
		})
		if !hit {
			return false, nil
		}
		_, err = update(ctx, cur, metav1.UpdateOptions{})
		return true, err
	})
}

func (t Target) matchesCRD(crd *unstructured.Unstructured) bool {
	if s, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy"); s != "Webhook" {
		return false
	}
	cc, ok, _ := unstructured.NestedMap(crd.Object, "spec", "conversion", "webhook", "clientConfig")
	if !ok {
		return false
	}
	var service *admissionregistrationv1.ServiceReference
	if s, ok := cc["service"].(map[string]any); ok {
		ns, _ := s["namespace"].(string)
		name, _ := s["name"].(string)
		service = &admissionregistrationv1.ServiceReference{Namespace: ns, Name: name}
	}
	var u *string
	if s, ok := cc["url"].(string); ok {
		u = &s
	}
	return t.matches(service, u)
}

// updateWebhooks runs a read-modify-write, again on a conflict; an object
// deleted meanwhile is skipped. It returns 1 if it wrote.
func updateWebhooks(ctx context.Context, name string, update func(context.Context) (bool, error)) (int, error) {
	wrote := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var err error
		wrote, err = update(ctx)
		return err
	})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("injecting the caBundle into %s: %w", name, err)
	}
	if wrote {
		return 1, nil
	}
	return 0, nil
}
