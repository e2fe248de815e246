//go:build ignore

package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// runEtcd runs a single-member embedded etcd until SIGTERM/SIGINT, then stops
// it cleanly. It prints "etcd ready" to stderr once the server serves clients.
func runEtcd(args []string) int {
	fs := flag.NewFlagSet("etcd", flag.ContinueOnError)
	var (
		name          = fs.String("name", "default", "member name")
		dataDir       = fs.String("data-dir", "", "data directory (required)")
		clientURL     = fs.String("listen-client-urls", "http://127.0.0.1:2379", "client URL to listen on (and advertise)")
		peerURL       = fs.String("listen-peer-urls", "http://127.0.0.1:2380", "peer URL to listen on (and advertise)")
		logLevel      = fs.String("log-level", "warn", "debug, info, warn, error, panic or fatal")
		noFsync       = fs.Bool("unsafe-no-fsync", false, "disable fsync (faster; data may be lost on a machine crash)")
		quota         = fs.Int64("quota-backend-bytes", 0, "backend size quota; 0 means etcd's default")
		progressEvery = fs.Duration("watch-progress-notify-interval", 0, "periodic watch progress notifications; 0 means etcd's default")
		readyTimeout  = fs.Duration("ready-timeout", 60*time.Second, "give up if the server isn't ready in this time")
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dataDir == "" {
		fmt.Fprintln(os.Stderr, "etcd: --data-dir is required")
		return 2
	}
	cu, err := url.Parse(*clientURL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "etcd: --listen-client-urls: %v\n", err)
		return 2
	}
	pu, err := url.Parse(*peerURL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "etcd: --listen-peer-urls: %v\n", err)
		return 2
	}

	cfg := embed.NewConfig()
	cfg.Name = *name
	cfg.Dir = *dataDir
	cfg.ListenClientUrls = []url.URL{*cu}
	cfg.AdvertiseClientUrls = []url.URL{*cu}
	cfg.ListenPeerUrls = []url.URL{*pu}
	cfg.AdvertisePeerUrls = []url.URL{*pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = *logLevel
	cfg.LogOutputs = []string{"stderr"}
	cfg.UnsafeNoFsync = *noFsync
	cfg.EnableGRPCGateway = true // testenv uses the JSON gateway (/v3/kv/...) for compaction
	if *quota > 0 {
		cfg.QuotaBackendBytes = *quota
	}
	if *progressEvery > 0 {
		cfg.WatchProgressNotifyInterval = *progressEvery
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "etcd: start: %v\n", err)
		return 1
	}
	// Close waits for clients' streams (kube-apiserver's watches) to end,
	// with timeouts of several seconds; don't wait that long.
	defer func() {
		closed := make(chan struct{})
		go func() { e.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(3 * time.Second):
			fmt.Fprintln(os.Stderr, "etcd: not closed after 3s, exiting anyway")
		}
	}()

	select {
	case <-e.Server.ReadyNotify():
		fmt.Fprintf(os.Stderr, "etcd ready: serving clients on %s\n", cu)
	case err := <-e.Err():
		fmt.Fprintf(os.Stderr, "etcd: %v\n", err)
		return 1
	case <-time.After(*readyTimeout):
		fmt.Fprintf(os.Stderr, "etcd: not ready after %v\n", *readyTimeout)
		e.Server.Stop()
		return 1
	case <-ctx.Done():
		return 0
	}

	select {
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "etcd: signal received, stopping")
		return 0 // the deferred e.Close() stops the server
	case err := <-e.Err():
		fmt.Fprintf(os.Stderr, "etcd: %v\n", err)
		return 1
	case <-e.Server.StopNotify():
		fmt.Fprintln(os.Stderr, "etcd: server stopped")
		return 1
	}
}
