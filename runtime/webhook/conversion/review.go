package conversion

import (
	"encoding/json"

	"github.com/ctrlgen/ctrlgen/runtime/jsoncodec"
	"github.com/ctrlgen/ctrlgen/runtime/webhook/internal/review"
)

// request is a ConversionReview's request (apiextensions.k8s.io/v1 or
// v1beta1, which have the same shape), the objects left raw.
type request struct {
	apiVersion        string
	uid               string
	desiredAPIVersion string
	objects           [][]byte
}

func decodeReview(body []byte) (*request, error) {
	req := &request{}
	apiVersion, err := review.DecodeEnvelope(body, "ConversionReview", []string{"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"},
		func(d *jsoncodec.Decoder) { decodeRequest(d, req) })
	switch {
	case err != nil:
		return nil, err
	case req.uid == "":
		return nil, review.Badf("ConversionReview request without a uid")
	case req.desiredAPIVersion == "":
		return nil, review.Badf("ConversionReview request without a desiredAPIVersion")
	}
	req.apiVersion = apiVersion
	return req, nil
}

func decodeRequest(d *jsoncodec.Decoder, req *request) {
	if !d.Object() {
		return
	}
	for key, ok := d.Key(); ok; key, ok = d.Key() {
		switch string(key) {
		case "uid":
			jsoncodec.String(d, &req.uid)
		case "desiredAPIVersion":
			jsoncodec.String(d, &req.desiredAPIVersion)
		case "objects":
			if !d.Array() {
				continue
			}
			for d.Elem() {
				if raw := d.Raw(); raw != nil {
					req.objects = append(req.objects, raw)
				}
			}
		default:
			d.Skip()
		}
	}
}

// response is what the endpoint answers: the converted objects, or the
// error that stopped the conversion.
type response struct {
	uid     string
	objects [][]byte
	err     error
}

func (r *response) encode(apiVersion string) []byte {
	n := 256
	for _, o := range r.objects {
		n += len(o) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"kind":"ConversionReview","apiVersion":`...)
	b = review.AppendString(b, apiVersion)
	b = append(b, `,"response":{"uid":`...)
	b = review.AppendString(b, r.uid)
	b = append(b, `,"convertedObjects":[`...)
	for i, o := range r.objects {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, o...)
	}
	b = append(b, `],"result":`...)
	if r.err == nil {
		b = append(b, `{"metadata":{},"status":"Success"}`...)
	} else {
		msg, _ := json.Marshal(r.err.Error())
		b = append(b, `{"metadata":{},"status":"Failure","message":`...)
		b = append(b, msg...)
		b = append(b, '}')
	}
	return append(b, "}}\n"...)
}
