// Package clientgen builds examples/mydemo's clientset as a code-generator
// user has it: over the REST client client-gen v0.37.2's NewForConfig
// makes (setConfigDefaults), which decodes with apimachinery's
// serializers, without ctrlgen's generated JSON decoders. The benchmarks
// use it for their client-go sides.
package clientgen

import (
	"k8s.io/client-go/rest"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/scheme"
)

// MydemoClient returns the clientset on a copy of cfg, asking for
// contentType ("" for JSON, client-gen's default). Unlike client-gen's
// NewForConfig, which keeps cfg's ContentType, it sets the one given.
// The clientset's discovery client is on the Mydemo REST client, which
// no benchmark uses.
func MydemoClient(cfg *rest.Config, contentType string) (versioned.Interface, error) {
	config := rest.CopyConfig(cfg)
	gv := crddemov1.SchemeGroupVersion
	config.GroupVersion = &gv
	config.APIPath = "/apis"
	config.NegotiatedSerializer = rest.CodecFactoryForGeneratedClient(scheme.Scheme, scheme.Codecs).WithoutConversion()
	config.ContentType = contentType
	if config.UserAgent == "" {
		config.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	client, err := rest.RESTClientFor(config)
	if err != nil {
		return nil, err
	}
	return versioned.New(client), nil
}
