package malformed

import (
	"net/http"
	"strings"
)

// contentTypes are Content-Type headers of a create and an update with a
// valid JSON body: misspelled, parameterised, wildcards, lists, other
// formats, patch types where no patch is expected.
var contentTypes = []string{"text/plain", "application/json; charset=utf-8", "application/json; charset=utf-16",
	"application/json;foo=bar", "application/JSON", "application/json, application/yaml", "application/*", "*/*",
	"application/json;;", "application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch",
	"application/cbor", "application/merge-patch+json", "application/apply-patch+yaml", "application/x-www-form-urlencoded",
	"multipart/form-data", "garbage", "application/yaml", "application/vnd.kubernetes.protobuf"}

// jsonBodies are bad JSON bodies of a ConfigMap create or update (name is
// the object's name): not an object, not JSON, another kind or version,
// names a path cannot carry, duplicate and unknown fields, wrong types,
// invalid UTF-8, numbers out of range, metadata the write may not set.
func jsonBodies(name string) []struct{ name, body string } {
	meta := `"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}`
	return []struct{ name, body string }{
		{"empty", ""}, {"null", "null"}, {"array", "[]"}, {"object", "{}"}, {"truncated", "{"}, {"two-objects", "{}{}"},
		{"trailing-garbage", "{" + meta + "} x"}, {"string", `"x"`}, {"number", "1"}, {"whitespace", " \n\t "},
		{"bom", "\ufeff{" + meta + "}"},
		{"other-kind", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"}}`},
		{"other-version", `{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`},
		{"other-group", `{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`},
		{"no-kind", `{"apiVersion":"v1","metadata":{"name":"` + name + `"}}`},
		{"no-apiversion", `{"kind":"ConfigMap","metadata":{"name":"` + name + `"}}`},
		{"kind-number", `{"apiVersion":"v1","kind":1,"metadata":{"name":"` + name + `"}}`},
		{"no-name", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`},
		{"name-dotdot", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":".."}}`},
		{"name-slash", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a/b"}}`},
		{"name-percent", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a%b"}}`},
		{"name-upper", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"A"}}`},
		{"name-long", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + strings.Repeat("a", 254) + `"}}`},
		{"name-number", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":1}}`},
		{"duplicate-field", `{` + meta + `,"data":{"k":"a"},"data":{"k":"b"}}`},
		{"unknown-field", `{` + meta + `,"nosuch":1}`},
		{"data-number", `{` + meta + `,"data":{"k":1}}`},
		{"data-null-value", `{` + meta + `,"data":{"k":null}}`},
		{"data-empty-key", `{` + meta + `,"data":{"":"v"}}`},
		{"data-bad-key", `{` + meta + `,"data":{"a/b":"v"}}`},
		{"invalid-utf8", "{" + meta + `,"data":{"k":"` + "\xff\xfe" + `"}}`},
		{"huge-number", `{` + meta + `,"nosuch":1e400}`},
		{"long-number", `{` + meta + `,"nosuch":` + strings.Repeat("9", 400) + `}`},
		{"namespace-other", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"` + Missing + `"}}`},
		{"rv-bad", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","resourceVersion":"abc"}}`},
		{"rv-overflow", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","resourceVersion":"9223372036854775808"}}`},
		{"rv-negative", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","resourceVersion":"-1"}}`},
		{"uid-other", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","uid":"00000000-0000-0000-0000-000000000000"}}`},
		{"generatename-long", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","generateName":"` + strings.Repeat("g", 300) + `"}}`},
		{"deep-100", `{` + meta + `,"nosuch":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`},
		{"deep-10001", `{` + meta + `,"nosuch":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`},
		{"deep-object-10001", `{` + meta + `,"nosuch":` + strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001) + `}`},
	}
}

// yamlBodies are YAML bodies of a create or update: several documents,
// tabs, tags, anchors that expand a little and a lot, keys that are not
// strings.
func yamlBodies(name string) []struct{ name, body string } {
	head := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
	return []struct{ name, body string }{
		{"two-documents", head + "---\n" + head},
		{"document-end", head + "...\n"},
		{"tab-indent", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: " + name + "\n"},
		{"binary-tag", head + "data:\n  k: !!binary aGVsbG8=\n"},
		{"int-key", head + "data:\n  1: v\n"},
		{"null-key", head + "data:\n  ~: v\n"},
		{"merge-key", head + "x: &x {k: v}\ndata:\n  <<: *x\n"},
		{"anchor-name", head + "data:\n  k: &v v\n  j: *v\n"},
		{"undefined-alias", head + "data:\n  k: *nosuch\n"},
		{"alias-bomb", string(yamlAliasBomb(name))},
		{"alias-wide", string(yamlAliasWide(name, 1024, 100))},
		{"deep-flow-10001", head + "x: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n"},
		{"json-in-yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`},
		{"not-a-map", "- a\n- b\n"},
		{"scalar", "x\n"},
	}
}

// yamlAliasBomb is a "billion laughs": aliases that expand 9^8 times in
// 600 bytes, which go-yaml refuses as excessive aliasing.
func yamlAliasBomb(name string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n")
	b.WriteString(`a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 8; i++ {
		p := "*a" + string(rune('0'+i-1))
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" + strings.Repeat(p+",", 8) + p + "]\n")
	}
	return []byte(b.String())
}

// yamlAliasWide is one string of size bytes aliased n times in one
// unknown field: few nodes (so go-yaml allows it), size × (n+1) bytes once
// expanded.
func yamlAliasWide(name string, size, n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n")
	b.WriteString("x: [&s " + strings.Repeat("x", size))
	for range n {
		b.WriteString(",*s")
	}
	b.WriteString("]\n")
	return []byte(b.String())
}

// protobufBodies are protobuf bodies: no envelope, an envelope with
// garbage, a truncated envelope, another kind, a length past the end.
var protobufBodies = []struct{ name, body string }{
	{"no-magic", "\x0a\x02v1"},
	{"magic-only", "k8s\x00"},
	{"magic-garbage", "k8s\x00\xff\xff\xff"},
	{"truncated-typemeta", "k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap"},
	{"other-kind", "k8s\x00\x0a\x09\x0a\x02v1\x12\x03Pod\x12\x00"},
	{"length-past-end", "k8s\x00\x0a\x0d\x0a\x02v1\x12\x09ConfigMap\x12\xff\xff\xff\xff\x0f"},
	{"empty-raw", "k8s\x00\x0a\x0d\x0a\x02v1\x12\x09ConfigMap\x12\x00"},
	{"raw-garbage", "k8s\x00\x0a\x0d\x0a\x02v1\x12\x09ConfigMap\x12\x03\xff\xff\xff"},
}

// bodyRequests are every content type and every bad body on a create and
// an update.
func bodyRequests(f Fixture) []Request {
	var out []Request
	targets := []struct{ name, method, path, objName string }{
		{"create", http.MethodPost, f.core("configmaps"), NewName},
		{"update", http.MethodPut, f.configMapItem(), f.ConfigMap},
	}
	for _, tg := range targets {
		for _, ct := range contentTypes {
			out = append(out, Request{Name: "body/" + tg.name + "/content-type=" + ct, Method: tg.method, Path: tg.path,
				ContentType: ct, Body: configMap(tg.objName)})
		}
		out = append(out, Request{Name: "body/" + tg.name + "/no-content-type", Method: tg.method, Path: tg.path, Body: configMap(tg.objName)})
		for _, b := range jsonBodies(tg.objName) {
			out = append(out, Request{Name: "body/" + tg.name + "/json/" + b.name, Method: tg.method, Path: tg.path,
				ContentType: "application/json", Body: []byte(b.body)})
		}
		for _, b := range yamlBodies(tg.objName) {
			out = append(out, Request{Name: "body/" + tg.name + "/yaml/" + b.name, Method: tg.method, Path: tg.path,
				ContentType: "application/yaml", Body: []byte(b.body)})
		}
		for _, b := range protobufBodies {
			out = append(out, Request{Name: "body/" + tg.name + "/protobuf/" + b.name, Method: tg.method, Path: tg.path,
				ContentType: "application/vnd.kubernetes.protobuf", Body: []byte(b.body)})
		}
	}
	for _, b := range []struct{ name, body string }{{"object", "{}"}, {"bad-json", "{"}, {"other-kind", `{"kind":"Pod","apiVersion":"v1"}`},
		{"preconditions-uid", `{"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}`},
		{"preconditions-rv-bad", `{"preconditions":{"resourceVersion":"abc"}}`},
		{"grace-negative", `{"gracePeriodSeconds":-5}`}, {"propagation-bad", `{"propagationPolicy":"Foo"}`},
		{"dryrun-bad", `{"dryRun":["Foo"]}`}, {"yaml-alias-bomb", string(yamlAliasBomb("x"))}} {
		ct := "application/json"
		if strings.HasPrefix(b.name, "yaml") {
			ct = "application/yaml"
		}
		out = append(out, Request{Name: "body/delete/" + b.name, Method: http.MethodDelete, Path: f.configMapItem(),
			ContentType: ct, Body: []byte(b.body)})
	}
	return out
}
