package conformance

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// listErrorsCases are the cases of this file, in the order [Cases] runs them:
// first the LISTs the server refuses before reading (one row each: the
// query, then the answer), then the selector cases.
func listErrorsCases() []Case {
	return []Case{
		// resourceVersionMatch needs resourceVersion (422).
		listErrorCase("ListRVMatchWithoutRV", q("resourceVersionMatch", "NotOlderThan"),
			listOptionsInvalid("resourceVersionMatch", "FieldValueForbidden",
				"Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided")),
		// resourceVersionMatch with continue (422).
		listErrorCase("ListRVMatchWithContinue", q("resourceVersionMatch", "NotOlderThan", "resourceVersion", "0",
			"continue", continueToken(`{"v":"meta.k8s.io/v1","rv":5,"start":"a\u0000"}`)),
			listOptionsInvalid("resourceVersionMatch", "FieldValueForbidden",
				"Forbidden: resourceVersionMatch is forbidden when continue is provided")),
		// An unknown resourceVersionMatch (422).
		listErrorCase("ListRVMatchUnsupported", q("resourceVersionMatch", "Bogus", "resourceVersion", "5"),
			listOptionsInvalid("resourceVersionMatch", "FieldValueNotSupported",
				`Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""`)),
		// Exact with resourceVersion=0 (422).
		listErrorCase("ListExactRV0Forbidden", q("resourceVersionMatch", "Exact", "resourceVersion", "0"),
			listOptionsInvalid("resourceVersionMatch", "FieldValueForbidden",
				`Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`)),
		// sendInitialEvents on a LIST (422).
		listErrorCase("ListSendInitialEventsForbidden", q("sendInitialEvents", "true"),
			listOptionsInvalid("sendInitialEvents", "FieldValueForbidden",
				"Forbidden: sendInitialEvents is forbidden for list")),
		// A non-numeric resourceVersion on a LIST (400).
		listErrorCase("ListInvalidRV", q("resourceVersion", "abc"),
			badRequest(`invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`)),
		// continue with resourceVersion other than ""/"0" (400).
		listErrorCase("ListContinueWithRV", q("continue", continueToken(`{"v":"meta.k8s.io/v1","rv":5,"start":"a\u0000"}`),
			"resourceVersion", "5"),
			badRequest("specifying resource version is not allowed when using continue")),
		// A token that is not base64 (400).
		listErrorCase("ListContinueNotBase64", q("continue", "!!!"),
			badRequest("invalid continue token: continue key is not valid: illegal base64 data at input byte 0")),
		// base64 of something that is not JSON (400).
		listErrorCase("ListContinueNotJSON", q("continue", continueToken("nope")),
			badRequest("invalid continue token: continue key is not valid: invalid character 'o' in literal null (expecting 'u')")),
		// A token of another version (400).
		listErrorCase("ListContinueBadVersion", q("continue", continueToken(`{"v":"meta.k8s.io/v2","rv":5,"start":"a\u0000"}`)),
			badRequest("invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2")),
		// A token with rv 0 (400).
		listErrorCase("ListContinueZeroRV", q("continue", continueToken(`{"v":"meta.k8s.io/v1","rv":0,"start":"a\u0000"}`)),
			badRequest("invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")),
		// A token with an empty start key (400).
		listErrorCase("ListContinueEmptyStart", q("continue", continueToken(`{"v":"meta.k8s.io/v1","rv":5,"start":""}`)),
			badRequest("invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")),
		// A start key that path.Clean changes (400).
		listErrorCase("ListContinueUncleanStart", q("continue", continueToken(`{"v":"meta.k8s.io/v1","rv":5,"start":"/../x"}`)),
			badRequest("invalid continue token: continue key is not valid: /../x")),
		// limit=abc (400).
		listErrorCase("ListLimitNotInteger", q("limit", "abc"),
			badRequest(`strconv.ParseInt: parsing "abc": invalid syntax`)),
		// A malformed label selector (400).
		listErrorCase("ListLabelSelectorSyntax", q("labelSelector", "==="),
			badRequest(`found '==', expected: !, identifier, or 'end of string'`)),
		// A field ConfigMaps do not support (400).
		listErrorCase("ListUnknownFieldSelector", q("fieldSelector", "data.k=v"),
			badRequest(`"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"`)),
		{Name: "ListNotAcceptable", Run: runListNotAcceptable},
		{Name: "ListLabelSelectors", Run: runListLabelSelectors},
		{Name: "ListFieldSelectors", Run: runListFieldSelectors},
	}
}

// continueToken is a continue token whose decoded form is the given JSON.
func continueToken(json string) string { return kubewire.EncodeContinueJSON([]byte(json)) }

// listOptionsInvalid is the 422 of ListOptions validation (apimachinery
// apis/meta/internalversion/validation/validation.go ValidateListOptions): message
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

// listErrorCase is the case name: a LIST of a namespace's ConfigMaps (one
// exists) with query answers want.
func listErrorCase(name string, query url.Values, want statusShape) Case {
	return Case{Name: name, Run: func(ctx context.Context, t *testing.T, target Target) {
		e := setup(ctx, t, target)
		e.createN(ctx, "a")
		r := e.c.do(ctx, t, request{Path: e.cms(), Query: query})
		checkStatus(t, "list "+query.Encode(), r, want)
	}}
}

// runListNotAcceptable: an Accept the server cannot produce (406).
func runListNotAcceptable(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Path: e.cms(), Accept: "text/plain"})
	// The real body has an empty "details":{} [observed on v1.37.2].
	checkStatus(t, "list Accept: text/plain", r, wantStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch", &metav1.StatusDetails{}))
}

// runListLabelSelectors: equality and set-based label selectors (apimachinery
// labels/selector.go).
func runListLabelSelectors(ctx context.Context, t *testing.T, target Target) {
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

// runListFieldSelectors: metadata.name selectors (kubernetes
// registry/core/configmap/strategy.go SelectableFields).
func runListFieldSelectors(ctx context.Context, t *testing.T, target Target) {
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
