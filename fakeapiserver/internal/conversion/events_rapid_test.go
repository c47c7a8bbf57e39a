package conversion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

func genRefOf(t *rapid.T, label string) corev1.ObjectReference {
	return corev1.ObjectReference{
		Kind: rapid.SampledFrom([]string{"", "Pod"}).Draw(t, label+"kind"), Namespace: "ns",
		Name: rapid.StringMatching(`[a-z]{0,4}`).Draw(t, label+"name"), FieldPath: rapid.SampledFrom([]string{"", "spec"}).Draw(t, label+"path"),
	}
}

func genTime(t *rapid.T, label string) metav1.Time {
	if !rapid.Bool().Draw(t, label+"?") {
		return metav1.Time{}
	}
	return metav1.Time{Time: time.Unix(rapid.Int64Range(0, 1e9).Draw(t, label), 0)}
}

// genCoreEvent is any core/v1 Event.
func genCoreEvent(t *rapid.T) *corev1.Event {
	e := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "e", Namespace: "ns", Labels: map[string]string{"l": rapid.StringMatching(`[a-z]{0,3}`).Draw(t, "label")}},
		InvolvedObject: genRefOf(t, "involved"), Reason: rapid.String().Draw(t, "reason"), Message: rapid.String().Draw(t, "message"),
		Source:         corev1.EventSource{Component: rapid.StringMatching(`[a-z]{0,4}`).Draw(t, "component"), Host: rapid.StringMatching(`[a-z]{0,4}`).Draw(t, "host")},
		FirstTimestamp: genTime(t, "first"), LastTimestamp: genTime(t, "last"), Count: rapid.Int32().Draw(t, "count"),
		Type: rapid.SampledFrom([]string{"", "Normal", "Warning"}).Draw(t, "type"), Action: rapid.String().Draw(t, "action"),
		ReportingController: rapid.String().Draw(t, "controller"), ReportingInstance: rapid.String().Draw(t, "instance"),
	}
	if rapid.Bool().Draw(t, "eventTime") {
		e.EventTime = metav1.MicroTime{Time: time.UnixMicro(rapid.Int64Range(0, 1e15).Draw(t, "micros"))}
	}
	if rapid.Bool().Draw(t, "series") {
		e.Series = &corev1.EventSeries{Count: rapid.Int32().Draw(t, "seriesCount"), LastObservedTime: metav1.MicroTime{Time: time.UnixMicro(rapid.Int64Range(0, 1e15).Draw(t, "observed"))}}
	}
	if rapid.Bool().Draw(t, "related") {
		r := genRefOf(t, "related")
		e.Related = &r
	}
	e.SetGroupVersionKind(coreEventTypeMeta)
	return e
}

// TestEventRoundTrip: the two versions hold the same fields, so a core
// Event comes back from events.k8s.io as it went, and an events.k8s.io
// Event from core.
func TestEventRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genCoreEvent(t)
		mid := EventFromCore(in)
		if back := EventToCore(mid); !equality.Semantic.DeepEqual(in, back) {
			t.Fatalf("core -> events.k8s.io -> core (-in +back):\n%s", cmp.Diff(in, back))
		}
		if again := EventFromCore(EventToCore(mid)); !equality.Semantic.DeepEqual(mid, again) {
			t.Fatalf("events.k8s.io -> core -> events.k8s.io (-in +back):\n%s", cmp.Diff(mid, again))
		}
		if mid.Note != in.Message || mid.Regarding != in.InvolvedObject || mid.DeprecatedSource != in.Source || mid.DeprecatedCount != in.Count {
			t.Fatalf("renamed fields not carried: %+v from %+v", mid, in)
		}
		var _ *eventsv1.Event = mid
	})
}
