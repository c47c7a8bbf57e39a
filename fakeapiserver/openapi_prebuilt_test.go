package fakeapiserver

import (
	"bytes"
	"flag"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	internalopenapi "github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
)

var updateOpenAPIV2 = flag.Bool("update-openapi-v2", false, "rewrite internal/openapi/prebuilt from DefaultGroupVersions (go generate)")

// TestOpenAPIV2Prebuilt checks that the prebuilt /openapi/v2 document the
// binary carries is of DefaultGroupVersions and that a default server
// serves it, in both forms, with its ETag. (internal/openapi's
// TestV2PrebuiltServed checks that it is byte for byte what kube-openapi's
// handler serves for that composition.) With -update-openapi-v2 (go
// generate) it builds the document the slow way and rewrites it.
func TestOpenAPIV2Prebuilt(t *testing.T) {
	t.Parallel()
	if *updateOpenAPIV2 {
		doc, err := internalopenapi.BuildPrebuiltV2(DefaultGroupVersions)
		if err != nil {
			t.Fatalf("BuildPrebuiltV2: %v", err)
		}
		if err := doc.WriteTo("internal/openapi/prebuilt"); err != nil {
			t.Fatal(err)
		}
		return
	}
	doc, err := internalopenapi.EmbeddedPrebuiltV2()
	if err != nil {
		t.Fatalf("EmbeddedPrebuiltV2: %v", err)
	}
	var want []string
	for _, gv := range DefaultGroupVersions {
		want = append(want, gv.String())
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, doc.GroupVersions); diff != "" {
		t.Errorf("the prebuilt /openapi/v2 is not of DefaultGroupVersions: run go generate ./fakeapiserver; its group-versions (-want +got):\n%s", diff)
	}

	srv := Start(t)
	for _, f := range []struct{ accept, contentType string }{
		{"application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"},
		{"application/json", "application/json"},
	} {
		r := getRaw(t, srv, http.MethodGet, "/openapi/v2", map[string]string{"Accept": f.accept})
		if r.code != http.StatusOK || r.header.Get("Content-Type") != f.contentType || r.header.Get("Etag") != strconv.Quote(doc.ETag) {
			t.Errorf("GET /openapi/v2 (%s) = %d, Content-Type %q, ETag %q; want 200, %q, %q",
				f.accept, r.code, r.header.Get("Content-Type"), r.header.Get("Etag"), f.contentType, strconv.Quote(doc.ETag))
		}
		body := doc.JSON
		if f.contentType != "application/json" {
			body = doc.Protobuf
		}
		if !bytes.Equal(r.body, body) {
			t.Errorf("GET /openapi/v2 (%s) of a default server: %d bytes, not the prebuilt document's %d", f.accept, len(r.body), len(body))
		}
	}
}
