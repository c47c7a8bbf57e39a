package malformed

import (
	"fmt"
	"net/http"
	"strings"
)

// Patch media types (apimachinery types.PatchType).
const (
	jsonPatch  = "application/json-patch+json"
	mergePatch = "application/merge-patch+json"
	smpPatch   = "application/strategic-merge-patch+json"
	applyYAML  = "application/apply-patch+yaml"
)

// patchBodies are bad patches of each type for the fixture ConfigMap.
func patchBodies(f Fixture) map[string][]string {
	tooMany := "[" + strings.Repeat(`{"op":"test","path":"/kind","value":"ConfigMap"},`, 10000) + `{"op":"test","path":"/kind","value":"ConfigMap"}]`
	return map[string][]string{
		jsonPatch: {"", "null", "{}", "[]", "[", `[{}]`, `[{"op":"foo","path":"/data"}]`, `[{"op":"add"}]`,
			`[{"op":"add","path":"data/x","value":"1"}]`, `[{"op":"add","path":"/data/x"}]`,
			`[{"op":"test","path":"/data/k","value":"nope"}]`, `[{"op":"remove","path":"/metadata/name"}]`,
			`[{"op":"remove","path":"/data/nosuch"}]`, `[{"op":"replace","path":"/metadata/resourceVersion","value":"abc"}]`,
			`[{"op":"replace","path":"/metadata/name","value":"b"}]`, `[{"op":"copy","from":"/nosuch","path":"/data/x"}]`,
			`[{"op":"move","from":"/data","path":"/data/x"}]`, `[{"op":"add","path":"/metadata/finalizers/-","value":"x"}]`,
			`[{"op":"add","path":"/data/~2","value":"1"}]`, `[{"op":"add","path":"/data/k/x","value":"1"}]`,
			`[{"op":"replace","path":"/kind","value":"Pod"}]`, `[{"op":"replace","path":"/apiVersion","value":"v2"}]`,
			`[{"op":"add","path":"/data/x","value":1}]`, `[{"op":"add","path":"/metadata/labels/x","value":"` + strings.Repeat("v", 64) + `"}]`,
			`[{"op":"add","path":"/nosuch","value":1}]`, tooMany,
			// Ops without a value: upstream's json-patch (the real server's
			// too) dereferences the missing value and panics (fuzz-found).
			`[{"op":"test","path":""}]`, `[{"op":"test","path":"","value":null}]`, `[{"op":"test","path":"/data"}]`,
			`[{"op":"test","path":"/data","value":null}]`, `[{"op":"test","path":"/data/k"}]`,
			`[{"op":"replace","path":""}]`, `[{"op":"replace","path":"","value":null}]`, `[{"op":"add","path":""}]`,
			`[{"op":"replace","path":"/data"}]`, `[{"op":"test","path":"/metadata/finalizers","value":[null]}]`,
			`[{"op":"test","path":"","value":[null]}]`, `[{"op":"move","from":"","path":""}]`, `[{"op":"copy","from":"","path":"/data/x"}]`},
		mergePatch: {"", "null", "[]", `"x"`, "1", "{", `{"metadata":{"name":"b"}}`, `{"metadata":{"namespace":"` + Missing + `"}}`,
			`{"metadata":{"resourceVersion":"abc"}}`, `{"metadata":{"resourceVersion":"9223372036854775808"}}`,
			`{"metadata":{"uid":"00000000-0000-0000-0000-000000000000"}}`, `{"data":{"k":1}}`, `{"data":1}`, `{"kind":"Pod"}`,
			`{"apiVersion":"v2"}`, `{"nosuch":1}`, `{"data":{"k":"a"},"data":{"k":"b"}}`, `{"metadata":{"labels":{"a/b/c":"x"}}}`},
		smpPatch: {"", "null", "[]", "{", `{"$patch":"delete"}`, `{"$patch":"replace"}`, `{"$patch":"foo"}`, `{"data":{"$patch":"foo"}}`,
			`{"$retainKeys":["x"]}`, `{"$setElementOrder/data":"x"}`, `{"metadata":{"labels":{"$patch":"delete"}}}`,
			`{"metadata":{"name":"b"}}`, `{"data":{"k":1}}`, `{"nosuch":1}`, `{"kind":"Pod"}`},
		applyYAML: {"", "null", "[]", "x", "{", "{}", "apiVersion: v1\nkind: ConfigMap\n",
			"apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + f.ConfigMap + "\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n",
			"apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: " + f.ConfigMap + "\n",
			"kind: ConfigMap\nmetadata:\n  name: " + f.ConfigMap + "\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + f.ConfigMap + "\ndata:\n  k: 1\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + f.ConfigMap + "\n  resourceVersion: abc\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + f.ConfigMap + "\nnosuch: 1\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + f.ConfigMap + "\n  managedFields: [{manager: x}]\n",
			string(yamlAliasBomb(f.ConfigMap)), string(yamlAliasWide(f.ConfigMap, 1024, 100))},
	}
}

// patchRequests are the bad patches of every type, an apply without a
// field manager, and strategic list directives on the fixture Pod's
// containers.
func patchRequests(f Fixture) []Request {
	var out []Request
	bodies := patchBodies(f)
	for _, ct := range []string{jsonPatch, mergePatch, smpPatch, applyYAML} {
		q := ""
		if ct == applyYAML {
			q = "fieldManager=corpus"
		}
		for i, b := range bodies[ct] {
			out = append(out, Request{Name: fmt.Sprintf("patch/%s/%02d", patchName(ct), i), Method: http.MethodPatch,
				Path: f.configMapItem(), Query: q, ContentType: ct, Body: []byte(b)})
		}
	}
	out = append(out, Request{Name: "patch/apply/no-field-manager", Method: http.MethodPatch, Path: f.configMapItem(),
		ContentType: applyYAML, Body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + f.ConfigMap + "\n")})
	for i, b := range []string{`{"spec":{"containers":[{"$patch":"delete"}]}}`, `{"spec":{"containers":[{"name":"c","$patch":"foo"}]}}`,
		`{"spec":{"$setElementOrder/containers":[{"name":"x"}]}}`, `{"spec":{"containers":"x"}}`,
		`{"spec":{"$retainKeys":"x"}}`, `{"spec":{"containers":[{"image":"x"}]}}`, `{"spec":{"$deleteFromPrimitiveList/finalizers":["x"]}}`} {
		out = append(out, Request{Name: fmt.Sprintf("patch/strategic-pod/%02d", i), Method: http.MethodPatch, Path: f.podItem(),
			ContentType: smpPatch, Body: []byte(b)})
	}
	return out
}

// patchName is a short name of a patch media type.
func patchName(ct string) string {
	switch ct {
	case jsonPatch:
		return "json"
	case mergePatch:
		return "merge"
	case smpPatch:
		return "strategic"
	}
	return "apply"
}
