package metricsauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

// apiserver answers reviews as the test sets it up and counts them.
type apiserver struct {
	mu          sync.Mutex
	users       map[string]authenticationv1.UserInfo // token → user
	allowed     map[string]bool                      // user name → may get /metrics
	tokenErr    error
	accessErr   error
	tokenCalls  int
	accessCalls int
	lastAccess  authorizationv1.SubjectAccessReviewSpec
}

type tokenReviews struct{ *apiserver }

func (a tokenReviews) Create(_ context.Context, r *authenticationv1.TokenReview, _ metav1.CreateOptions) (*authenticationv1.TokenReview, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokenCalls++
	if a.tokenErr != nil {
		return nil, a.tokenErr
	}
	out := r.DeepCopy()
	if u, ok := a.users[r.Spec.Token]; ok {
		out.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: u}
	} else {
		out.Status = authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}
	}
	return out, nil
}

type accessReviews struct{ *apiserver }

func (a accessReviews) Create(_ context.Context, r *authorizationv1.SubjectAccessReview, _ metav1.CreateOptions) (*authorizationv1.SubjectAccessReview, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.accessCalls++
	a.lastAccess = r.Spec
	if a.accessErr != nil {
		return nil, a.accessErr
	}
	out := r.DeepCopy()
	na := r.Spec.NonResourceAttributes
	out.Status.Allowed = a.allowed[r.Spec.User] && na != nil && na.Path == "/metrics" && na.Verb == "get"
	return out, nil
}

func (a *apiserver) calls() (tokens, access int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tokenCalls, a.accessCalls
}

func (a *apiserver) set(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f()
}

type fixture struct {
	api     *apiserver
	clock   *clocktesting.FakePassiveClock
	handler http.Handler
}

func newFixture() *fixture {
	api := &apiserver{
		users: map[string]authenticationv1.UserInfo{
			"reader-token": {Username: "system:serviceaccount:monitoring:prometheus", UID: "u-1",
				Groups: []string{"system:serviceaccounts", "system:authenticated"},
				Extra:  map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/pod-name": {"prometheus-0"}}},
			"other-token": {Username: "system:serviceaccount:default:other", Groups: []string{"system:authenticated"}},
		},
		allowed: map[string]bool{"system:serviceaccount:monitoring:prometheus": true},
	}
	clk := clocktesting.NewFakePassiveClock(time.Unix(1_700_000_000, 0))
	f := New(tokenReviews{api}, accessReviews{api}, clk)
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("metric_total 1\n")) })
	return &fixture{api: api, clock: clk, handler: f.Wrap(metrics)}
}

func (f *fixture) do(method, authorization string) (int, string) {
	req := httptest.NewRequest(method, "https://controller:8443/metrics", nil)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func (f *fixture) advance(d time.Duration) { f.clock.SetTime(f.clock.Now().Add(d)) }

func (f *fixture) expectCalls(t *testing.T, when string, tokens, access int) {
	t.Helper()
	if gotT, gotA := f.api.calls(); gotT != tokens || gotA != access {
		t.Fatalf("%s: %d TokenReviews and %d SubjectAccessReviews, want %d and %d", when, gotT, gotA, tokens, access)
	}
}

func TestRequestsWithoutABearerTokenAreUnauthorizedWithoutAReview(t *testing.T) {
	f := newFixture()
	for _, h := range []string{"", "Basic dXNlcjpwYXNz", "Bearer", "Bearer   ", "reader-token"} {
		code, _ := f.do("GET", h)
		if code != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %d, want 401", h, code)
		}
	}
	f.expectCalls(t, "no usable token", 0, 0)
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if got := rec.Header().Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
		t.Errorf("WWW-Authenticate %q", got)
	}
}

func TestAllowedTokenGetsTheHandlerAndAnswersAreCached(t *testing.T) {
	f := newFixture()
	code, body := f.do("GET", "Bearer reader-token")
	if code != http.StatusOK || body != "metric_total 1\n" {
		t.Fatalf("allowed token: %d %q", code, body)
	}
	f.expectCalls(t, "first request", 1, 1)
	spec := f.api.lastAccess
	if spec.User != "system:serviceaccount:monitoring:prometheus" || spec.UID != "u-1" ||
		len(spec.Groups) != 2 || spec.Extra["authentication.kubernetes.io/pod-name"][0] != "prometheus-0" ||
		spec.NonResourceAttributes == nil || *spec.NonResourceAttributes != (authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}) ||
		spec.ResourceAttributes != nil {
		t.Fatalf("SubjectAccessReview spec %+v", spec)
	}

	f.advance(AuthenticatedTTL - time.Second)
	if code, _ := f.do("GET", "Bearer reader-token"); code != http.StatusOK {
		t.Fatalf("cached: %d", code)
	}
	f.expectCalls(t, "within both TTLs", 1, 1)

	f.advance(time.Second) // the token's answer expires, the allowance not yet
	f.do("GET", "Bearer reader-token")
	f.expectCalls(t, "at the authentication TTL", 2, 1)

	f.advance(AllowedTTL - AuthenticatedTTL)
	f.do("GET", "Bearer reader-token")
	f.expectCalls(t, "at the allowance TTL", 3, 2)
}

func TestRevokedPermissionIsForbiddenOnceTheAllowanceExpires(t *testing.T) {
	f := newFixture()
	f.do("GET", "Bearer reader-token")
	f.api.set(func() { f.api.allowed = map[string]bool{} })
	f.advance(AllowedTTL - time.Second)
	if code, _ := f.do("GET", "Bearer reader-token"); code != http.StatusOK {
		t.Fatalf("within the cached allowance: %d", code)
	}
	f.advance(time.Second)
	if code, _ := f.do("GET", "Bearer reader-token"); code != http.StatusForbidden {
		t.Fatalf("after the allowance TTL, with the permission revoked: %d", code)
	}
}

func TestDeniedTokenIsForbiddenAndTheDenialCachedForItsTTL(t *testing.T) {
	f := newFixture()
	code, body := f.do("GET", "Bearer other-token")
	if code != http.StatusForbidden || !strings.Contains(body, "system:serviceaccount:default:other") {
		t.Fatalf("token without the permission: %d %q", code, body)
	}
	f.api.set(func() { f.api.allowed["system:serviceaccount:default:other"] = true })
	f.advance(DeniedTTL - time.Second)
	if code, _ := f.do("GET", "Bearer other-token"); code != http.StatusForbidden {
		t.Fatalf("within the denial's TTL: %d", code)
	}
	f.expectCalls(t, "within the denial's TTL", 1, 1)
	f.advance(time.Second)
	if code, _ := f.do("GET", "Bearer other-token"); code != http.StatusOK {
		t.Fatalf("after the denial's TTL, with the permission granted: %d", code)
	}
	f.expectCalls(t, "after the denial's TTL", 1, 2)
}

func TestVerbIsTheLowerCaseMethodAndEachIsReviewed(t *testing.T) {
	f := newFixture()
	if code, _ := f.do("POST", "Bearer reader-token"); code != http.StatusForbidden {
		t.Fatalf("POST: %d", code)
	}
	if v := f.api.lastAccess.NonResourceAttributes.Verb; v != "post" {
		t.Fatalf("verb %q", v)
	}
	if code, _ := f.do("GET", "Bearer reader-token"); code != http.StatusOK {
		t.Fatalf("GET after a denied POST: %d", code)
	}
	f.expectCalls(t, "POST then GET", 1, 2)
}

func TestUnknownTokenIsUnauthorizedAndTheRefusalCachedForItsTTL(t *testing.T) {
	f := newFixture()
	if code, _ := f.do("GET", "Bearer forged"); code != http.StatusUnauthorized {
		t.Fatalf("unknown token: %d", code)
	}
	f.advance(UnauthenticatedTTL - time.Second)
	f.do("GET", "Bearer forged")
	f.expectCalls(t, "within the refusal's TTL", 1, 0)
	f.advance(time.Second)
	f.do("GET", "Bearer forged")
	f.expectCalls(t, "after the refusal's TTL", 2, 0)
}

func TestFailedReviewsAreServerErrorsAndNotCached(t *testing.T) {
	f := newFixture()
	down := errors.New("connection refused")
	f.api.set(func() { f.api.tokenErr = down })
	if code, _ := f.do("GET", "Bearer reader-token"); code != http.StatusInternalServerError {
		t.Fatalf("TokenReview failing: %d", code)
	}
	f.api.set(func() { f.api.tokenErr, f.api.accessErr = nil, down })
	if code, _ := f.do("GET", "Bearer reader-token"); code != http.StatusInternalServerError {
		t.Fatalf("SubjectAccessReview failing: %d", code)
	}
	f.expectCalls(t, "two failures", 2, 1)
	f.api.set(func() { f.api.accessErr = nil })
	if code, _ := f.do("GET", "Bearer reader-token"); code != http.StatusOK {
		t.Fatalf("once the apiserver answers: %d", code)
	}
	f.expectCalls(t, "after the failures", 2, 2)
}

func TestGroupOrderDoesNotMissTheCache(t *testing.T) {
	a, err := decisionKey(authorizationv1.SubjectAccessReviewSpec{User: "u", Groups: []string{"a", "b"},
		Extra: map[string]authorizationv1.ExtraValue{"k": {"2", "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := decisionKey(authorizationv1.SubjectAccessReviewSpec{User: "u", Groups: []string{"b", "a"},
		Extra: map[string]authorizationv1.ExtraValue{"k": {"1", "2"}}})
	c, _ := decisionKey(authorizationv1.SubjectAccessReviewSpec{User: "u", Groups: []string{"a"}})
	if a != b || a == c {
		t.Fatalf("keys: %s, %s, %s", a, b, c)
	}
}

func TestConcurrentRequests(t *testing.T) {
	f := newFixture()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			token := []string{"reader-token", "other-token", "forged"}[i%3]
			want := []int{http.StatusOK, http.StatusForbidden, http.StatusUnauthorized}[i%3]
			for range 20 {
				if code, _ := f.do("GET", "Bearer "+token); code != want {
					t.Errorf("%s: %d, want %d", token, code, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
