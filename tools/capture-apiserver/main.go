// Command capture-apiserver records what a real kube-apiserver serves about
// its APIs, for fakeapiserver to embed: the legacy discovery document of
// every group-version, /openapi/v2, every /openapi/v3 document and the
// bootstrap RBAC policy the server creates at start (rbac.go). Each is
// written gzip-compressed (no name, no time: the output is reproducible)
// under -out, replacing what is there.
//
// Run it through capture.sh, which starts tools/realapiserver (kube-apiserver
// v1.37.2 over etcd) and points -kubeconfig at it:
//
//	sh tools/capture-apiserver/capture.sh   # or: make capture-apiserver
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the kube-apiserver to capture (required)")
	out := flag.String("out", "fakeapiserver/internal/captured", "directory to write into")
	flag.Parse()
	if *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "capture-apiserver: -kubeconfig is required")
		os.Exit(2)
	}
	if err := run(*kubeconfig, *out); err != nil {
		fmt.Fprintln(os.Stderr, "capture-apiserver:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, out string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS = -1
	c := &capturer{cfg: cfg, out: out}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := os.RemoveAll(filepath.Join(out, "openapi-v3")); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "openapi-v3"), 0o755); err != nil {
		return err
	}
	if err := c.discovery(ctx); err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	v2, err := c.get(ctx, "/openapi/v2", "application/json")
	if err != nil {
		return fmt.Errorf("openapi v2: %w", err)
	}
	if err := c.write("openapi-v2.json.gz", v2); err != nil {
		return err
	}
	if err := c.bootstrapRBAC(ctx); err != nil {
		return fmt.Errorf("bootstrap rbac: %w", err)
	}
	return c.openAPIV3(ctx)
}

// capturer fetches documents from one server and writes them under out.
type capturer struct {
	cfg *rest.Config
	out string
}

// get fetches a path with an Accept header.
func (c *capturer) get(ctx context.Context, path, accept string) ([]byte, error) {
	rc, err := rest.UnversionedRESTClientFor(withNegotiation(c.cfg))
	if err != nil {
		return nil, err
	}
	return rc.Get().AbsPath(path).SetHeader("Accept", accept).DoRaw(ctx)
}

// withNegotiation gives a copy of cfg the serializers an unversioned REST
// client needs.
func withNegotiation(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	if cfg.NegotiatedSerializer == nil {
		cfg.NegotiatedSerializer = noNegotiation{}
	}
	return cfg
}

// discovery writes discovery.json.gz: a JSON array of the legacy
// APIResourceList of every group-version, core first then as /apis lists
// them, each as the server wrote it (re-indented).
func (c *capturer) discovery(ctx context.Context) error {
	var paths []string
	raw, err := c.get(ctx, "/api", "application/json")
	if err != nil {
		return err
	}
	var core metav1.APIVersions
	if err := json.Unmarshal(raw, &core); err != nil {
		return err
	}
	for _, v := range core.Versions {
		paths = append(paths, "/api/"+v)
	}
	raw, err = c.get(ctx, "/apis", "application/json")
	if err != nil {
		return err
	}
	var groups metav1.APIGroupList
	if err := json.Unmarshal(raw, &groups); err != nil {
		return err
	}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			paths = append(paths, "/apis/"+v.GroupVersion)
		}
	}
	lists := make([]json.RawMessage, 0, len(paths))
	for _, p := range paths {
		raw, err := c.get(ctx, p, "application/json")
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		lists = append(lists, raw)
	}
	doc, err := json.MarshalIndent(lists, "", "  ")
	if err != nil {
		return err
	}
	return c.write("discovery.json.gz", doc)
}

// openAPIV3 writes every document the /openapi/v3 root lists, named by its
// path with "/" written as "__" (as kubernetes api/openapi-spec/v3 names
// them).
func (c *capturer) openAPIV3(ctx context.Context) error {
	raw, err := c.get(ctx, "/openapi/v3", "application/json")
	if err != nil {
		return err
	}
	var root struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &root); err != nil {
		return err
	}
	keys := make([]string, 0, len(root.Paths))
	for k := range root.Paths {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, p := range keys {
		u, err := url.Parse(root.Paths[p].ServerRelativeURL)
		if err != nil {
			return err
		}
		doc, err := c.get(ctx, u.Path, "application/json")
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		name := filepath.Join("openapi-v3", strings.ReplaceAll(p, "/", "__")+".json.gz")
		if err := c.write(name, doc); err != nil {
			return err
		}
	}
	return nil
}

// write gzips body into out/name.
func (c *capturer) write(name string, body []byte) error {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(body); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.out, name), buf.Bytes(), 0o644)
}
