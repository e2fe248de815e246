package webhook

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	upstream "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"

	admissionregv1 "github.com/ctrlgen/ctrlgen/generators/webhook/internal/admissionv1"
)

func ptr[T any](v T) *T { return &v }

// sample is a mutating webhook with every field set.
func sample() admissionregv1.MutatingWebhook {
	return admissionregv1.MutatingWebhook{
		Name: "m.example.com",
		ClientConfig: admissionregv1.WebhookClientConfig{URL: ptr("https://x"), CABundle: []byte("ca"),
			Service: &admissionregv1.ServiceReference{Namespace: "system", Name: "svc", Path: ptr("/p"), Port: ptr(int32(443))}},
		Rules: []admissionregv1.RuleWithOperations{{Operations: []admissionregv1.OperationType{admissionregv1.Create},
			Rule: admissionregv1.Rule{APIGroups: []string{"g"}, APIVersions: []string{"v1"}, Resources: []string{"r"}, Scope: ptr("Namespaced")}}},
		FailurePolicy: ptr(admissionregv1.Fail), MatchPolicy: ptr(admissionregv1.Equivalent),
		NamespaceSelector: &admissionregv1.LabelSelector{MatchLabels: map[string]string{"a": "1", "b": "2"},
			MatchExpressions: []admissionregv1.LabelSelectorRequirement{{Key: "k", Operator: "In", Values: []string{"x"}}}},
		ObjectSelector:          &admissionregv1.LabelSelector{MatchLabels: map[string]string{"o": "1"}},
		SideEffects:             ptr(admissionregv1.SideEffectClassNone),
		TimeoutSeconds:          ptr(int32(10)),
		AdmissionReviewVersions: []string{"v1"},
		ReinvocationPolicy:      ptr(admissionregv1.IfNeededReinvocationPolicy),
		MatchConditions:         []admissionregv1.MatchCondition{{Name: "first", Expression: "true"}, {Name: "second", Expression: "false"}},
	}
}

// TestTypesAreAdmissionRegistrations: ours and k8s.io/api's read and
// write the same JSON, every field set, both ways.
func TestTypesAreAdmissionRegistrations(t *testing.T) {
	for _, tc := range []struct {
		ours, theirs any
	}{
		{&admissionregv1.MutatingWebhookConfiguration{TypeMeta: admissionregv1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
			ObjectMeta: admissionregv1.ObjectMeta{Name: "c"}, Webhooks: []admissionregv1.MutatingWebhook{sample()}}, &upstream.MutatingWebhookConfiguration{}},
		{&admissionregv1.ValidatingWebhookConfiguration{TypeMeta: admissionregv1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
			ObjectMeta: admissionregv1.ObjectMeta{Name: "c"}, Webhooks: []admissionregv1.ValidatingWebhook{validating(sample())}}, &upstream.ValidatingWebhookConfiguration{}},
	} {
		ours, err := json.Marshal(tc.ours)
		if err != nil {
			t.Fatal(err)
		}
		if strict, err := kjson.UnmarshalStrict(ours, tc.theirs); err != nil || len(strict) > 0 {
			t.Fatalf("k8s.io/api's %T reads ours with %v %v", tc.theirs, err, strict)
		}
		theirs, err := json.Marshal(tc.theirs)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, ours, theirs) {
			t.Errorf("%T:\n ours   %s\n theirs %s", tc.theirs, ours, theirs)
		}
		back := reflect.New(reflect.TypeOf(tc.ours).Elem()).Interface()
		if strict, err := kjson.UnmarshalStrict(theirs, back); err != nil || len(strict) > 0 || !reflect.DeepEqual(back, tc.ours) {
			t.Errorf("ours read back from k8s.io/api's: %v %v\n%+v", err, strict, back)
		}
	}
}

func validating(m admissionregv1.MutatingWebhook) admissionregv1.ValidatingWebhook {
	return admissionregv1.ValidatingWebhook{Name: m.Name, ClientConfig: m.ClientConfig, Rules: m.Rules, FailurePolicy: m.FailurePolicy,
		MatchPolicy: m.MatchPolicy, NamespaceSelector: m.NamespaceSelector, ObjectSelector: m.ObjectSelector, SideEffects: m.SideEffects,
		TimeoutSeconds: m.TimeoutSeconds, AdmissionReviewVersions: m.AdmissionReviewVersions, MatchConditions: m.MatchConditions}
}

// TestPatchIsStrategicMerge: applyPatch gives what apimachinery's
// strategicpatch gives on k8s.io/api's types, as controller-gen applies
// a marker's patch.
func TestPatchIsStrategicMerge(t *testing.T) {
	for _, patch := range []string{
		`{"timeoutSeconds":null,"namespaceSelector":{"matchLabels":{"shop":"enabled"}},"objectSelector":{"matchExpressions":[{"key":"skip","operator":"DoesNotExist"}]}}`,
		`{"matchConditions":[{"name":"not-system","expression":"!request.userInfo.username.startsWith('system:')"}],"rules":[{"apiGroups":["shop.example.com"],"apiVersions":["*"],"operations":["CREATE","UPDATE"],"resources":["orders"],"scope":"Namespaced"}]}`,
		`{"matchConditions":[{"name":"second","expression":"1 == 1"},{"name":"third","expression":"x"}]}`,
		`{"matchConditions":[{"name":"first","$patch":"delete"}]}`,
		`{"matchConditions":[{"$patch":"replace"},{"name":"only","expression":"y"}]}`,
		`{"namespaceSelector":{"$patch":"replace","matchLabels":{"z":"9"}}}`,
		`{"namespaceSelector":{"matchLabels":{"a":null,"c":"3"}},"objectSelector":null}`,
		`{"clientConfig":{"service":{"path":"/other","port":null},"url":null},"sideEffects":"NoneOnDryRun","reinvocationPolicy":"Never"}`,
		`{"admissionReviewVersions":["v1","v1beta1"],"failurePolicy":"Ignore","matchPolicy":null}`,
		`{"namespaceSelector":{"$patch":"delete"}}`,
		`{"matchConditions":[{"name":"second","expression":"2"},{"name":"new","expression":"n"},{"name":"first","expression":"1"}]}`,
		`{"matchConditions":[{"name":"new","expression":"n"},{"name":"second","$patch":"delete"},{"name":"first","expression":"1"}]}`,
		`{"matchConditions":[]}`,
		`{"matchConditions":null,"rules":[]}`,
		`{}`,
	} {
		t.Run(patch, func(t *testing.T) {
			ours := sample()
			if err := applyPatch(&ours, patch); err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(ours)
			if err != nil {
				t.Fatal(err)
			}
			original, err := json.Marshal(sample())
			if err != nil {
				t.Fatal(err)
			}
			patched, err := strategicpatch.StrategicMergePatch(original, []byte(patch), upstream.MutatingWebhook{})
			if err != nil {
				t.Fatal(err)
			}
			// Through the Go type, as controller-gen writes it.
			var theirs upstream.MutatingWebhook
			if err := json.Unmarshal(patched, &theirs); err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(theirs)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, got, want) {
				t.Errorf("\n ours           %s\n strategicpatch %s", got, want)
			}
		})
	}
}

func TestPatchRefusals(t *testing.T) {
	for patch, says := range map[string]string{
		`{"timeoutSecond":3}`:                         `invalid patch field "timeoutSecond"`,
		`{"clientConfig":{"servce":{}}}`:              `invalid patch field "servce"`,
		`{"matchConditions":[{"nmae":"x"}]}`:          `invalid patch field "nmae"`,
		`{"TimeoutSeconds":3}`:                        `invalid patch field "TimeoutSeconds"`,
		`{"$retainKeys":["name"]}`:                    `only $patch is applied`,
		`{"matchConditions":[{"expression":"x"}]}`:    `has no name`,
		`{"timeoutSeconds":"ten"}`:                    `timeoutSeconds`,
		`{"namespaceSelector":{"$patch":"sideways"}}`: `unknown $patch`,
	} {
		w := sample()
		if err := applyPatch(&w, patch); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: error %v, want it to say %q", patch, err, says)
		}
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}
