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

// KubeconfigTarget is a [Target] for any cluster reached through a
// kubeconfig file.
type KubeconfigTarget struct {
	name   string
	config *rest.Config
}

var _ Target = (*KubeconfigTarget)(nil)

// NewKubeconfigTarget loads the current context of the kubeconfig file.
func NewKubeconfigTarget(name, kubeconfig string) (*KubeconfigTarget, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("conformance: load kubeconfig %s: %w", kubeconfig, err)
	}
	return &KubeconfigTarget{name: name, config: cfg}, nil
}

// Name implements [Target].
func (k *KubeconfigTarget) Name() string { return k.name }

// RESTConfig implements [Target].
func (k *KubeconfigTarget) RESTConfig() *rest.Config { return rest.CopyConfig(k.config) }

// ControlledTarget is a [KubeconfigTarget] whose server is tools/realapiserver,
// which offers etcd compaction on a loopback control endpoint.
type ControlledTarget struct {
	*KubeconfigTarget
	controlURL string
}

var (
	_ Target    = (*ControlledTarget)(nil)
	_ Compactor = (*ControlledTarget)(nil)
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
	u := c.controlURL + "/compact?rv=" + url.QueryEscape(strconv.FormatInt(rv, 10))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("conformance: compact at %d: %w", rv, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("conformance: compact at %d: %s: %s", rv, resp.Status, body)
	}
	return nil
}
