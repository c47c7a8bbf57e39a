package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// Target is one API server to measure.
type Target struct {
	// Name labels the target's column ("fake", "real").
	Name string
	// Config reaches the server; QPS must be unlimited (-1) for the
	// numbers to mean anything.
	Config *rest.Config
	// RSS, when set, reads the server's resident memory in bytes (0 when
	// it cannot): for [CompareScale]'s memory rows. For a fake in this
	// process it is [SelfRSS], which counts the clients too.
	RSS func() uint64
}

// clients are a target's HTTP client and typed clientset.
type clients struct {
	http *http.Client
	cs   kubernetes.Interface
	// csPlain is cs asking for Accept-Encoding: identity (list.go).
	csPlain kubernetes.Interface
	host    string
	// cfg is the typed clientsets' configuration (protobuf).
	cfg *rest.Config
	// acceptEncoding, when set, is the Accept-Encoding of get's requests;
	// unset, Go's transport asks for gzip (and decompresses), as it does
	// for client-go, and both servers gzip bodies over 128 KiB.
	acceptEncoding string
}

// newClients builds the clients of t, with protobuf bodies for the typed
// clientset as kubectl and controllers use.
func newClients(t Target) (*clients, error) {
	hc, err := rest.HTTPClientFor(t.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: http client: %w", t.Name, err)
	}
	cfg := rest.CopyConfig(t.Config)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("%s: clientset: %w", t.Name, err)
	}
	csPlain, err := kubernetes.NewForConfigAndClient(cfg, identityClient(hc))
	if err != nil {
		return nil, fmt.Errorf("%s: clientset: %w", t.Name, err)
	}
	return &clients{http: hc, cs: cs, csPlain: csPlain, host: t.Config.Host, cfg: cfg}, nil
}

// get sends GET path (with its query) accepting mediaType.
func (c *clients) get(ctx context.Context, path, mediaType string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.host+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", mediaType)
	if c.acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", c.acceptEncoding)
	}
	return c.http.Do(req)
}

// FromKubeconfig is the target named name that the kubeconfig file at path
// points at (its current context), with client-side rate limits off.
func FromKubeconfig(name, path string) (Target, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return Target{}, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	return Target{Name: name, Config: cfg}, nil
}

// Fake is an in-process fake API server serving on a loopback port.
type Fake struct {
	// Server is the fake; Target reaches it.
	Server *fakeapiserver.Server
	Target Target
	done   <-chan error
}

// StartFake starts a default fake on a free loopback port. The caller
// must Close it.
func StartFake() (*Fake, error) { return StartFakeConfig(fakeapiserver.Config{}) }

// StartFakeConfig starts a fake configured by cfg on a free loopback port.
// The caller must Close it.
func StartFakeConfig(cfg fakeapiserver.Config) (*Fake, error) {
	srv, err := fakeapiserver.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(fmt.Errorf("fake: listen: %w", err), srv.Close())
	}
	done := srv.ServeBackground(ln)
	return &Fake{Server: srv, Target: Target{Name: "fake", Config: srv.RESTConfig(), RSS: SelfRSS}, done: done}, nil
}

// Close stops the fake and waits for its serving goroutine.
func (f *Fake) Close() error {
	err := f.Server.Close()
	return errors.Join(err, <-f.done)
}
