package manager

import (
	"flag"
	"time"
)

// Options configure a Manager. AddFlags binds them to command-line flags
// with the defaults below.
type Options struct {
	// Kubeconfig is the path of a kubeconfig; empty means in-cluster, then
	// $KUBECONFIG, then ~/.kube/config.
	Kubeconfig string
	// Controllers selects the registered controllers to run: "*" for all
	// that are on by default, "foo" to add one, "-foo" to remove one.
	Controllers []string
	// Workers is the number of concurrent reconciles per controller.
	Workers int
	// Resync is the informers' default resync period; zero means none.
	Resync time.Duration

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
}
