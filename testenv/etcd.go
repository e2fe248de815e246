package testenv

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// compactRevKey is the etcd key through which kube-apiservers share the
// revision they compacted (k8s.io/apiserver/pkg/storage/etcd3/compact.go).
const compactRevKey = "compact_rev_key"

// CompactEtcd compacts etcd's history up to its current revision and returns
// the compaction revision R. kube-apiserver itself compacts every 5 minutes,
// keeping the last 5 minutes; this keeps nothing. Like the apiservers'
// compactor, it records R under "compact_rev_key", so kube-apiserver learns
// of it as if a peer apiserver had compacted.
//
// Afterwards every resourceVersion that was observed before the call, except
// the very latest one, is too old for etcd: a watch that etcd serves from such
// a resourceVersion fails with 410 Gone (the apiserver watches from RV+1,
// and etcd refuses start revisions below R).
//
// Which watches does etcd serve? With the watch cache disabled
// (Options.DisableWatchCache, or --watch-cache-sizes=<resource>#0 in
// Options.APIServerFlags), all of them. With the watch cache on (the default),
// kube-apiserver serves watches from the cache's own history of recent
// events, which compaction does not shorten: those keep working. To get 410
// Gone from the watch cache, restart the apiserver (RestartAPIServer): its
// new caches start from the current state.
//
// It talks to etcd's JSON gateway on EtcdURL, so the main module needs no
// etcd client.
func (e *Env) CompactEtcd(ctx context.Context) (revision int64, err error) {
	var rng struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	key := base64.StdEncoding.EncodeToString([]byte(compactRevKey))
	if err := e.etcdCall(ctx, "/v3/kv/range", map[string]any{"key": key}, &rng); err != nil {
		return 0, err
	}
	cur, err := strconv.ParseInt(rng.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("testenv: etcd range: bad revision %q", rng.Header.Revision)
	}
	// Writing the key makes a new revision, cur+1 (or later if someone else
	// writes at the same time); compact at cur+1, which then exists.
	revision = cur + 1
	val := base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(revision, 10)))
	if err := e.etcdCall(ctx, "/v3/kv/put", map[string]any{"key": key, "value": val}, nil); err != nil {
		return 0, err
	}
	if err := e.etcdCall(ctx, "/v3/kv/compaction", map[string]any{
		"revision": strconv.FormatInt(revision, 10),
		"physical": true,
	}, nil); err != nil {
		return 0, err
	}
	return revision, nil
}

// etcdCall POSTs a JSON request to etcd's grpc-gateway.
func (e *Env) etcdCall(ctx context.Context, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.etcdURL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.http.Do(req)
	if err != nil {
		return fmt.Errorf("testenv: etcd %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("testenv: etcd %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("testenv: etcd %s: %s: %s", path, resp.Status, bytes.TrimSpace(data))
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("testenv: etcd %s: %w", path, err)
		}
	}
	return nil
}
