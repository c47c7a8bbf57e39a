package kubewire

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/malformed"
)

// The fuzz targets check what must hold for any input; `make fuzz` runs
// each for FUZZTIME, plain `go test` replays the seeds.

// FuzzParsePath: any method, path and query parse without a panic into a
// RequestInfo whose fields are consistent with its Parts and whose verb is
// one RequestInfoFactory can give.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"/api/v1/namespaces/ns/pods/p/status", "/apis/apps/v1/watch/namespaces/ns/deployments",
		"/api/v1/proxy/nodes/n/x/y", "/api/v1/namespaces/ns/finalize", "/api/v1/watch", "//api//v1//", "/healthz"} {
		f.Add(http.MethodGet, s, "watch=true")
	}
	f.Add(http.MethodGet, "/api/v1/configmaps", "watch=False&fieldSelector=metadata.name%3Dcm&limit=2")
	f.Add(http.MethodDelete, "/api/v1/namespaces", "")
	// Issue 21's malformed-request corpus: every method, path and query,
	// the path decoded as the server reads it.
	seen := map[[3]string]bool{}
	for _, r := range malformed.Corpus(malformed.NewFixture("ns")) {
		path, err := url.PathUnescape(r.Path)
		if s := [3]string{r.Method, path, r.Query}; err == nil && !seen[s] {
			seen[s] = true
			f.Add(r.Method, path, r.Query)
		}
	}
	f.Fuzz(func(t *testing.T, method, path, rawQuery string) {
		query, _ := url.ParseQuery(rawQuery)
		r := &http.Request{Method: method, URL: &url.URL{Path: path, RawQuery: query.Encode()}}
		info, err := NewRequestInfo(r)
		parsed, perr := ParsePath(path)
		if (err == nil) != (perr == nil) {
			t.Fatalf("NewRequestInfo error %v, ParsePath error %v", err, perr)
		}
		parsed.Verb = info.Verb
		if parsed.Name == "" && (info.Verb == "list" || info.Verb == "watch") {
			parsed.Name = info.Name // from a field selector
		}
		if !cmp.Equal(parsed, info) {
			t.Fatalf("ParsePath(%q) = %+v, NewRequestInfo = %+v", path, parsed, info)
		}
		checkInfo(t, method, path, info, err)
		checkWatchParam(t, query)
	})
}

// checkWatchParam fails unless WatchParam agrees with ListOptions
// decoding wherever the query decodes, as collectionRead assumes.
func checkWatchParam(t *testing.T, query url.Values) {
	t.Helper()
	opts := metainternalversion.ListOptions{}
	err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &opts)
	if err == nil && opts.Watch != WatchParam(query) {
		t.Fatalf("query %v: ListOptions.Watch %v, WatchParam %v", query, opts.Watch, WatchParam(query))
	}
}

// checkInfo fails unless info is consistent: a resource request's
// resource, name and subresource are its parts, its verb is a Kubernetes
// verb; another request's verb is the lower-cased method.
func checkInfo(t *testing.T, method, path string, info RequestInfo, err error) {
	t.Helper()
	if err != nil || !info.IsResourceRequest {
		if info.Resource != "" || info.Name != "" || (err == nil && info.Verb != strings.ToLower(method)) {
			t.Fatalf("%s %q: non-resource request with %+v", method, path, info)
		}
		return
	}
	p := info.Parts
	wantName := info.Name // a list or watch may take it from a field selector
	if len(p) > 1 || (info.Verb != "list" && info.Verb != "watch") {
		wantName = ""
	}
	if len(p) > 1 {
		wantName = p[1]
	}
	if len(p) == 0 || info.Resource != p[0] || info.Name != wantName {
		t.Fatalf("%s %q: parts %q but resource %q name %q", method, path, p, info.Resource, info.Name)
	}
	if info.Subresource != "" && (len(p) < 3 || info.Subresource != p[2] || info.PathVerb == "proxy") {
		t.Fatalf("%s %q: parts %q but subresource %q", method, path, p, info.Subresource)
	}
	verbs := []string{"", "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "proxy"}
	if !slices.Contains(verbs, info.Verb) {
		t.Fatalf("%s %q: verb %q", method, path, info.Verb)
	}
	if strings.Join(SplitPath(path), "/") != strings.Trim(path, "/") {
		t.Fatalf("SplitPath(%q) = %q loses segments", path, SplitPath(path))
	}
}

// FuzzContinueCodec: a token EncodeContinue makes decodes to what it
// encodes, and any token decodes without a panic to a key under the
// prefix or to one of the real server's errors.
func FuzzContinueCodec(f *testing.F) {
	f.Add("t1/cm-b", "t1/", int64(76), true, observedToken)
	f.Add("t2/b", "t2/", int64(-1), false, observedExpiredToken)
	f.Add("a/../../x", "a/", int64(3), true, "e30")
	f.Fuzz(func(t *testing.T, last, prefix string, rv int64, withSlash bool, token string) {
		tok := EncodeContinue(last, prefix, rv, withSlash)
		c, err := ParseContinue(tok)
		if err != nil || c.RV != rv || c.Version != ContinueVersion {
			t.Fatalf("ParseContinue(EncodeContinue(%q, %q, %d)) = %+v, %v", last, prefix, rv, c, err)
		}
		rest := strings.TrimPrefix(last, prefix)
		want := rest + "\x00"
		if withSlash {
			want = "/" + want
		}
		// JSON carries valid UTF-8 only: the codec, like the server's,
		// replaces the rest. What is encoded is the key after the prefix,
		// which cutting a valid key can make invalid (prefix "\xe3" of
		// "ぁ" leaves "\x81\x81"; a real prefix ends in "/" and cannot).
		if utf8.ValidString(rest) && c.Start != want {
			t.Fatalf("token start %q, want %q (the key after %q under %q)", c.Start, want, last, prefix)
		}
		checkDecode(t, tok, prefix)
		checkDecode(t, token, prefix)
	})
}

// checkDecode fails unless DecodeContinue gives a key under prefix and a
// non-zero RV, or an error that wraps one of the server's four.
func checkDecode(t *testing.T, token, prefix string) {
	t.Helper()
	key, rv, err := DecodeContinue(token, prefix)
	if err != nil {
		for _, known := range []error{ErrGenericInvalidKey, ErrInvalidStartRV, ErrEmptyStartKey, ErrUnrecognizedEncodedVersion} {
			if errors.Is(err, known) {
				return
			}
		}
		t.Fatalf("DecodeContinue(%q): unknown error %v", token, err)
	}
	if rv == 0 || !strings.HasPrefix(key, prefix) || len(key) == len(prefix) {
		t.Fatalf("DecodeContinue(%q, %q) = %q, %d", token, prefix, key, rv)
	}
}
