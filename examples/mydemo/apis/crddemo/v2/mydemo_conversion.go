package v2

import (
	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
)

// convertMydemoSpecToV1 converts what the generated conversion of
// MydemoSpec to crddemo.k8s.io/v1 does not: Address is v1's IP. Protocol
// has no place in v1; the generated code keeps it in v1's annotation
// conversion.ctrlgen.dev/v2.
func convertMydemoSpecToV1(in *MydemoSpec, out *crddemov1.MydemoSpec) error {
	out.IP = in.Address
	return nil
}

// convertMydemoSpecFromV1 converts what the generated conversion of
// MydemoSpec from crddemo.k8s.io/v1 does not: v1's IP is Address.
// Protocol comes back from the annotation when v1 kept one.
func convertMydemoSpecFromV1(in *crddemov1.MydemoSpec, out *MydemoSpec) error {
	out.Address = in.IP
	return nil
}
