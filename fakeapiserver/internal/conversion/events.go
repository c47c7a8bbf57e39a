package conversion

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
)

// events.k8s.io/v1 Events are core Events (kubernetes
// pkg/apis/events/v1/conversion.go and its generated conversions): the
// same fields under other names (note is message, regarding is
// involvedObject, deprecatedSource, deprecatedFirstTimestamp,
// deprecatedLastTimestamp and deprecatedCount are source, firstTimestamp,
// lastTimestamp and count), so the conversion loses nothing either way.

var (
	coreEventTypeMeta   = corev1.SchemeGroupVersion.WithKind("Event")
	eventsEventTypeMeta = eventsv1.SchemeGroupVersion.WithKind("Event")
)

// EventToCore converts an events.k8s.io/v1 Event to core/v1
// (Convert_v1_Event_To_core_Event, then core's to v1). in is not
// modified; the result shares nothing with it.
func EventToCore(in *eventsv1.Event) *corev1.Event {
	in = in.DeepCopy()
	out := &corev1.Event{
		ObjectMeta:          in.ObjectMeta,
		InvolvedObject:      in.Regarding,
		Reason:              in.Reason,
		Message:             in.Note,
		Source:              in.DeprecatedSource,
		FirstTimestamp:      in.DeprecatedFirstTimestamp,
		LastTimestamp:       in.DeprecatedLastTimestamp,
		Count:               in.DeprecatedCount,
		Type:                in.Type,
		EventTime:           in.EventTime,
		Action:              in.Action,
		Related:             in.Related,
		ReportingController: in.ReportingController,
		ReportingInstance:   in.ReportingInstance,
	}
	if in.Series != nil {
		out.Series = &corev1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
	out.SetGroupVersionKind(coreEventTypeMeta)
	return out
}

// EventFromCore converts a core/v1 Event to events.k8s.io/v1
// (Convert_core_Event_To_v1_Event). in is not modified; the result shares
// nothing with it.
func EventFromCore(in *corev1.Event) *eventsv1.Event {
	in = in.DeepCopy()
	out := &eventsv1.Event{
		ObjectMeta:               in.ObjectMeta,
		EventTime:                in.EventTime,
		ReportingController:      in.ReportingController,
		ReportingInstance:        in.ReportingInstance,
		Action:                   in.Action,
		Reason:                   in.Reason,
		Regarding:                in.InvolvedObject,
		Related:                  in.Related,
		Note:                     in.Message,
		Type:                     in.Type,
		DeprecatedSource:         in.Source,
		DeprecatedFirstTimestamp: in.FirstTimestamp,
		DeprecatedLastTimestamp:  in.LastTimestamp,
		DeprecatedCount:          in.Count,
	}
	if in.Series != nil {
		out.Series = &eventsv1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
	out.SetGroupVersionKind(eventsEventTypeMeta)
	return out
}

// CoreEvent is a core/v1 Event through the internal type and back: a copy.
func CoreEvent(in *corev1.Event) *corev1.Event {
	out := in.DeepCopy()
	out.SetGroupVersionKind(coreEventTypeMeta)
	return out
}
