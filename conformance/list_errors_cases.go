package conformance

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// listOptionsInvalid is the 422 of ListOptions validation (§2.5): message
// `ListOptions.meta.k8s.io "" is invalid: <field>: <detail>`, one cause.
func listOptionsInvalid(field, causeType, detail string) statusShape {
	return wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`ListOptions.meta.k8s.io "" is invalid: `+field+": "+detail,
		&metav1.StatusDetails{Group: "meta.k8s.io", Kind: "ListOptions", Causes: []metav1.StatusCause{{
			Type: metav1.CauseType(causeType), Message: detail, Field: field,
		}}})
}

// badRequest is a 400 BadRequest with no details.
func badRequest(msg string) statusShape {
	return wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest, msg, nil)
}

// runListError checks a LIST with query answers want.
func runListError(ctx context.Context, t *testing.T, target Target, want statusShape, query ...string) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	r := e.c.do(ctx, t, request{Path: e.cms(), Query: q(query...)})
	checkStatus(t, "list "+q(query...).Encode(), r, want)
}

// RunListRVMatchWithoutRV: resourceVersionMatch needs resourceVersion (422).
func RunListRVMatchWithoutRV(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, listOptionsInvalid("resourceVersionMatch", "FieldValueForbidden",
		"Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"),
		"resourceVersionMatch", "NotOlderThan")
}

// RunListRVMatchWithContinue: resourceVersionMatch with continue (422).
func RunListRVMatchWithContinue(ctx context.Context, t *testing.T, target Target) {
	tok := kubewire.EncodeContinueJSON([]byte(`{"v":"meta.k8s.io/v1","rv":5,"start":"a\u0000"}`))
	runListError(ctx, t, target, listOptionsInvalid("resourceVersionMatch", "FieldValueForbidden",
		"Forbidden: resourceVersionMatch is forbidden when continue is provided"),
		"resourceVersionMatch", "NotOlderThan", "resourceVersion", "0", "continue", tok)
}

// RunListRVMatchUnsupported: an unknown resourceVersionMatch (422).
func RunListRVMatchUnsupported(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, listOptionsInvalid("resourceVersionMatch", "FieldValueNotSupported",
		`Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""`),
		"resourceVersionMatch", "Bogus", "resourceVersion", "5")
}

// RunListExactRV0Forbidden: Exact with resourceVersion=0 (422).
func RunListExactRV0Forbidden(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, listOptionsInvalid("resourceVersionMatch", "FieldValueForbidden",
		`Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`),
		"resourceVersionMatch", "Exact", "resourceVersion", "0")
}

// RunListSendInitialEventsForbidden: sendInitialEvents on a LIST (422).
func RunListSendInitialEventsForbidden(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, listOptionsInvalid("sendInitialEvents", "FieldValueForbidden",
		"Forbidden: sendInitialEvents is forbidden for list"),
		"sendInitialEvents", "true")
}

// RunListInvalidRV: a non-numeric resourceVersion on a LIST (400).
func RunListInvalidRV(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, badRequest(`invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`),
		"resourceVersion", "abc")
}

// RunListContinueWithRV: continue with resourceVersion other than ""/"0" (400).
func RunListContinueWithRV(ctx context.Context, t *testing.T, target Target) {
	tok := kubewire.EncodeContinueJSON([]byte(`{"v":"meta.k8s.io/v1","rv":5,"start":"a\u0000"}`))
	runListError(ctx, t, target, badRequest("specifying resource version is not allowed when using continue"),
		"continue", tok, "resourceVersion", "5")
}

// RunListContinueNotBase64: a token that is not base64 (400).
func RunListContinueNotBase64(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, badRequest("invalid continue token: continue key is not valid: illegal base64 data at input byte 0"),
		"continue", "!!!")
}

// RunListContinueNotJSON: base64 of something that is not JSON (400).
func RunListContinueNotJSON(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, badRequest("invalid continue token: continue key is not valid: invalid character 'o' in literal null (expecting 'u')"),
		"continue", kubewire.EncodeContinueJSON([]byte("nope")))
}

// RunListContinueBadVersion: a token of another version (400).
func RunListContinueBadVersion(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, badRequest("invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2"),
		"continue", kubewire.EncodeContinueJSON([]byte(`{"v":"meta.k8s.io/v2","rv":5,"start":"a\u0000"}`)))
}

// RunListContinueZeroRV: a token with rv 0 (400).
func RunListContinueZeroRV(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, badRequest("invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"),
		"continue", kubewire.EncodeContinueJSON([]byte(`{"v":"meta.k8s.io/v1","rv":0,"start":"a\u0000"}`)))
}

// RunListContinueEmptyStart: a token with an empty start key (400).
func RunListContinueEmptyStart(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, badRequest("invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"),
		"continue", kubewire.EncodeContinueJSON([]byte(`{"v":"meta.k8s.io/v1","rv":5,"start":""}`)))
}

// RunListContinueUncleanStart: a start key that path.Clean changes (400).
func RunListContinueUncleanStart(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, badRequest("invalid continue token: continue key is not valid: /../x"),
		"continue", kubewire.EncodeContinueJSON([]byte(`{"v":"meta.k8s.io/v1","rv":5,"start":"/../x"}`)))
}

// RunListLimitNotInteger: limit=abc (400).
func RunListLimitNotInteger(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, badRequest(`strconv.ParseInt: parsing "abc": invalid syntax`), "limit", "abc")
}

// RunListLabelSelectorSyntax: a malformed label selector (400).
func RunListLabelSelectorSyntax(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, badRequest(`found '==', expected: !, identifier, or 'end of string'`),
		"labelSelector", "===")
}

// RunListUnknownFieldSelector: a field ConfigMaps do not support (400).
func RunListUnknownFieldSelector(ctx context.Context, t *testing.T, target Target) {
	runListError(ctx, t, target, badRequest(`"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"`),
		"fieldSelector", "data.k=v")
}

// RunListNotAcceptable: an Accept the server cannot produce (406).
func RunListNotAcceptable(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Path: e.cms(), Accept: "text/plain"})
	// The real body has an empty "details":{} [observed on v1.37.2].
	checkStatus(t, "list Accept: text/plain", r, wantStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch", &metav1.StatusDetails{}))
}

// RunListLabelSelectors: equality and set-based label selectors (§3.3).
func RunListLabelSelectors(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.create(ctx, "a", map[string]string{"app": "x", "tier": "web"})
	e.create(ctx, "b", map[string]string{"app": "y"})
	e.create(ctx, "c", map[string]string{"app": "z", "tier": "db"})
	e.create(ctx, "d", nil)
	for sel, want := range map[string][]string{
		"app=x":            {"a"},
		"app==y":           {"b"},
		"app!=x":           {"b", "c", "d"},
		"app in (x,z)":     {"a", "c"},
		"app notin (x)":    {"b", "c", "d"},
		"tier":             {"a", "c"},
		"!tier":            {"b", "d"},
		"app=x,tier=web":   {"a"},
		"app in (y),!tier": {"b"},
	} {
		if diff := cmp.Diff(want, e.list(ctx, "labelSelector", sel).names(), cmpEmpty); diff != "" {
			t.Errorf("labelSelector=%q (-want +got):\n%s", sel, diff)
		}
	}
}

// RunListFieldSelectors: metadata.name selectors (§3.3).
func RunListFieldSelectors(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c")
	for sel, want := range map[string][]string{
		"metadata.name=b":                       {"b"},
		"metadata.name==b":                      {"b"},
		"metadata.name!=b":                      {"a", "c"},
		"metadata.namespace=" + e.ns:            {"a", "b", "c"},
		"metadata.name!=a,metadata.name!=c":     {"b"},
		"metadata.namespace=elsewhere-entirely": nil,
	} {
		if diff := cmp.Diff(want, e.list(ctx, "fieldSelector", sel).names(), cmpEmpty); diff != "" {
			t.Errorf("fieldSelector=%q (-want +got):\n%s", sel, diff)
		}
	}
}
