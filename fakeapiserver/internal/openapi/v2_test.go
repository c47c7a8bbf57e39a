package openapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/NYTimes/gziphandler"
	"github.com/google/go-cmp/cmp"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/utils/clock"
)

const (
	protoV2           = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	protoV2Deprecated = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// v2Request is one request of the parity tests.
type v2Request struct {
	name   string
	method string
	header map[string]string
}

// v2Requests are the requests whose answers must equal kube-openapi's
// handler's: each media type with and without gzip, content negotiation,
// HEAD, ranges and the conditional GETs. etag is the document's quoted
// ETag. Few are gzipped: the reference compresses megabytes for each, a
// few seconds under -race.
func v2Requests(etag string, proto bool) []v2Request {
	rs := []v2Request{
		{"json gzip", http.MethodGet, map[string]string{"Accept": "application/json", "Accept-Encoding": "gzip"}},
		{"no Accept", http.MethodGet, nil},
		{"406", http.MethodGet, map[string]string{"Accept": "text/plain", "Accept-Encoding": "gzip"}},
		{"json If-None-Match", http.MethodGet, map[string]string{"Accept": "application/json", "Accept-Encoding": "gzip", "If-None-Match": etag}},
		{"json If-Match other", http.MethodGet, map[string]string{"Accept": "application/json", "Accept-Encoding": "gzip", "If-Match": `"other"`}},
	}
	if !proto {
		return rs
	}
	return append(rs,
		v2Request{"proto (kubectl)", http.MethodGet, map[string]string{"Accept": protoV2Deprecated, "Accept-Encoding": "gzip"}},
		v2Request{"proto identity", http.MethodGet, map[string]string{"Accept": protoV2}},
		v2Request{"proto first by q", http.MethodGet, map[string]string{"Accept": "application/json;q=0.5, " + protoV2, "Accept-Encoding": "gzip;q=0"}},
		v2Request{"proto HEAD gzip", http.MethodHead, map[string]string{"Accept": protoV2, "Accept-Encoding": "gzip"}},
		v2Request{"proto range gzip", http.MethodGet, map[string]string{"Accept": protoV2, "Accept-Encoding": "gzip", "Range": "bytes=100-5099"}},
		v2Request{"proto If-None-Match", http.MethodGet, map[string]string{"Accept": protoV2Deprecated, "Accept-Encoding": "gzip", "If-None-Match": etag}},
		v2Request{"proto If-None-Match other", http.MethodGet, map[string]string{"Accept": protoV2Deprecated, "If-None-Match": `"other"`}},
	)
}

// v2Answer is what a parity test compares: the status, the headers but
// Last-Modified (kube-openapi's handler takes it from time.Now when it
// encodes, a server from its clock; checkV2Parity checks both have one or
// neither) and the body, decompressed (gzip streams are compared too).
type v2Answer struct {
	Code         int
	Header       http.Header
	Body         []byte
	LastModified bool
}

// answerV2 sends one request to h.
func answerV2(t *testing.T, h http.Handler, req v2Request) (v2Answer, []byte) {
	t.Helper()
	r := httptest.NewRequest(req.method, v2Path, nil)
	for k, v := range req.header {
		r.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	header := rec.Result().Header
	a := v2Answer{Code: rec.Code, Header: header, Body: rec.Body.Bytes(), LastModified: header.Get("Last-Modified") != ""}
	header.Del("Last-Modified")
	wire := a.Body
	if header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(wire))
		if err != nil {
			t.Fatalf("%s: gzip: %v", req.name, err)
		}
		if a.Body, err = io.ReadAll(zr); err != nil {
			t.Fatalf("%s: gunzip: %v", req.name, err)
		}
	}
	return a, wire
}

// checkV2Parity sends every request to the service and to kube-openapi's
// handler (behind kube-apiserver's Cache-Control filter) serving the
// document the service composes the slow way, and compares the answers.
func checkV2Parity(t *testing.T, svc *Service, proto bool) {
	t.Helper()
	sw, err := composeV2(maps.Clone(svc.v2Parts))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	handler.NewOpenAPIService(sw).RegisterOpenAPIVersionedService(v2Path, mux)
	// kube-apiserver's WithCacheControl filter runs before the handler.
	ref := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache, private")
		mux.ServeHTTP(w, r)
	})
	etag := httptest.NewRecorder()
	ref.ServeHTTP(etag, httptest.NewRequest(http.MethodGet, v2Path, nil))
	served := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { svc.Serve(w, r) })
	for _, req := range v2Requests(etag.Header().Get("Etag"), proto) {
		want, wantWire := answerV2(t, ref, req)
		got, gotWire := answerV2(t, served, req)
		if diff := cmp.Diff(want, got, cmp.Comparer(bytes.Equal)); diff != "" {
			t.Errorf("%s: answer differs from kube-openapi's handler's (-want +got):\n%s", req.name, diff)
		}
		if !bytes.Equal(gotWire, wantWire) {
			t.Errorf("%s: gzip stream of %d bytes, kube-openapi's handler's %d bytes (same content: %v)", req.name, len(gotWire), len(wantWire), bytes.Equal(got.Body, want.Body))
		}
	}
}

// prebuiltGroupVersions are the group-versions of the prebuilt document.
func prebuiltGroupVersions(t *testing.T) []schema.GroupVersion {
	t.Helper()
	m, err := prebuiltManifest()
	if err != nil {
		t.Fatal(err)
	}
	var gvs []schema.GroupVersion
	for _, s := range m.GroupVersions {
		gv, err := schema.ParseGroupVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		gvs = append(gvs, gv)
	}
	return gvs
}

// noGenerate fails the test if a group-version has no captured document.
func noGenerate(t *testing.T) func(schema.GroupVersion) *spec3.OpenAPI {
	return func(gv schema.GroupVersion) *spec3.OpenAPI {
		t.Errorf("%v has no captured document", gv)
		return newOpenAPISpec()
	}
}

// TestV2PrebuiltServed checks that a service of the prebuilt composition
// serves the prebuilt document (not one it composes) and that every answer
// equals, byte for byte, kube-openapi's handler's over the document
// composed the slow way: so the prebuilt document is not stale (a change
// of the captured document, of the composition or of kube-openapi shows
// here; fakeapiserver's TestOpenAPIV2Prebuilt checks its group-versions
// are the default ones; `go generate ./fakeapiserver` rewrites it).
func TestV2PrebuiltServed(t *testing.T) {
	t.Parallel()
	svc, err := NewService(clock.RealClock{}, prebuiltGroupVersions(t), noGenerate(t))
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := svc.v2.Get()
	if err != nil {
		t.Fatal(err)
	}
	got, gotErr := doc.proto.gzip()
	want, wantErr := prebuiltProto.gzip()
	if gotErr != nil || wantErr != nil || len(got) == 0 || &got[0] != &want[0] {
		t.Errorf("the service of the prebuilt group-versions does not serve the prebuilt protobuf (%v, %v)", gotErr, wantErr)
	}
	checkV2Parity(t, svc, true)
	if t.Failed() {
		t.Log("if the answers differ, the prebuilt /openapi/v2 is stale: run go generate ./fakeapiserver")
	}
}

// TestV2ComposedParity checks the lazy path: a composition with a
// generated group-version is composed and answered as kube-openapi's
// handler answers (its protobuf is kube-openapi's own conversion; the
// JSON forms are compared).
func TestV2ComposedParity(t *testing.T) {
	t.Parallel()
	gv := batchv1beta1.SchemeGroupVersion
	cronJobs := fakeResource{gvr: gv.WithResource("cronjobs"), kind: "CronJob", namespaced: true, status: true,
		newObj: func() runtime.Object { return &batchv1beta1.CronJob{} }, newList: func() runtime.Object { return &batchv1beta1.CronJobList{} }}
	svc, err := NewService(clock.RealClock{}, append(prebuiltGroupVersions(t), gv), func(got schema.GroupVersion) *spec3.OpenAPI {
		return Generate(got, []Resource{cronJobs})
	})
	if err != nil {
		t.Fatal(err)
	}
	checkV2Parity(t, svc, false)
}

// TestGzipResponseWriter: both of gziphandler's writers (with and without
// CloseNotify, as the server's writer has it or not) are recognised, so a
// client that accepts gzip gets the compressed form made once.
func TestGzipResponseWriter(t *testing.T) {
	var seen []bool
	h := gziphandler.GzipHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		seen = append(seen, gzipResponseWriter(w) != nil)
	}))
	for _, w := range []http.ResponseWriter{httptest.NewRecorder(), closeNotifier{httptest.NewRecorder()}} {
		r := httptest.NewRequest(http.MethodGet, v2Path, nil)
		r.Header.Set("Accept-Encoding", "gzip")
		h.ServeHTTP(w, r)
	}
	if want := []bool{true, true}; !cmp.Equal(seen, want) {
		t.Errorf("gzip writer recognised = %v, want %v", seen, want)
	}
}

// closeNotifier is a ResponseWriter with CloseNotify, as net/http's.
type closeNotifier struct{ *httptest.ResponseRecorder }

// CloseNotify never fires.
func (closeNotifier) CloseNotify() <-chan bool { return nil }
