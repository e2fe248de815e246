package crd

// The real projects' API packages, imported so that this module requires
// their modules at the versions go.mod names.
import (
	_ "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	_ "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	_ "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta1"
	_ "sigs.k8s.io/cluster-api/api/core/v1beta2"
	_ "sigs.k8s.io/controller-runtime/pkg/scheme"
	_ "sigs.k8s.io/gateway-api/apis/v1"
)
