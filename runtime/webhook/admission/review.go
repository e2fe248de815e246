package admission

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlgen/ctrlgen/runtime/jsoncodec"
	"github.com/ctrlgen/ctrlgen/runtime/webhook/internal/review"
)

// decodeReview reads an AdmissionReview (admission.k8s.io/v1 or v1beta1,
// which have the same shape) without reflection; the objects stay raw
// for the kind's own decoder. It returns the review's apiVersion, which
// the response repeats.
func decodeReview(body []byte, req *admissionv1.AdmissionRequest) (string, error) {
	apiVersion, err := review.DecodeEnvelope(body, "AdmissionReview", []string{"admission.k8s.io/v1", "admission.k8s.io/v1beta1"},
		func(d *jsoncodec.Decoder) { decodeRequest(d, req) })
	if err == nil && req.UID == "" {
		err = review.Badf("AdmissionReview request without a uid")
	}
	return apiVersion, err
}

func decodeRequest(d *jsoncodec.Decoder, r *admissionv1.AdmissionRequest) {
	if !d.Object() {
		return
	}
	for key, ok := d.Key(); ok; key, ok = d.Key() {
		switch string(key) {
		case "uid":
			jsoncodec.String(d, &r.UID)
		case "kind":
			decodeGVK(d, &r.Kind)
		case "resource":
			decodeGVR(d, &r.Resource)
		case "subResource":
			jsoncodec.String(d, &r.SubResource)
		case "requestKind":
			if !d.Null() {
				r.RequestKind = new(metav1.GroupVersionKind)
				decodeGVK(d, r.RequestKind)
			}
		case "requestResource":
			if !d.Null() {
				r.RequestResource = new(metav1.GroupVersionResource)
				decodeGVR(d, r.RequestResource)
			}
		case "requestSubResource":
			jsoncodec.String(d, &r.RequestSubResource)
		case "name":
			jsoncodec.String(d, &r.Name)
		case "namespace":
			jsoncodec.String(d, &r.Namespace)
		case "operation":
			jsoncodec.String(d, &r.Operation)
		case "userInfo":
			decodeUserInfo(d, &r.UserInfo)
		case "object":
			r.Object.Raw = rawObject(d)
		case "oldObject":
			r.OldObject.Raw = rawObject(d)
		case "options":
			r.Options.Raw = rawObject(d)
		case "dryRun":
			if !d.Null() {
				r.DryRun = new(bool)
				jsoncodec.Bool(d, r.DryRun)
			}
		default:
			d.Skip()
		}
	}
}

// rawObject is an object's bytes, or nil for null.
func rawObject(d *jsoncodec.Decoder) []byte {
	if d.Null() {
		return nil
	}
	return d.Raw()
}

func decodeGVK(d *jsoncodec.Decoder, v *metav1.GroupVersionKind) {
	if !d.Object() {
		return
	}
	for key, ok := d.Key(); ok; key, ok = d.Key() {
		switch string(key) {
		case "group":
			jsoncodec.String(d, &v.Group)
		case "version":
			jsoncodec.String(d, &v.Version)
		case "kind":
			jsoncodec.String(d, &v.Kind)
		default:
			d.Skip()
		}
	}
}

func decodeGVR(d *jsoncodec.Decoder, v *metav1.GroupVersionResource) {
	if !d.Object() {
		return
	}
	for key, ok := d.Key(); ok; key, ok = d.Key() {
		switch string(key) {
		case "group":
			jsoncodec.String(d, &v.Group)
		case "version":
			jsoncodec.String(d, &v.Version)
		case "resource":
			jsoncodec.String(d, &v.Resource)
		default:
			d.Skip()
		}
	}
}

func decodeUserInfo(d *jsoncodec.Decoder, u *authenticationv1.UserInfo) {
	if !d.Object() {
		return
	}
	for key, ok := d.Key(); ok; key, ok = d.Key() {
		switch string(key) {
		case "username":
			jsoncodec.String(d, &u.Username)
		case "uid":
			jsoncodec.String(d, &u.UID)
		case "groups":
			u.Groups = decodeStrings(d)
		case "extra":
			if d.Null() || !d.Object() {
				continue
			}
			u.Extra = map[string]authenticationv1.ExtraValue{}
			for k, ok := d.Key(); ok; k, ok = d.Key() {
				name := string(k)
				u.Extra[name] = decodeStrings(d)
			}
		default:
			d.Skip()
		}
	}
}

func decodeStrings(d *jsoncodec.Decoder) []string {
	if d.Null() || !d.Array() {
		return nil
	}
	out := []string{}
	for d.Elem() {
		var s string
		jsoncodec.String(d, &s)
		out = append(out, s)
	}
	return out
}

// response is what an admission endpoint answers.
type response struct {
	uid      types.UID
	allowed  bool
	status   *metav1.Status
	patch    []byte // a JSON patch
	warnings []string
}

// encode writes the AdmissionReview carrying r, in apiVersion.
func (r *response) encode(apiVersion string) ([]byte, error) {
	b := make([]byte, 0, 256+len(r.patch)*4/3)
	b = append(b, `{"kind":"AdmissionReview","apiVersion":`...)
	b = review.AppendString(b, apiVersion)
	b = append(b, `,"response":{"uid":`...)
	b = review.AppendString(b, string(r.uid))
	b = append(b, `,"allowed":`...)
	b = strconv.AppendBool(b, r.allowed)
	if r.status != nil {
		status, err := json.Marshal(r.status)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"status":`...)
		b = append(b, status...)
	}
	if r.patch != nil {
		b = append(b, `,"patch":"`...)
		b = base64.StdEncoding.AppendEncode(b, r.patch)
		b = append(b, `","patchType":"JSONPatch"`...)
	}
	if len(r.warnings) > 0 {
		b = append(b, `,"warnings":[`...)
		for i, w := range r.warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = review.AppendString(b, w)
		}
		b = append(b, ']')
	}
	return append(b, "}}\n"...), nil
}
