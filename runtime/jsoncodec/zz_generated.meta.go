package jsoncodec

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// placeholder until generated
func DecodeWatchEvent(d *Decoder, v *metav1.WatchEvent) {
	if d.Object() {
		for k, ok := d.Key(); ok; k, ok = d.Key() {
			switch string(k) {
			case "type":
				String(d, &v.Type)
			case "object":
				d.Unmarshal(&v.Object)
			default:
				d.Skip()
			}
		}
	}
}
