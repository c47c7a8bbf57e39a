package malformed

import (
	"net/http"
	"strconv"
	"strings"
)

// acceptHeaders are Accept headers a GET and a LIST are tried with:
// formats no route produces, bad parameters, zero weights, Table requests
// without or with a wrong group and version, streams where there is none.
var acceptHeaders = []string{"text/html", "application/xml", "application/json;q=0", "application/json;q=abc", ",", ";",
	"application/json;as=Table", "application/json;as=Table;v=v1;g=meta.k8s.io;x=y", "application/json;as=Table;v=v2;g=meta.k8s.io",
	"application/json;as=Foo;v=v1;g=meta.k8s.io", "application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch",
	"application/yaml", "application/cbor", "*/*;q=0", "application/*", "text/*", "application/json, text/html;q=0.1",
	"application/json;charset=utf-16", "application/json;pretty=1"}

// acceptRequests are the Accept headers on a GET, a LIST and a WATCH.
func acceptRequests(f Fixture) []Request {
	var out []Request
	for _, a := range acceptHeaders {
		out = append(out,
			Request{Name: "accept/get/" + a, Method: http.MethodGet, Path: f.configMapItem(), Accept: a},
			Request{Name: "accept/list/" + a, Method: http.MethodGet, Path: f.core("configmaps"), Accept: a},
			Request{Name: "accept/watch/" + a, Method: http.MethodGet, Path: f.core("configmaps"), Query: "watch=1", Accept: a})
	}
	return out
}

// maxBodyBytes is kube-apiserver's request body limit (3 MiB,
// apiserver pkg/server/config.go MaxRequestBodyBytes).
const maxBodyBytes = 3 * 1024 * 1024

// sizeRequests are large bodies within what a CI run affords: one byte
// over the body limit on each write, exactly the limit, YAML aliases
// expanding to 2 and 32 MiB (which kube-apiserver stores, pruning the
// unknown field; lw-sim's decoding bound is 24 MiB), long labels,
// selectors and names.
func sizeRequests(f Fixture) []Request {
	over := []byte(strings.Repeat(" ", maxBodyBytes+1))
	exact := []byte(strings.Repeat(" ", maxBodyBytes))
	out := []Request{
		{Name: "size/create/over-limit", Method: http.MethodPost, Path: f.core("configmaps"), ContentType: "application/json", Body: over},
		{Name: "size/update/over-limit", Method: http.MethodPut, Path: f.configMapItem(), ContentType: "application/json", Body: over},
		{Name: "size/update/at-limit", Method: http.MethodPut, Path: f.configMapItem(), ContentType: "application/json", Body: exact},
		{Name: "size/patch/over-limit", Method: http.MethodPatch, Path: f.configMapItem(), ContentType: mergePatch, Body: over},
		{Name: "size/delete/over-limit", Method: http.MethodDelete, Path: f.configMapItem(), ContentType: "application/json", Body: over},
		{Name: "size/create/yaml-alias-2MiB", Method: http.MethodPost, Path: f.core("configmaps"), ContentType: "application/yaml",
			Body: yamlAliasWide(NewName, 64*1024, 32)},
		{Name: "size/update/yaml-alias-2MiB", Method: http.MethodPut, Path: f.configMapItem(), ContentType: "application/yaml",
			Body: yamlAliasWide(f.ConfigMap, 64*1024, 32)},
		{Name: "size/apply/yaml-alias-2MiB", Method: http.MethodPatch, Path: f.configMapItem(), Query: "fieldManager=corpus",
			ContentType: applyYAML, Body: yamlAliasWide(f.ConfigMap, 64*1024, 32)},
		{Name: "size/create/yaml-alias-32MiB", Method: http.MethodPost, Path: f.core("configmaps"), ContentType: "application/yaml",
			Body: yamlAliasWide(NewName, 1<<20, 31)},
		{Name: "size/create/data-1MiB", Method: http.MethodPost, Path: f.core("configmaps"), ContentType: "application/json",
			Body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + NewName + `"},"data":{"k":"` + strings.Repeat("x", 1<<20) + `"}}`)},
		{Name: "size/create/data-over-1MiB", Method: http.MethodPost, Path: f.core("configmaps"), ContentType: "application/json",
			Body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + NewName + `"},"data":{"k":"` + strings.Repeat("x", 1<<20+1) + `"}}`)},
		{Name: "size/create/many-keys", Method: http.MethodPost, Path: f.core("configmaps"), ContentType: "application/json",
			Body: manyKeys(NewName, 20000)},
		{Name: "size/list/long-label-selector", Method: http.MethodGet, Path: f.core("configmaps"),
			Query: "labelSelector=" + strings.Repeat("a", 8000) + "%3Db"},
		{Name: "size/get/long-name", Method: http.MethodGet, Path: f.core("configmaps") + "/" + strings.Repeat("n", 8000)},
		{Name: "size/list/many-params", Method: http.MethodGet, Path: f.core("configmaps"), Query: strings.Repeat("x=1&", 1000) + "limit=1"},
	}
	return out
}

// manyKeys is a ConfigMap with n data keys.
func manyKeys(name string, n int) []byte {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":"v"`)
	}
	b.WriteString("}}")
	return []byte(b.String())
}
