package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// statusCase is one request whose whole Status answer is pinned byte for
// byte (decoded, then compared with go-cmp). reason says where the
// expectation comes from when it is not an observed body.
type statusCase struct {
	name   string
	method string
	path   string
	body   string
	header []string // extra header name/value pairs
	want   metav1.Status
	reason string
}

const (
	cmPath  = "/api/v1/namespaces/default/configmaps"
	podPath = "/api/v1/namespaces/default/pods"
	// invalidNameMsg is ValidateObjectMeta's message for Bad_Name [observed].
	invalidNameMsg = `Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
)

// runStatusCases sends each case to a fresh server holding configmap cm-a
// and compares the Status; it also checks that nothing was written.
func runStatusCases(t *testing.T, cases []statusCase, opts ...Option) {
	t.Helper()
	srv := Start(t, opts...)
	seed := doWrite(t, srv, http.MethodPost, cmPath, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-a"}}`))
	if seed.code != http.StatusCreated {
		t.Fatalf("seed configmap = %d %s", seed.code, seed.body)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.store.CurrentRV()
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			resp := doWrite(t, srv, tc.method, tc.path, body, tc.header...)
			if resp.code != int(tc.want.Code) {
				t.Errorf("%s %s code = %d, want %d (%s)", tc.method, tc.path, resp.code, tc.want.Code, resp.body)
			}
			if ct := resp.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s %s Content-Type = %q, want application/json", tc.method, tc.path, ct)
			}
			if diff := cmp.Diff(tc.want, resp.status(t)); diff != "" {
				t.Errorf("%s %s Status mismatch (-want +got):\n%s", tc.method, tc.path, diff)
			}
			if after := srv.store.CurrentRV(); after != before {
				t.Errorf("%s %s moved the store from rv %d to %d; a rejected write changes nothing", tc.method, tc.path, before, after)
			}
		})
	}
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	jsonCT := []string{"Content-Type", "application/json"}
	bad := func(msg string) metav1.Status { return wantFailure(400, metav1.StatusReasonBadRequest, msg, nil) }
	cases := []statusCase{
		{name: "malformed JSON", method: "POST", path: cmPath, body: `{"kind":`,
			want:   bad(`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input ({"kind":)`),
			reason: "handlers/rest.go transformDecodeError without a kind: summary is the body start"},
		{name: "malformed YAML", method: "POST", path: cmPath, body: "a: [b", header: []string{"Content-Type", "application/yaml"},
			want:   bad(`the object provided is unrecognized (must be of type ConfigMap): yaml: line 1: did not find expected ',' or ']' (613a205b62)`),
			reason: "a non-JSON body is summarised in hex"},
		{name: "wrong kind", method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}`,
			want:   bad(`Pod in version "v1" cannot be handled as a ConfigMap: converting (v1.Pod) to (core.ConfigMap): unknown conversion`),
			reason: "the versioning codec fails converting into the internal type"},
		{name: "unregistered apiVersion", method: "POST", path: cmPath, body: `{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"x"}}`,
			want:   bad(`ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`),
			reason: "needs real-server check: scheme name as a release build prints it"},
		{name: "other version of the group", method: "POST", path: "/apis/apps/v1/namespaces/default/deployments",
			body:   `{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"x"}}`,
			want:   bad(`the API version in the data (apps/v1beta2) does not match the expected API version (apps/v1)`),
			reason: "handlers/create.go AcceptsGroupVersion"},
		{name: "name mismatch", method: "PUT", path: cmPath + "/cm-a", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-other"}}`,
			want: bad(`the name of the object (cm-other) does not match the name on the URL (cm-a)`), reason: "observed"},
		{name: "namespace mismatch on create", method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"kube-system"}}`,
			want: bad(`the namespace of the provided object does not match the namespace sent on the request`)},
		{name: "namespace mismatch on update", method: "PUT", path: cmPath + "/cm-a", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-a","namespace":"kube-system"}}`,
			want: bad(`the namespace of the provided object does not match the namespace sent on the request`)},
		{name: "body over 3 MiB", method: "POST", path: cmPath, body: `{"data":{"k":"` + strings.Repeat("a", 3<<20) + `"}}`,
			want: wantFailure(413, metav1.StatusReasonRequestEntityTooLarge, "Request entity too large: limit is 3145728", nil)},
		{name: "resourceVersion on create", method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","resourceVersion":"5"}}`,
			want: wantFailure(500, "", "resourceVersion should not be set on objects to be created", nil), reason: "observed: plain error, no reason"},
		{name: "invalid name", method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"}}`,
			want: wantFailure(422, metav1.StatusReasonInvalid, `ConfigMap "Bad_Name" is invalid: metadata.name: `+invalidNameMsg,
				&metav1.StatusDetails{Name: "Bad_Name", Kind: "ConfigMap", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: invalidNameMsg, Field: "metadata.name"}}}),
			reason: "observed; details.kind is the Kind"},
		{name: "already exists", method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-a"}}`,
			want: wantFailure(409, metav1.StatusReasonAlreadyExists, `configmaps "cm-a" already exists`, &metav1.StatusDetails{Name: "cm-a", Kind: "configmaps"}), reason: "observed"},
		{name: "update missing", method: "PUT", path: cmPath + "/cm-zzz", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-zzz"}}`,
			want: wantFailure(404, metav1.StatusReasonNotFound, `configmaps "cm-zzz" not found`, &metav1.StatusDetails{Name: "cm-zzz", Kind: "configmaps"}), reason: "observed"},
		{name: "patch missing", method: "PATCH", path: cmPath + "/cm-nope", body: `{}`, header: []string{"Content-Type", "application/merge-patch+json"},
			want: wantFailure(404, metav1.StatusReasonNotFound, `configmaps "cm-nope" not found`, &metav1.StatusDetails{Name: "cm-nope", Kind: "configmaps"}), reason: "observed"},
		{name: "strict unknown field", method: "POST", path: podPath + "?fieldValidation=Strict",
			body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"foo":1,"containers":[{"name":"c","image":"i"}]}}`,
			want: bad(`Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.foo"`)},
		{name: "strict duplicate field", method: "POST", path: podPath + "?fieldValidation=Strict",
			body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","name":"y"},"spec":{"containers":[{"name":"c","image":"i"}]}}`,
			want: bad(`Pod in version "v1" cannot be handled as a Pod: strict decoding error: duplicate field "metadata.name"`)},
		{name: "bad fieldValidation", method: "POST", path: cmPath + "?fieldValidation=Bogus", body: `{}`,
			want: wantFailure(422, metav1.StatusReasonInvalid, `CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"`,
				&metav1.StatusDetails{Group: "meta.k8s.io", Kind: "CreateOptions", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueNotSupported,
					Message: `Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"`, Field: "fieldValidation"}}})},
		{name: "GET resourceVersion=abc", method: "GET", path: cmPath + "/cm-a?resourceVersion=abc",
			want:   wantFailure(500, "", `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`, nil),
			reason: "needs real-server check: assumed like the observed WATCH case (cacher returns the versioner's plain error)"},
		{name: "patch body not JSON", method: "PATCH", path: cmPath + "/cm-a", body: `not json`, header: []string{"Content-Type", "application/merge-patch+json"},
			want: bad("invalid JSON patch"), reason: "handlers/patch.go validateAndTranscodePatch"},
		{name: "json patch test fails", method: "PATCH", path: cmPath + "/cm-a", body: `[{"op":"test","path":"/data/x","value":"1"}]`,
			header: []string{"Content-Type", "application/json-patch+json"},
			want:   wantFailure(422, metav1.StatusReasonInvalid, "the server rejected our request due to an error in our request", &metav1.StatusDetails{}),
			reason: "NewGenericServerResponse(422) drops the server message"},
		{name: "bad propagationPolicy", method: "DELETE", path: cmPath + "/cm-a?propagationPolicy=Bogus", header: jsonCT,
			want: wantFailure(422, metav1.StatusReasonInvalid, `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"`,
				&metav1.StatusDetails{Group: "meta.k8s.io", Kind: "DeleteOptions", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueNotSupported,
					Message: `Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"`, Field: "propagationPolicy"}}})},
	}
	runStatusCases(t, cases)
}

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithToken("s3cret"))
	resp := doWrite(t, srv, http.MethodGet, cmPath, nil, "Authorization", "Bearer wrong")
	want := wantFailure(401, metav1.StatusReasonUnauthorized, "Unauthorized", nil)
	if diff := cmp.Diff(want, resp.status(t)); diff != "" || resp.code != 401 {
		t.Errorf("GET with a wrong token = %d, Status mismatch (-want +got):\n%s", resp.code, diff)
	}
}

// warningRecorder collects what client-go's warning handler sees.
type warningRecorder struct{ msgs []string }

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.msgs = append(w.msgs, text)
}

func TestFieldValidationWarnAndIgnore(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"},"foo":1,"data":{"k":"v"}}`
	for _, tt := range []struct {
		directive string
		want      []string
	}{
		{"", []string{`unknown field "foo"`}},
		{"Warn", []string{`unknown field "foo"`}},
		{"Ignore", nil},
	} {
		rec := &warningRecorder{}
		cfg := srv.RESTConfig()
		cfg.WarningHandler = rec
		client, err := rest.RESTClientFor(withJSON(cfg))
		if err != nil {
			t.Fatalf("RESTClientFor: %v", err)
		}
		name := "w-" + strings.ToLower(tt.directive)
		if tt.directive == "" {
			name = "w-default"
		}
		res := client.Post().AbsPath(cmPath).Param("fieldValidation", tt.directive).
			Body([]byte(strings.Replace(body, "%s", name, 1))).SetHeader("Content-Type", "application/json").Do(t.Context())
		if err := res.Error(); err != nil {
			t.Fatalf("POST fieldValidation=%q: %v", tt.directive, err)
		}
		if diff := cmp.Diff(tt.want, rec.msgs); diff != "" {
			t.Errorf("POST fieldValidation=%q warnings mismatch (-want +got):\n%s", tt.directive, diff)
		}
	}
}

// withJSON configures a raw REST client for JSON on the core group.
func withJSON(cfg *rest.Config) *rest.Config {
	cfg.APIPath = "/api"
	cfg.GroupVersion = &metav1.SchemeGroupVersion
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(newDefaultScheme()).WithoutConversion()
	return cfg
}
