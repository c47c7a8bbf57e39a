package conformance

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// digits matches the numbers a message may carry: resourceVersions, and in
// the fake's and the real server's messages nothing else that the cases
// compare (case object names carry no digits).
var digits = regexp.MustCompile(`[0-9]+`)

// maskRVs replaces every run of digits by "N", so that messages quoting
// absolute resourceVersions compare equal across servers.
func maskRVs(s string) string { return digits.ReplaceAllString(s, "N") }

// statusShape is what two correct servers agree on in a Status body.
type statusShape struct {
	Status   string
	Code     int32
	Reason   metav1.StatusReason
	Message  string // RVs masked
	Details  *metav1.StatusDetails
	Continue bool // metadata.continue present
}

// shapeOf normalises st for comparison: RVs masked, the UID dropped.
func shapeOf(st metav1.Status) statusShape {
	s := statusShape{
		Status:   st.Status,
		Code:     st.Code,
		Reason:   st.Reason,
		Message:  maskRVs(st.Message),
		Continue: st.Continue != "",
	}
	if st.Details != nil {
		d := *st.Details
		d.UID = ""
		d.Causes = append([]metav1.StatusCause(nil), d.Causes...)
		for i := range d.Causes {
			d.Causes[i].Message = maskRVs(d.Causes[i].Message)
		}
		s.Details = &d
	}
	return s
}

// wantStatus is a Failure status for the given code, reason and message
// (unmasked; it is masked like the answer) and details.
func wantStatus(code int32, reason metav1.StatusReason, msg string, details *metav1.StatusDetails) statusShape {
	return shapeOf(metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg, Details: details})
}

// checkStatus fails the test unless r is an error answer with code and a
// body of the given shape.
func checkStatus(t testing.TB, what string, r response, want statusShape) {
	t.Helper()
	if r.Code != int(want.Code) {
		t.Errorf("%s: HTTP code = %d, want %d; body %s", what, r.Code, want.Code, r.Body)
	}
	var st metav1.Status
	if err := json.Unmarshal(r.Body, &st); err != nil {
		t.Fatalf("%s: body %q is not a Status: %v", what, r.Body, err)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" {
		t.Errorf("%s: kind/apiVersion = %q/%q, want Status/v1", what, st.Kind, st.APIVersion)
	}
	if diff := cmp.Diff(want, shapeOf(st)); diff != "" {
		t.Errorf("%s: status mismatch (-want +got):\n%s", what, diff)
	}
}

// decodeContinue reads the JSON inside a token, failing the test if it is
// not a token.
func decodeContinue(t testing.TB, tok string) kubewire.ContinueToken {
	t.Helper()
	c, err := kubewire.ParseContinue(tok)
	if err != nil {
		t.Fatalf("continue token %q: %v", tok, err)
	}
	return c
}

// metavStatusWithTooLargeDetails is the details block of the too-large 504.
func metavStatusWithTooLargeDetails() metav1.Status {
	return metav1.Status{Details: &metav1.StatusDetails{
		Causes:            []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
		RetryAfterSeconds: 1,
	}}
}

// cmpEmpty treats nil and empty slices and maps as equal.
var cmpEmpty = cmpopts.EquateEmpty()

// mustJSON marshals v.
func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// typesUID converts a decoded uid.
func typesUID(v any) types.UID { s, _ := v.(string); return types.UID(s) }
