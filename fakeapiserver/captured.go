package fakeapiserver

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// capturedFS holds what kube-apiserver v1.37.2 itself serves about its APIs,
// recorded by tools/capture-apiserver (see captured/README.md): the legacy
// discovery document of every group-version it serves by default,
// /openapi/v2 and every /openapi/v3 document.
//
//go:embed captured/*.json.gz captured/openapi-v3/*.json.gz
var capturedFS embed.FS

// capturedDiscovery is the decoded captured discovery. It is package-level
// on purpose: immutable data derived from the binary, decoded once per
// process rather than once per server.
var capturedDiscovery = sync.OnceValues(loadCapturedDiscovery)

// builtinGroupVersion is kube-apiserver's discovery of one group-version:
// its top-level resources by plural and the subresources of each.
type builtinGroupVersion struct {
	resources    []metav1.APIResource
	subresources map[string][]metav1.APIResource // by parent plural, e.g. "pods" → pods/status, pods/log, ...
}

// loadCapturedDiscovery decodes captured/discovery.json.gz, a JSON array of
// APIResourceList.
func loadCapturedDiscovery() (map[schema.GroupVersion]*builtinGroupVersion, error) {
	raw, err := readCaptured("captured/discovery.json.gz")
	if err != nil {
		return nil, err
	}
	var lists []metav1.APIResourceList
	if err := json.Unmarshal(raw, &lists); err != nil {
		return nil, fmt.Errorf("fakeapiserver: captured discovery: %w", err)
	}
	out := make(map[schema.GroupVersion]*builtinGroupVersion, len(lists))
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, fmt.Errorf("fakeapiserver: captured discovery: %w", err)
		}
		b := &builtinGroupVersion{subresources: map[string][]metav1.APIResource{}}
		for _, r := range l.APIResources {
			if parent, _, ok := strings.Cut(r.Name, "/"); ok {
				b.subresources[parent] = append(b.subresources[parent], r)
				continue
			}
			b.resources = append(b.resources, r)
		}
		out[gv] = b
	}
	return out, nil
}

// readCaptured decompresses one embedded file.
func readCaptured(name string) ([]byte, error) {
	f, err := capturedFS.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: %s: %w", name, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: %s: %w", name, err)
	}
	return bytes.TrimSpace(raw), nil
}
