package manager

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
)

// Options configure a Manager. AddFlags binds them to command-line flags
// with the defaults below.
type Options struct {
	// Kubeconfig is the path of a kubeconfig; empty means in-cluster, then
	// $KUBECONFIG, then ~/.kube/config.
	Kubeconfig string
	// RESTConfig, when set, is the client configuration, instead of
	// Kubeconfig: testenv's Env.Config(), envtest's cfg. The manager uses
	// a copy, with QPS and Burst from these options.
	RESTConfig *rest.Config
	// Controllers selects the registered controllers to run: "*" for all
	// that are on by default, "foo" to add one, "-foo" to remove one.
	Controllers []string
	// Workers is the number of concurrent reconciles per controller.
	Workers int
	// Resync is the informers' default resync period; zero means none.
	Resync time.Duration

	// DefaultNamespaces limits the caches of namespaced resources to these
	// namespaces, as controller-runtime's cache.Options.DefaultNamespaces:
	// each resource's informer lists and watches each namespace, under one
	// cache, so a Role in each namespace is all the manager needs to read
	// them (see the rbac generator's --rbac-namespaces). A lister's Get in
	// another namespace is NotFound; List gives the union. Cluster-scoped
	// resources are cached whole. Empty: every namespace.
	DefaultNamespaces []string
	// DefaultLabelSelector limits every cache, namespaced or not, to the
	// objects whose labels match, as controller-runtime's
	// DefaultLabelSelector: the apiserver filters (ListOptions'
	// LabelSelector), so the others are neither sent nor cached. Objects a
	// controller owns must carry the labels too, or it does not see them.
	// Empty: every object.
	DefaultLabelSelector string

	// QPS and Burst bound the client's request rate. The defaults are sized
	// for controllers, not client-go's 5 and 10 for kubectl-like tools;
	// the apiserver's priority and fairness protects it from the rest.
	QPS   float32
	Burst int

	LeaderElect bool
	// LeaderElectionNamespace and LeaderElectionID name the Lease.
	LeaderElectionNamespace string
	LeaderElectionID        string
	LeaseDuration           time.Duration
	RenewDeadline           time.Duration
	RetryPeriod             time.Duration
	// ExitOnLostLease makes Run return an error when the lease is lost;
	// otherwise the controllers stop and the manager campaigns again, with
	// its caches kept warm.
	ExitOnLostLease bool

	// Shards, when above 0, splits every controller's keys into that many
	// buckets, each a Lease "<LeaderElectionID>-shard-<i>" in
	// LeaderElectionNamespace, and runs the controllers on every replica,
	// each reconciling the keys of the buckets it holds. The buckets take
	// the place of leader election (LeaderElect is not used), with its
	// lease timings.
	Shards int

	// MetricsAddr serves /metrics, HealthAddr /healthz and /readyz (plain
	// HTTP, for the kubelet's probes); empty turns a server off. They may
	// be the same address only when MetricsSecure is off.
	MetricsAddr string
	HealthAddr  string
	// MetricsSecure serves /metrics over HTTPS, and only to a bearer token
	// that the apiserver authenticates (a TokenReview) and allows to get
	// the /metrics non-resource URL (a SubjectAccessReview), as
	// controller-runtime's metrics server does: the manager's own
	// credentials must allow it to create both reviews. Off: plain HTTP,
	// to anyone, for local runs.
	MetricsSecure bool
	// MetricsCertDir holds the metrics server's certificate and key, PEM
	// files named MetricsCertName and MetricsCertKey, read again when they
	// change. Empty: a certificate made in memory and signed by itself.
	MetricsCertDir  string
	MetricsCertName string
	MetricsCertKey  string

	// WebhookAddr serves the registered webhooks (RegisterWebhook) over
	// HTTPS on every replica, leader or not, so that admission never
	// waits on an election; empty turns them off.
	WebhookAddr string
	// WebhookCertDir holds the webhook server's certificate and key, PEM
	// files named WebhookCertName and WebhookCertKey, read again when they
	// change: cert-manager's Secret mounted as kubebuilder mounts it.
	// Empty: the manager keeps its own CA and certificate in
	// WebhookSecret, renews them, and writes the CA bundle into the
	// webhook configurations and CRDs whose webhooks call WebhookService
	// or a URL on one of WebhookHosts.
	WebhookCertDir  string
	WebhookCertName string
	WebhookCertKey  string
	// WebhookSecret ("namespace/name", or a name in
	// LeaderElectionNamespace) holds the manager's own certificates.
	WebhookSecret string
	// WebhookService ("namespace/name", or a name in
	// LeaderElectionNamespace) is the Service in front of the webhook
	// server: the certificate is for its DNS names.
	WebhookService string
	// WebhookHosts are more DNS names and IP addresses for the
	// certificate, for webhooks called by URL.
	WebhookHosts []string
	// WebhookCAValidity and WebhookCertValidity are the lifetimes of the
	// manager's own CA and serving certificates; each is renewed when a
	// third of its life is left. WebhookCARotationGrace is how long a new
	// CA is trusted before it signs, and WebhookCertSyncPeriod how often
	// each replica reads the Secret and injects the bundle.
	WebhookCAValidity      time.Duration
	WebhookCertValidity    time.Duration
	WebhookCARotationGrace time.Duration
	WebhookCertSyncPeriod  time.Duration
}

// DefaultOptions are the defaults AddFlags sets.
func DefaultOptions() Options {
	return Options{
		Controllers:             []string{"*"},
		Workers:                 4,
		QPS:                     1000,
		Burst:                   2000,
		LeaderElect:             true,
		LeaderElectionNamespace: "default",
		LeaseDuration:           15 * time.Second,
		RenewDeadline:           10 * time.Second,
		RetryPeriod:             2 * time.Second,
		MetricsAddr:             ":8443",
		HealthAddr:              ":8081",
		MetricsSecure:           true,
		MetricsCertName:         "tls.crt",
		MetricsCertKey:          "tls.key",
		WebhookAddr:             ":9443",
		WebhookCertName:         "tls.crt",
		WebhookCertKey:          "tls.key",
		WebhookSecret:           "webhook-server-cert",
		WebhookService:          "webhook-service",
		WebhookCAValidity:       10 * 365 * 24 * time.Hour,
		WebhookCertValidity:     90 * 24 * time.Hour,
		WebhookCARotationGrace:  5 * time.Minute,
		WebhookCertSyncPeriod:   time.Minute,
	}
}

// AddFlags binds o to fs, with o's current values as defaults.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to a kubeconfig. Empty: in-cluster, then $KUBECONFIG, then ~/.kube/config.")
	fs.Func("controllers", `Controllers to run, comma-separated: "*" for all on by default, "foo" to add, "-foo" to remove (default "*").`, func(s string) error {
		o.Controllers = splitList(s)
		return nil
	})
	fs.IntVar(&o.Workers, "workers", o.Workers, "Concurrent reconciles per controller.")
	fs.DurationVar(&o.Resync, "resync", o.Resync, "Default informer resync period; 0 for none.")
	fs.Func("namespaces", "Cache namespaced resources of these namespaces only, comma-separated; a Role in each is then all the controllers need to read them (default: every namespace).", func(s string) error {
		namespaces := splitList(s)
		if err := validateNamespaces(namespaces); err != nil {
			return err
		}
		o.DefaultNamespaces = namespaces
		return nil
	})
	fs.Func("label-selector", "Cache only the objects whose labels match this selector (e.g. app=foo,tier!=cache), filtered by the apiserver, for every resource (default: every object).", func(s string) error {
		if err := validateLabelSelector(s); err != nil {
			return err
		}
		o.DefaultLabelSelector = s
		return nil
	})
	fs.Func("kube-api-qps", "Client requests per second to the apiserver (default 1000).", func(s string) error {
		return parseFloat32(s, &o.QPS)
	})
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "Client request burst to the apiserver.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "Run controllers only while holding the leader Lease.")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-elect-namespace", o.LeaderElectionNamespace, "Namespace of the leader Lease.")
	fs.StringVar(&o.LeaderElectionID, "leader-elect-id", o.LeaderElectionID, "Name of the leader Lease (default: the program's name).")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", o.LeaseDuration, "How long a lease is valid without renewal.")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", o.RenewDeadline, "How long the leader retries renewing before giving up.")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", o.RetryPeriod, "Wait between attempts to acquire or renew.")
	fs.BoolVar(&o.ExitOnLostLease, "exit-on-lost-lease", o.ExitOnLostLease, "Exit when the lease is lost instead of campaigning again.")
	fs.IntVar(&o.Shards, "shards", o.Shards, "Split the controllers' keys into this many buckets, each a Lease, and reconcile on every replica the keys of the buckets it holds, instead of leader election; 0: off.")
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", o.MetricsAddr, "Address of /metrics; empty to turn off.")
	fs.StringVar(&o.HealthAddr, "health-probe-bind-address", o.HealthAddr, "Address of /healthz and /readyz (plain HTTP); empty to turn off.")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure, "Serve /metrics over HTTPS to bearer tokens allowed to get /metrics (TokenReview, SubjectAccessReview); false: plain HTTP to anyone.")
	fs.StringVar(&o.MetricsCertDir, "metrics-cert-dir", o.MetricsCertDir, "Directory of the metrics server's PEM certificate and key, read again when they change; empty: a self-signed certificate made in memory.")
	fs.StringVar(&o.MetricsCertName, "metrics-cert-name", o.MetricsCertName, "File name of the certificate in --metrics-cert-dir.")
	fs.StringVar(&o.MetricsCertKey, "metrics-cert-key", o.MetricsCertKey, "File name of the key in --metrics-cert-dir.")
	fs.StringVar(&o.WebhookAddr, "webhook-bind-address", o.WebhookAddr, "Address of the webhook server (HTTPS, on every replica); empty to turn it off.")
	fs.StringVar(&o.WebhookCertDir, "webhook-cert-dir", o.WebhookCertDir, "Directory of the webhook server's PEM certificate and key (cert-manager's), read again when they change; empty: the manager's own CA and certificate, kept in --webhook-secret.")
	fs.StringVar(&o.WebhookCertName, "webhook-cert-name", o.WebhookCertName, "File name of the certificate in --webhook-cert-dir.")
	fs.StringVar(&o.WebhookCertKey, "webhook-cert-key", o.WebhookCertKey, "File name of the key in --webhook-cert-dir.")
	fs.StringVar(&o.WebhookSecret, "webhook-secret", o.WebhookSecret, "Secret (namespace/name, or a name in --leader-elect-namespace) holding the manager's own webhook certificates.")
	fs.StringVar(&o.WebhookService, "webhook-service", o.WebhookService, "Service (namespace/name, or a name in --leader-elect-namespace) in front of the webhook server; its webhooks get the CA bundle.")
	fs.Func("webhook-hosts", "More DNS names and IP addresses for the webhook certificate, comma-separated; webhooks called by a URL on one of them get the CA bundle.", func(s string) error {
		o.WebhookHosts = splitList(s)
		return nil
	})
	fs.DurationVar(&o.WebhookCAValidity, "webhook-ca-validity", o.WebhookCAValidity, "Lifetime of the manager's own webhook CA.")
	fs.DurationVar(&o.WebhookCertValidity, "webhook-cert-validity", o.WebhookCertValidity, "Lifetime of the manager's own webhook serving certificates.")
	fs.DurationVar(&o.WebhookCARotationGrace, "webhook-ca-rotation-grace", o.WebhookCARotationGrace, "How long a new webhook CA is trusted before it signs.")
	fs.DurationVar(&o.WebhookCertSyncPeriod, "webhook-cert-sync-period", o.WebhookCertSyncPeriod, "How often each replica reads the webhook certificates' Secret and injects the CA bundle.")
}

// validateScope checks DefaultNamespaces and DefaultLabelSelector.
func (o *Options) validateScope() error {
	if err := validateNamespaces(o.DefaultNamespaces); err != nil {
		return fmt.Errorf("namespaces: %w", err)
	}
	if err := validateLabelSelector(o.DefaultLabelSelector); err != nil {
		return fmt.Errorf("label selector: %w", err)
	}
	return nil
}

func validateNamespaces(namespaces []string) error {
	var errs []error
	for _, ns := range namespaces {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("%q is not a namespace name: %s", ns, strings.Join(msgs, "; ")))
		}
	}
	return errors.Join(errs...)
}

func validateLabelSelector(s string) error {
	if s == "" {
		return nil
	}
	if _, err := labels.Parse(s); err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	return nil
}

// scopable is what a generated informer factory (runtime/informers.Factory
// underneath) offers for the manager to limit it.
type scopable interface {
	Namespace() string
	SetNamespaces([]string)
	TweakListOptions() func(*metav1.ListOptions)
	SetTweakListOptions(func(*metav1.ListOptions))
}

// scope limits a new factory's informers to DefaultNamespaces and
// DefaultLabelSelector. A factory that cannot be limited, or one already
// limited to a namespace, is an error when there is something to limit.
func (o *Options) scope(f Factory) error {
	if len(o.DefaultNamespaces) == 0 && o.DefaultLabelSelector == "" {
		return nil
	}
	s, ok := f.(scopable)
	if !ok {
		return fmt.Errorf("a %T cannot be limited to namespaces or a label selector", f)
	}
	if len(o.DefaultNamespaces) > 0 {
		if ns := s.Namespace(); ns != metav1.NamespaceAll {
			return fmt.Errorf("the factory is already limited to namespace %q", ns)
		}
		s.SetNamespaces(o.DefaultNamespaces)
	}
	if sel := o.DefaultLabelSelector; sel != "" {
		prev := s.TweakListOptions()
		s.SetTweakListOptions(func(lo *metav1.ListOptions) {
			if prev != nil {
				prev(lo)
			}
			if lo.LabelSelector == "" {
				lo.LabelSelector = sel
			} else {
				lo.LabelSelector += "," + sel
			}
		})
	}
	return nil
}
