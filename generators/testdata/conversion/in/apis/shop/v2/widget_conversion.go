package v2

import (
	"time"

	shopv1 "example.com/conversion/apis/shop/v1"
)

// convertWidgetSpecToV1: Host is v1's Address; Tier stays in the
// annotation; Timeout is a duration in v1.
func convertWidgetSpecToV1(in *WidgetSpec, out *shopv1.WidgetSpec) error {
	out.Address = in.Host
	out.Timeout = ""
	if in.Timeout != 0 {
		out.Timeout = (time.Duration(in.Timeout) * time.Second).String()
	}
	return nil
}

// convertWidgetSpecFromV1: Address is v2's Host; Replicas stays in the
// annotation; Timeout is in seconds in v2.
func convertWidgetSpecFromV1(in *shopv1.WidgetSpec, out *WidgetSpec) error {
	out.Host = in.Address
	out.Timeout = 0
	if in.Timeout != "" {
		d, err := time.ParseDuration(in.Timeout)
		if err != nil {
			return err
		}
		out.Timeout = int64(d / time.Second)
	}
	return nil
}

// Burst stays in the annotation.
func convertLimitsToV1(in *Limits, out *shopv1.Limits) error { return nil }

func convertLimitsFromV1(in *shopv1.Limits, out *Limits) error { return nil }
