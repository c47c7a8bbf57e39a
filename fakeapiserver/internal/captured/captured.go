// Package captured holds what kube-apiserver v1.37.2 itself serves about
// its APIs, recorded by tools/capture-apiserver (see README.md): the legacy
// discovery document of every group-version it serves by default,
// /openapi/v2, every /openapi/v3 document, and the bootstrap RBAC policy it
// creates at start. The files are embedded in
// the binary; each read decompresses one (callers decode once per process:
// the data is immutable).
package captured

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// openAPIV3Dir holds kube-apiserver's /openapi/v3 documents, one file per
// path with "/" written as "__".
const openAPIV3Dir = "openapi-v3"

//go:embed *.json.gz openapi-v3/*.json.gz
var files embed.FS

// Discovery returns the captured discovery: a JSON array of
// APIResourceList, one per served group-version.
func Discovery() ([]byte, error) { return read("discovery.json.gz") }

// RBACBootstrap returns the bootstrap RBAC policy: a JSON object whose
// "clusterroles", "clusterrolebindings", "roles" and "rolebindings" are
// arrays of the objects kube-apiserver creates at start, each with its
// kind and apiVersion and without the metadata a create assigns.
func RBACBootstrap() ([]byte, error) { return read("rbac-bootstrap.json.gz") }

// OpenAPIV2 returns the captured /openapi/v2 document (JSON).
func OpenAPIV2() ([]byte, error) { return read("openapi-v2.json.gz") }

// OpenAPIV3Paths lists the captured /openapi/v3 paths ("api", "api/v1",
// "apis/apps", ...), each readable with [OpenAPIV3].
func OpenAPIV3Paths() ([]string, error) {
	names, err := fs.Glob(files, openAPIV3Dir+"/*.json.gz")
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(names))
	for _, name := range names {
		paths = append(paths, strings.ReplaceAll(strings.TrimSuffix(path.Base(name), ".json.gz"), "__", "/"))
	}
	return paths, nil
}

// OpenAPIV3 returns the /openapi/v3/<p> document exactly as kube-apiserver
// served it, so hashes and ETags agree with it.
func OpenAPIV3(p string) ([]byte, error) {
	return read(openAPIV3Dir + "/" + strings.ReplaceAll(p, "/", "__") + ".json.gz")
}

// read decompresses one embedded file, surrounding white space trimmed.
func read(name string) ([]byte, error) {
	f, err := files.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("captured: %s: %w", name, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("captured: %s: %w", name, err)
	}
	return bytes.TrimSpace(raw), nil
}
