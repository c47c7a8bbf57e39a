package fakeapiserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"pgregory.net/rapid"
	sigsyaml "sigs.k8s.io/yaml"
)

// aliasedString is a YAML ConfigMap whose unknown field x holds one string
// of size bytes and n aliases of it: issue 21's amplification.
func aliasedString(size, n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: amp\nx: [&s " + strings.Repeat("x", size))
	for range n {
		b.WriteString(",*s")
	}
	b.WriteString("]\n")
	return []byte(b.String())
}

// TestCheckYAMLExpansion: the bounds refuse what aliases amplify, and
// nothing an alias-free body within the size limit can be; bombs go-yaml
// refuses itself are left to it.
func TestCheckYAMLExpansion(t *testing.T) {
	t.Parallel()
	const limit = defaultMaxRequestBodyBytes
	wideSeq := "x: &s [" + strings.Repeat("1,", 999) + "1]\ny: [" + strings.Repeat("*s,", 9999) + "*s]\n"
	tests := []struct {
		name    string
		body    []byte
		refused bool
		reason  string
	}{
		{name: "1 MB aliased 1000 times", body: aliasedString(1<<20, 1000), refused: true, reason: "1 GB of JSON from a 1 MB body"},
		{name: "100 KB aliased 200 times", body: aliasedString(100<<10, 200), reason: "20 MB: within 24 MiB, as kube-apiserver accepts it"},
		{name: "wide sequence aliased", body: []byte(wideSeq), reason: "go-yaml refuses it: 99.9% of its 10 M nodes are aliased"},
		{name: "billion laughs", body: []byte(string(yamlBomb())), reason: "go-yaml refuses it as excessive aliasing"},
		{name: "alias inside its anchor", body: []byte("x: &a [*a]\n"), reason: "go-yaml refuses it"},
		{name: "flow map of < keys", body: []byte("{" + distinctKeys(limit/2) + "}"), reason: "alias-free: 7x as JSON, within 8x"},
		{name: "flow sequence of ones", body: []byte("[" + strings.Repeat("1,", limit/2-1) + "1]"), reason: "alias-free: 1.5 M nodes"},
		{name: "not YAML", body: []byte("{[")},
	}
	for _, tt := range tests {
		err := checkYAMLExpansion(tt.body, limit)
		if got := err != nil; got != tt.refused {
			t.Errorf("checkYAMLExpansion(%s) = %v, want refused %v (%s)", tt.name, err, tt.refused, tt.reason)
		}
		if err != nil && !apierrors.IsRequestEntityTooLargeError(err) {
			t.Errorf("checkYAMLExpansion(%s) = %v, want a 413", tt.name, err)
		}
	}
}

// distinctKeys is a flow map's content of about n bytes: one-rune keys,
// all distinct, most of them runes JSON escapes.
func distinctKeys(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "<%d", i)
	}
	return b.String()
}

// yamlBomb is a billion laughs: 9 levels of 9 aliases.
func yamlBomb() []byte {
	var b strings.Builder
	b.WriteString(`a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 8; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.Repeat(p+",", 8)+p)
	}
	return []byte(b.String())
}

// TestYAMLExpansionMatchesDecoder is a property over random documents with
// anchors and aliases (chains of up to 8 levels, up to 12 aliases each,
// nested sequences and maps): the walk predicts go-yaml v2's "excessive
// aliasing" exactly, and for every document go-yaml decodes, the measured
// size is an upper bound of the JSON sigs.k8s.io/yaml makes of it.
func TestYAMLExpansionMatchesDecoder(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		doc := yamlDocGen().Draw(t, "doc")
		var v any
		decodeErr := yamlv2.Unmarshal([]byte(doc), &v)
		w, size, ok := measureYAML([]byte(doc))
		if !ok {
			t.Skip("does not parse, or an alias inside its anchor")
		}
		refused := w.refusedByDecoder(w.root)
		gotExcessive := decodeErr != nil && strings.Contains(decodeErr.Error(), "excessive aliasing")
		if refused != gotExcessive {
			t.Fatalf("refusedByDecoder = %v, go-yaml: %v\n%s", refused, decodeErr, doc)
		}
		if decodeErr != nil {
			return
		}
		js, err := sigsyaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Skipf("YAMLToJSON: %v", err)
		}
		if int64(len(js)) > size.bytes {
			t.Fatalf("measured %d bytes, JSON is %d\n%s\n%s", size.bytes, len(js), doc, js)
		}
	})
}

// yamlDocGen draws a YAML document: a mapping of anchored values, each a
// sequence of aliases of the previous one (a "billion laughs" level), or a
// scalar, a sequence or a map whose items may alias earlier anchors.
func yamlDocGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		var b strings.Builder
		levels := rapid.IntRange(1, 8).Draw(t, "levels")
		for i := range levels {
			fmt.Fprintf(&b, "k%d: &a%d ", i, i)
			if i > 0 && rapid.Bool().Draw(t, "laughs") {
				n := rapid.IntRange(1, 12).Draw(t, "aliases")
				b.WriteString("[" + strings.Repeat(fmt.Sprintf("*a%d,", i-1), n-1) + fmt.Sprintf("*a%d]\n", i-1))
				continue
			}
			writeYAMLValue(t, &b, i, 2)
			b.WriteString("\n")
		}
		return b.String()
	})
}

// writeYAMLValue writes a flow value that may alias anchors a0..a{anchors-1}
// (but not at the top, where the value is itself anchored: "&a *b" is no
// YAML).
func writeYAMLValue(t *rapid.T, b *strings.Builder, anchors, depth int) {
	kind := rapid.IntRange(0, 3).Draw(t, "kind")
	if kind == 1 && depth == 2 {
		kind = 2
	}
	switch {
	case kind == 0 || depth == 0:
		b.WriteString(rapid.SampledFrom([]string{"x", `"<&>"`, `"q\"uote"`, "12", "~", "true", "é", `"\u2028"`}).Draw(t, "scalar"))
	case kind == 1 && anchors > 0:
		fmt.Fprintf(b, "*a%d ", rapid.IntRange(0, anchors-1).Draw(t, "alias")) // a space ends the alias name
	case kind == 2:
		n := rapid.IntRange(0, 12).Draw(t, "items")
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			writeYAMLValue(t, b, anchors, depth-1)
		}
		b.WriteString("]")
	default:
		n := rapid.IntRange(0, 4).Draw(t, "keys")
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(b, "m%d: ", i)
			writeYAMLValue(t, b, anchors, depth-1)
		}
		b.WriteString("}")
	}
}

// TestYAMLAliasAmplificationRefused (issue 21): through HTTP, the 1 MB
// string aliased 1 000 times is a 413 on create, update, apply and a
// DELETE's options, at once, and nothing is written; 100 KB aliased 200
// times in an unknown field is created, as on kube-apiserver.
func TestYAMLAliasAmplificationRefused(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	const cms = "/api/v1/namespaces/default/configmaps"
	yamlHeader := []string{"Content-Type", "application/yaml"}
	if r := doWrite(t, srv, http.MethodPost, cms, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"amp"}}`)); r.code != http.StatusCreated {
		t.Fatalf("seed: %d %s", r.code, r.body)
	}
	before := srv.store.CurrentRV()
	bomb := aliasedString(1<<20, 1000)
	for _, tc := range []struct {
		method, path string
		header       []string
	}{
		{http.MethodPost, cms, yamlHeader},
		{http.MethodPut, cms + "/amp", yamlHeader},
		{http.MethodPatch, cms + "/amp?fieldManager=m", []string{"Content-Type", "application/apply-patch+yaml"}},
		{http.MethodDelete, cms + "/amp", yamlHeader},
	} {
		r := doWrite(t, srv, tc.method, tc.path, bomb, tc.header...)
		st := r.status(t)
		if r.code != http.StatusRequestEntityTooLarge || !strings.Contains(st.Message, "YAML aliases expand the body past") {
			t.Errorf("%s %s with 1 GB of aliases = %d %q, want the 413", tc.method, tc.path, r.code, st.Message)
		}
	}
	if after := srv.store.CurrentRV(); after != before {
		t.Errorf("refused writes moved the store from %d to %d", before, after)
	}
	small := []byte(strings.Replace(string(aliasedString(100<<10, 200)), "name: amp", "name: amp2", 1))
	if r := doWrite(t, srv, http.MethodPost, cms, small, yamlHeader...); r.code != http.StatusCreated {
		t.Errorf("create with 20 MB of aliases = %d %s, want 201 as kube-apiserver", r.code, r.body)
	}
}
