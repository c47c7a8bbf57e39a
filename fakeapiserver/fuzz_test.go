package fakeapiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/lw-sim/lw-sim/internal/malformed"
)

// The fuzz targets drive the server's handler in process (real routing,
// negotiation, decoding and store, no sockets, so each input costs
// microseconds) and check what every answer must be, whatever the input:
// no panic, a status code HTTP allows, and for a JSON error answer a
// Status whose code is the HTTP code. `make fuzz` runs each for FUZZTIME;
// plain `go test` replays the seeds below and testdata/fuzz.

// fuzzFixture is the malformed-request corpus's fixture on fuzzServer's
// objects: its requests are seeds of every target here (issue 21).
var fuzzFixture = malformed.Fixture{Namespace: "default", ConfigMap: "cm", Pod: "p", Deployment: "d"}

// corpusSeeds calls add once for each distinct seed the corpus's requests
// give through seed, which returns false for a request it has none for.
func corpusSeeds[K comparable](seed func(malformed.Request) (K, bool), add func(K)) {
	seen := map[K]bool{}
	for _, r := range malformed.Corpus(fuzzFixture) {
		if k, ok := seed(r); ok && !seen[k] {
			seen[k] = true
			add(k)
		}
	}
}

// fuzzServer is a server with one ConfigMap, default/cm, to read and patch.
func fuzzServer(f *testing.F) *Server {
	f.Helper()
	srv := Start(f)
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"a":"b"}},"data":{"k":"v"}}`
	if r := fuzzDo(f, srv, http.MethodPost, cmPath, "application/json", []byte(body)); r.Code != http.StatusCreated {
		f.Fatalf("seed ConfigMap: %d %s", r.Code, r.Body)
	}
	return srv
}

// fuzzDo serves one request in process, under a context that is already
// done, so that nothing an input asks for can wait on the wall clock: a
// watch validates, writes its headers and ends at once, and a read of a
// resourceVersion the store has not reached answers its 504 at once
// instead of after freshnessTimeout. Why every request and not only
// those that look like a watch: "w%61tch=1" is a watch too, and a LIST
// at resourceVersion=7 waited 3 s per path, stalling the fuzzer past
// -fuzztime (CI failed with "context deadline exceeded").
func fuzzDo(tb testing.TB, srv *Server, method, target, contentType string, body []byte) (rec *httptest.ResponseRecorder) {
	tb.Helper()
	req := httptest.NewRequest(method, "http://127.0.0.1"+target, bytes.NewReader(body))
	ctx, cancel := context.WithCancel(req.Context())
	cancel()
	req = req.WithContext(ctx)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec = httptest.NewRecorder()
	defer func() {
		// An abort is an answer: the real server's "none at all" (net/http
		// closes the connection without logging); any other panic is not.
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler { //nolint:errorlint // net/http compares the sentinel itself
				panic(p)
			}
			rec.Code = codeAborted
		}
	}()
	srv.Handler().ServeHTTP(rec, req)
	return rec
}

// codeAborted is fuzzDo's status for a request the server aborted with
// http.ErrAbortHandler: no answer, as kube-apiserver gives to a JSON patch
// whose test op has no value.
const codeAborted = -1

// checkAnswer fails unless rec is a well-formed answer: a status code
// between 200 and 599, and for a JSON error, a Status with that code.
func checkAnswer(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code == codeAborted {
		return
	}
	if rec.Code < 200 || rec.Code > 599 {
		t.Fatalf("%s: status %d", what, rec.Code)
	}
	if rec.Code < 400 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		return
	}
	var st struct {
		Kind string `json:"kind"`
		Code int    `json:"code"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
		t.Fatalf("%s: %d with a body that is not JSON: %v: %q", what, rec.Code, err, rec.Body.Bytes())
	}
	if st.Kind != "Status" || st.Code != rec.Code {
		t.Fatalf("%s: %d answered with kind %q code %d: %s", what, rec.Code, st.Kind, st.Code, rec.Body.Bytes())
	}
}

// FuzzContinueToken: any continue token (with any limit) is a page or the
// real server's 400/410, never a panic or a malformed answer.
func FuzzContinueToken(f *testing.F) {
	srv := fuzzServer(f)
	for _, s := range []string{"", "x", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJjbVx1MDAwMCJ9",
		"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiLi4vIn0", "e30", "bnVsbA"} {
		f.Add(s, "1")
	}
	f.Fuzz(func(t *testing.T, token, limit string) {
		q := url.Values{"continue": {token}, "limit": {limit}}
		checkAnswer(t, "list ?"+q.Encode(), fuzzDo(t, srv, http.MethodGet, cmPath+"?"+q.Encode(), "", nil))
	})
}

// FuzzRequestPath: any method and path is routed to an answer.
func FuzzRequestPath(f *testing.F) {
	srv := fuzzServer(f)
	for _, s := range []string{"/api/v1/namespaces/default/configmaps/cm", "/apis/apps/v1/deployments", "/api/v1/watch/namespaces/default/pods",
		"/api/v1/namespaces/default/pods/p/status", "/openapi/v3/api/v1", "/readyz/ping", "//api//v1/", "/api/v1/namespaces/default/configmaps/cm/x/y",
		"/apis", "/version", "/api/v1/namespaces/%2e%2e/configmaps"} {
		f.Add(http.MethodGet, s)
	}
	f.Add(http.MethodDelete, "/api/v1/namespaces/default/configmaps")
	type methodPath struct{ method, path string }
	corpusSeeds(func(r malformed.Request) (methodPath, bool) { return methodPath{r.Method, r.Path}, true },
		func(s methodPath) { f.Add(s.method, s.path) })
	f.Fuzz(func(t *testing.T, method, path string) {
		if !validMethod(method) || !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \t\r\n#?") {
			return // not an HTTP request line net/http would accept
		}
		u, err := url.Parse(path)
		if err != nil {
			return
		}
		checkAnswer(t, method+" "+path, fuzzDo(t, srv, method, u.EscapedPath(), "application/json", nil))
	})
}

// validMethod reports whether m is an HTTP token net/http accepts.
func validMethod(m string) bool {
	if m == "" || len(m) > 16 {
		return false
	}
	for _, c := range m {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// FuzzListWatchOptions: any query on a LIST or WATCH (selectors,
// resourceVersion and its match, limits, timeouts, watch-list flags).
func FuzzListWatchOptions(f *testing.F) {
	srv := fuzzServer(f)
	for _, s := range []string{"labelSelector=a%3Db", "fieldSelector=metadata.name%3Dcm", "resourceVersion=0&resourceVersionMatch=NotOlderThan",
		"watch=1&resourceVersion=1", "watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan",
		"limit=-1", "timeoutSeconds=-5", "labelSelector=a+in+(b,c),!d", "fieldSelector=spec.x%3D1", "resourceVersion=99999999999999999999",
		"resourceVersion=7&resourceVersionMatch=NotOlderThan", "w%61tch=1"} {
		f.Add(s)
	}
	corpusSeeds(func(r malformed.Request) (string, bool) { return r.Query, r.Method == http.MethodGet && r.Query != "" }, func(q string) { f.Add(q) })
	f.Fuzz(func(t *testing.T, query string) {
		if _, err := url.Parse(cmPath + "?" + query); err != nil || strings.ContainsAny(query, " #") {
			return // not a request line net/http would accept
		}
		for _, p := range []string{cmPath, "/api/v1/pods"} {
			checkAnswer(t, "GET "+p+"?"+query, fuzzDo(t, srv, http.MethodGet, p+"?"+query, "", nil))
		}
	})
}

// fuzzContentTypes are the body media types: each codec the server has,
// and some it must refuse.
var fuzzContentTypes = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf", "application/cbor", "text/plain", ""}

// FuzzWriteBody: any body of any content type for a create or an update.
func FuzzWriteBody(f *testing.F) {
	srv := fuzzServer(f)
	for i, b := range []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`,
		`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","resourceVersion":"1"}}`, "k8s\x00\n\x0f\n\x02v1\x12\tConfigMap", "[[[[", "\xa1\x61\x61\x01"} {
		f.Add(uint8(i), true, []byte(b))
	}
	type writeSeed struct {
		ct     uint8
		create bool
		body   string
	}
	corpusSeeds(func(r malformed.Request) (writeSeed, bool) {
		create := r.Method == http.MethodPost && r.Path == cmPath
		update := r.Method == http.MethodPut && r.Path == cmPath+"/cm"
		return writeSeed{contentTypeIndex(r.ContentType, fuzzContentTypes), create, string(r.Body)}, create || update
	}, func(s writeSeed) { f.Add(s.ct, s.create, []byte(s.body)) })
	f.Fuzz(func(t *testing.T, ct uint8, create bool, body []byte) {
		contentType := fuzzContentTypes[int(ct)%len(fuzzContentTypes)]
		method, path := http.MethodPut, cmPath+"/cm"
		if create {
			method, path = http.MethodPost, cmPath
		}
		checkAnswer(t, method+" "+contentType, fuzzDo(t, srv, method, path, contentType, body))
	})
}

// fuzzPatchTypes are the PATCH media types.
var fuzzPatchTypes = []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml", "application/json"}

// FuzzPatch: any patch of any patch type applied to default/cm, its status
// subresource-less path included; an accepted patch leaves a ConfigMap
// that reads back.
func FuzzPatch(f *testing.F) {
	srv := fuzzServer(f)
	for i, p := range []string{`[{"op":"add","path":"/data/x","value":"y"}]`, `{"data":{"k":null}}`, `{"metadata":{"labels":{"$patch":"replace"}}}`,
		`[{"op":"copy","from":"/data","path":"/data/z"}]`, `{"metadata":{"resourceVersion":"1"}}`, `[{"op":"move","from":"/metadata","path":"/metadata/x"}]`,
		`{"$setElementOrder/data":[]}`} {
		f.Add(uint8(i%3), []byte(p))
	}
	type patchSeed struct {
		pt    uint8
		patch string
	}
	corpusSeeds(func(r malformed.Request) (patchSeed, bool) {
		return patchSeed{contentTypeIndex(r.ContentType, fuzzPatchTypes), string(r.Body)}, r.Method == http.MethodPatch && r.Path == cmPath+"/cm"
	}, func(s patchSeed) { f.Add(s.pt, []byte(s.patch)) })
	f.Fuzz(func(t *testing.T, pt uint8, patch []byte) {
		contentType := fuzzPatchTypes[int(pt)%len(fuzzPatchTypes)]
		rec := fuzzDo(t, srv, http.MethodPatch, cmPath+"/cm", contentType, patch)
		checkAnswer(t, "PATCH "+contentType+" "+string(patch), rec)
		if rec.Code != http.StatusOK {
			return
		}
		if got := fuzzDo(t, srv, http.MethodGet, cmPath+"/cm", "", nil); got.Code != http.StatusOK {
			t.Fatalf("GET after an accepted patch = %d %s", got.Code, got.Body.Bytes())
		}
	})
}

// contentTypeIndex is the index of ct among types, as the targets draw a
// content type; 0 (the first) for one not among them.
func contentTypeIndex(ct string, types []string) uint8 {
	for i, t := range types {
		if t == ct {
			return uint8(i)
		}
	}
	return 0
}
