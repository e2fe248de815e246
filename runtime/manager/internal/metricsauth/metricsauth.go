// Package metricsauth lets through to an HTTP handler only the requests
// whose bearer token the apiserver authenticates (TokenReview) and
// authorizes for the request's non-resource URL and verb
// (SubjectAccessReview), as controller-runtime's metrics filter and the
// kubelet do. Both answers are cached for a short time, so a scrape every
// few seconds costs the apiserver a review a minute or so.
package metricsauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/ctrlgen/ctrlgen/runtime/manager/internal/expirecache"
)

// How long answers are cached. A token the apiserver accepted is trusted
// for a minute (controller-runtime's metrics filter: one minute); a
// refused one is refused for 10 seconds (the apiserver's delegating
// authenticator default). An allowed request is allowed for 2 minutes, a
// denied one denied for 30 seconds (the kubelet's and the apiserver's
// authorization webhook keep denials 30 seconds; controller-runtime keeps
// an allowance 5 minutes): revoking a binding takes effect within 2
// minutes, granting one within 30 seconds.
const (
	AuthenticatedTTL   = time.Minute
	UnauthenticatedTTL = 10 * time.Second
	AllowedTTL         = 2 * time.Minute
	DeniedTTL          = 30 * time.Second
	// CacheSize bounds each cache; the least recently used answer goes
	// first.
	CacheSize = 1024
	// ReviewTimeout bounds one TokenReview or SubjectAccessReview.
	ReviewTimeout = 10 * time.Second
)

// TokenReviewer creates TokenReviews: client-go's
// AuthenticationV1().TokenReviews() is one.
type TokenReviewer interface {
	Create(ctx context.Context, review *authenticationv1.TokenReview, opts metav1.CreateOptions) (*authenticationv1.TokenReview, error)
}

// AccessReviewer creates SubjectAccessReviews: client-go's
// AuthorizationV1().SubjectAccessReviews() is one.
type AccessReviewer interface {
	Create(ctx context.Context, review *authorizationv1.SubjectAccessReview, opts metav1.CreateOptions) (*authorizationv1.SubjectAccessReview, error)
}

// Filter authenticates and authorizes requests. Make one with New.
type Filter struct {
	tokens    TokenReviewer
	access    AccessReviewer
	users     *expirecache.Cache[[sha256.Size]byte, user]
	decisions *expirecache.Cache[string, bool]
}

// user is what a TokenReview said about a token; name is empty when the
// token was refused.
type user struct {
	name, uid string
	groups    []string
	extra     map[string]authorizationv1.ExtraValue
}

// New returns a filter asking tokens and access, its caches timed by clk
// (nil: the real clock).
func New(tokens TokenReviewer, access AccessReviewer, clk clock.PassiveClock) *Filter {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Filter{
		tokens:    tokens,
		access:    access,
		users:     expirecache.New[[sha256.Size]byte, user](CacheSize, clk),
		decisions: expirecache.New[string, bool](CacheSize, clk),
	}
}

// Wrap returns next behind the filter: a request without a bearer token,
// or with one the apiserver does not authenticate, gets 401; one the
// apiserver does not allow the verb (the method in lower case, "get" for
// GET) on the path gets 403; a review that fails (the apiserver is
// unreachable, or refuses this process the review) gets 500 and is not
// cached.
func (f *Filter) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		logger := klog.FromContext(req.Context()).WithValues("path", req.URL.Path)
		token, ok := bearerToken(req)
		if !ok {
			unauthorized(w)
			return
		}
		u, err := f.authenticate(req.Context(), token)
		if err != nil {
			logger.Error(err, "Cannot authenticate a request")
			http.Error(w, "Authentication failed", http.StatusInternalServerError)
			return
		}
		if u.name == "" {
			unauthorized(w)
			return
		}
		verb := strings.ToLower(req.Method)
		allowed, err := f.authorize(req.Context(), u, verb, req.URL.Path)
		if err != nil {
			logger.Error(err, "Cannot authorize a request", "user", u.name)
			http.Error(w, "Authorization failed", http.StatusInternalServerError)
			return
		}
		if !allowed {
			logger.V(4).Info("Forbidden", "user", u.name, "verb", verb)
			http.Error(w, fmt.Sprintf("Forbidden: user %q may not %s %s", u.name, verb, req.URL.Path), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, req)
	})
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
	http.Error(w, "Unauthorized", http.StatusUnauthorized)
}

// bearerToken returns the token of an "Authorization: Bearer TOKEN" header.
func bearerToken(req *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "bearer") && token != ""
}

// authenticate returns who the token is; a zero user if the apiserver
// refused it. Tokens are cached by their SHA-256, never in the clear.
func (f *Filter) authenticate(ctx context.Context, token string) (user, error) {
	key := sha256.Sum256([]byte(token))
	if u, ok := f.users.Get(key); ok {
		return u, nil
	}
	ctx, cancel := context.WithTimeout(ctx, ReviewTimeout)
	defer cancel()
	review, err := f.tokens.Create(ctx, &authenticationv1.TokenReview{
		Spec: authenticationv1.TokenReviewSpec{Token: token},
	}, metav1.CreateOptions{})
	if err != nil {
		return user{}, fmt.Errorf("TokenReview: %w", err)
	}
	st := review.Status
	if !st.Authenticated || st.User.Username == "" {
		f.users.Add(key, user{}, UnauthenticatedTTL)
		return user{}, nil
	}
	u := user{name: st.User.Username, uid: st.User.UID, groups: st.User.Groups}
	if len(st.User.Extra) > 0 {
		u.extra = map[string]authorizationv1.ExtraValue{}
		for k, v := range st.User.Extra {
			u.extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	f.users.Add(key, u, AuthenticatedTTL)
	return u, nil
}

// authorize asks whether u may do verb on the non-resource URL path.
func (f *Filter) authorize(ctx context.Context, u user, verb, path string) (bool, error) {
	spec := authorizationv1.SubjectAccessReviewSpec{
		User:                  u.name,
		UID:                   u.uid,
		Groups:                u.groups,
		Extra:                 u.extra,
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb},
	}
	key, err := decisionKey(spec)
	if err != nil {
		return false, err
	}
	if allowed, ok := f.decisions.Get(key); ok {
		return allowed, nil
	}
	ctx, cancel := context.WithTimeout(ctx, ReviewTimeout)
	defer cancel()
	review, err := f.access.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("SubjectAccessReview: %w", err)
	}
	allowed := review.Status.Allowed && !review.Status.Denied
	ttl := DeniedTTL
	if allowed {
		ttl = AllowedTTL
	}
	f.decisions.Add(key, allowed, ttl)
	return allowed, nil
}

// decisionKey identifies a review's question: the same user (groups and
// extra in any order) asking the same thing.
func decisionKey(spec authorizationv1.SubjectAccessReviewSpec) (string, error) {
	spec.Groups = slices.Sorted(slices.Values(spec.Groups))
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range spec.Extra { // a copy: the cached user's map is shared
		extra[k] = slices.Sorted(slices.Values(v))
	}
	spec.Extra = extra
	b, err := json.Marshal(spec) // map keys are sorted
	return string(b), err
}
