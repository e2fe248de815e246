package testenv

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// InstallCRDs creates the CustomResourceDefinitions in paths (YAML or
// JSON files, or directories whose *.yaml, *.yml and *.json files are
// read; documents of other kinds, such as a kustomization.yaml, are left
// out) and waits until every one is Established. A CRD that already
// exists is replaced by the one read. A path that does not exist, or
// holds no CRD, is an error.
func (e *Env) InstallCRDs(ctx context.Context, paths ...string) error {
	crds, err := readCRDs(paths)
	if err != nil {
		return err
	}
	client, err := dynamic.NewForConfig(e.Config())
	if err != nil {
		return err
	}
	api := client.Resource(crdResource)
	for _, crd := range crds {
		_, err := api.Create(ctx, crd, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			var current *unstructured.Unstructured
			if current, err = api.Get(ctx, crd.GetName(), metav1.GetOptions{}); err == nil {
				crd.SetResourceVersion(current.GetResourceVersion())
				_, err = api.Update(ctx, crd, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			return fmt.Errorf("testenv: installing CRD %s: %w", crd.GetName(), err)
		}
	}
	for _, crd := range crds {
		if err := waitEstablished(ctx, api, crd.GetName()); err != nil {
			return err
		}
	}
	return nil
}

func readCRDs(paths []string) ([]*unstructured.Unstructured, error) {
	var crds []*unstructured.Unstructured
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("testenv: CRDs: %w", err)
		}
		files := []string{p}
		if info.IsDir() {
			files = nil
			for _, ext := range []string{"*.yaml", "*.yml", "*.json"} {
				m, _ := filepath.Glob(filepath.Join(p, ext))
				files = append(files, m...)
			}
		}
		found := len(crds)
		for _, f := range files {
			read, err := readCRDFile(f)
			if err != nil {
				return nil, err
			}
			crds = append(crds, read...)
		}
		if len(crds) == found {
			return nil, fmt.Errorf("testenv: CRDs: no CustomResourceDefinition in %s", p)
		}
	}
	return crds, nil
}

func readCRDFile(path string) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("testenv: CRDs: %w", err)
	}
	var crds []*unstructured.Unstructured
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return crds, nil
		}
		if err != nil {
			return nil, fmt.Errorf("testenv: %s: %w", path, err)
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &obj.Object); err != nil {
			return nil, fmt.Errorf("testenv: %s: %w", path, err)
		}
		if obj.GetKind() != "CustomResourceDefinition" {
			continue // a kustomization, a comment-only document, ...
		}
		if obj.GetAPIVersion() != "apiextensions.k8s.io/v1" {
			return nil, fmt.Errorf("testenv: %s: CustomResourceDefinition %s is %s; the apiserver serves apiextensions.k8s.io/v1", path, obj.GetName(), obj.GetAPIVersion())
		}
		crds = append(crds, obj)
	}
}

// waitEstablished waits until the CRD name is Established, or says why
// not when a minute has passed.
func waitEstablished(ctx context.Context, api dynamic.NamespaceableResourceInterface, name string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	why := "no Established condition yet"
	for {
		var conditions []any
		if crd, err := api.Get(ctx, name, metav1.GetOptions{}); err != nil {
			why = err.Error()
		} else {
			conditions, _, _ = unstructured.NestedSlice(crd.Object, "status", "conditions")
		}
		for _, c := range conditions {
			c, _ := c.(map[string]any)
			switch {
			case c["type"] == "Established" && c["status"] == "True":
				return nil
			case c["type"] == "NamesAccepted" && c["status"] == "False":
				why = fmt.Sprintf("names not accepted: %v", c["message"])
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("testenv: CRD %s not Established: %s", name, why)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
