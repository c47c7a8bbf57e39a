package conformance

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Target is a server the cases run against.
type Target interface {
	// Name identifies the target in test output, e.g. "fake" or "real".
	Name() string
	// RESTConfig returns a config with full (admin) rights on the server.
	// Cases copy it before changing it.
	RESTConfig() *rest.Config
}

// Compactor is the optional ability to compact the server's history: after
// Compact returns, reads that need a resourceVersion older than rv fail as
// the real server fails them once etcd was compacted at rv and the watch
// cache noticed (410 Expired for exact LISTs and continue tokens).
type Compactor interface {
	Compact(ctx context.Context, rv int64) error
}

// Clock is the optional ability to move the server's clock forward. Only a
// fake has it; cases that wait for server-side timers (watch timeouts,
// bookmarks, the 3 s freshness wait) advance it instead of sleeping when the
// target implements Clock.
type Clock interface {
	Advance(d time.Duration)
}

// HistoryForgetter is the optional ability to make the server forget its
// watch history: once ForgetHistory returns, a watch from an RV written
// before the call is "too old" (the in-stream ERROR 410). The real server
// does this when its kube-apiserver restarts over the same etcd (the watch
// cache re-lists at etcd's current revision: storage/cacher/cacher.go
// startCaching, observed on v1.37.2); the fake when it is compacted at its
// current RV.
type HistoryForgetter interface {
	ForgetHistory(ctx context.Context) error
}

// ControllerRunner is the optional ability to run kube-controller-manager's
// controllers (by their --controllers names) against the server for a
// while: RunControllers starts them and returns the function that stops
// them, after which the server is a kube-apiserver alone again.
type ControllerRunner interface {
	RunControllers(ctx context.Context, names ...string) (stop func(), err error)
}

// KubeconfigTarget is a [Target] for any cluster reached through a
// kubeconfig file. The file is read again by every RESTConfig call, so a
// server that restarts with new credentials (tools/realapiserver) stays
// reachable.
type KubeconfigTarget struct {
	name string
	path string
	ca   *clientCA // nil: client certificates cannot be made
}

var _ Target = (*KubeconfigTarget)(nil)

// NewKubeconfigTarget loads the current context of the kubeconfig file.
func NewKubeconfigTarget(name, kubeconfig string) (*KubeconfigTarget, error) {
	if _, err := clientcmd.BuildConfigFromFlags("", kubeconfig); err != nil {
		return nil, fmt.Errorf("conformance: load kubeconfig %s: %w", kubeconfig, err)
	}
	return &KubeconfigTarget{name: name, path: kubeconfig}, nil
}

// Name implements [Target].
func (k *KubeconfigTarget) Name() string { return k.name }

// UseClientCA makes the target a [ClientCertIssuer] signing with the CA in
// certFile and keyFile (PEM), which the server trusts (tools/realapiserver
// writes client-ca.crt and client-ca.key).
func (k *KubeconfigTarget) UseClientCA(certFile, keyFile string) error {
	ca, err := loadClientCA(certFile, keyFile)
	if err != nil {
		return fmt.Errorf("conformance: client CA: %w", err)
	}
	k.ca = ca
	return nil
}

// IssueClientCert implements [ClientCertIssuer].
func (k *KubeconfigTarget) IssueClientCert(user string, groups ...string) ([]byte, []byte, error) {
	if k.ca == nil {
		return nil, nil, ErrNoClientCA
	}
	return k.ca.issue(user, groups, time.Time{})
}

// RESTConfig implements [Target].
// It panics if the file became unreadable, which only a broken setup does.
func (k *KubeconfigTarget) RESTConfig() *rest.Config {
	cfg, err := clientcmd.BuildConfigFromFlags("", k.path)
	if err != nil {
		panic(fmt.Sprintf("conformance: reload kubeconfig %s: %v", k.path, err))
	}
	return cfg
}

// ControlledTarget is a [KubeconfigTarget] whose server is tools/realapiserver,
// which offers etcd compaction on a loopback control endpoint.
type ControlledTarget struct {
	*KubeconfigTarget
	controlURL string
}

var (
	_ Target           = (*ControlledTarget)(nil)
	_ Compactor        = (*ControlledTarget)(nil)
	_ HistoryForgetter = (*ControlledTarget)(nil)
)

// NewControlledTarget wraps t with the control endpoint at controlURL (the
// content of realapiserver's control-url file).
func NewControlledTarget(t *KubeconfigTarget, controlURL string) *ControlledTarget {
	return &ControlledTarget{KubeconfigTarget: t, controlURL: strings.TrimSpace(controlURL)}
}

// Compact implements [Compactor]: realapiserver compacts etcd at rv the way
// the apiserver's own compactor does and returns once the watch cache has
// noticed (which takes up to its 15 s poll period).
func (c *ControlledTarget) Compact(ctx context.Context, rv int64) error {
	return c.post(ctx, "/compact?rv="+url.QueryEscape(strconv.FormatInt(rv, 10)))
}

// ForgetHistory implements [HistoryForgetter]: realapiserver restarts the
// kube-apiserver over the same etcd and rewrites the kubeconfig.
func (c *ControlledTarget) ForgetHistory(ctx context.Context) error {
	return c.post(ctx, "/restart")
}

// RunControllers implements [ControllerRunner]: realapiserver runs the real
// controllers in its process (tools/realapiserver/controllers.go).
func (c *ControlledTarget) RunControllers(ctx context.Context, names ...string) (func(), error) {
	stop := func() {
		for _, n := range names {
			_ = c.post(context.Background(), "/controllers/stop?name="+url.QueryEscape(n))
		}
	}
	for _, n := range names {
		if err := c.post(ctx, "/controllers/start?name="+url.QueryEscape(n)); err != nil {
			stop()
			return nil, err
		}
	}
	return stop, nil
}

// post calls the control endpoint.
func (c *ControlledTarget) post(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.controlURL+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("conformance: control %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("conformance: control %s: %s: %s", path, resp.Status, body)
	}
	return nil
}
