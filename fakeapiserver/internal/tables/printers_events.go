package tables

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// printEventsV1 prints an events.k8s.io/v1 Event as kube-apiserver does:
// that API is served from the core Event storage, so its Table is the core
// event printer's, over the object's conversion to the core type
// (pkg/apis/events/v1/conversion.go: regarding is the involved object,
// note the message, the deprecated* fields the core ones).
func printEventsV1(ev *eventsv1.Event, now time.Time) metav1.TableRow {
	core := &corev1.Event{
		ObjectMeta:          ev.ObjectMeta,
		InvolvedObject:      ev.Regarding,
		Reason:              ev.Reason,
		Message:             ev.Note,
		Source:              ev.DeprecatedSource,
		FirstTimestamp:      ev.DeprecatedFirstTimestamp,
		LastTimestamp:       ev.DeprecatedLastTimestamp,
		Count:               ev.DeprecatedCount,
		Type:                ev.Type,
		EventTime:           ev.EventTime,
		Action:              ev.Action,
		Related:             ev.Related,
		ReportingController: ev.ReportingController,
		ReportingInstance:   ev.ReportingInstance,
	}
	if s := ev.Series; s != nil {
		core.Series = &corev1.EventSeries{Count: s.Count, LastObservedTime: s.LastObservedTime}
	}
	return printEvent(core, now)
}
