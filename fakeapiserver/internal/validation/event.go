package validation

import (
	"fmt"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The validation of Events: kubernetes pkg/apis/core/validation/events.go
// as the event strategy (pkg/registry/core/event) runs it with the
// request's group-version. Both APIs store one internal Event; lw-sim
// stores core/v1 and events.k8s.io/v1 Events apart, so each reads its own
// type here as the internal one (regarding is involvedObject, note is
// message, the deprecated* fields are the legacy ones). The field paths
// are the internal type's, as the real server reports them for either
// API.

// Upstream's length limits of an Event's fields.
const (
	reportingInstanceLengthLimit = 128
	actionLengthLimit            = 128
	reasonLengthLimit            = 128
	noteLengthLimit              = 1024
)

// event is the internal Event's fields the validation reads.
type event struct {
	namespace                        string
	involvedObject                   corev1.ObjectReference
	reason, message, typ, action     string
	source                           corev1.EventSource
	firstTimestamp, lastTimestamp    metav1.Time
	count                            int32
	eventTime                        metav1.MicroTime
	series                           *corev1.EventSeries
	related                          *corev1.ObjectReference
	reportingController, reportingID string
}

// coreEvent reads a core/v1 Event.
func coreEvent(e *corev1.Event) event {
	return event{
		namespace: e.Namespace, involvedObject: e.InvolvedObject, reason: e.Reason, message: e.Message, typ: e.Type,
		action: e.Action, source: e.Source, firstTimestamp: e.FirstTimestamp, lastTimestamp: e.LastTimestamp,
		count: e.Count, eventTime: e.EventTime, series: e.Series, related: e.Related,
		reportingController: e.ReportingController, reportingID: e.ReportingInstance,
	}
}

// eventsEvent reads an events.k8s.io/v1 Event.
func eventsEvent(e *eventsv1.Event) event {
	var series *corev1.EventSeries
	if e.Series != nil {
		series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return event{
		namespace: e.Namespace, involvedObject: e.Regarding, reason: e.Reason, message: e.Note, typ: e.Type,
		action: e.Action, source: e.DeprecatedSource, firstTimestamp: e.DeprecatedFirstTimestamp,
		lastTimestamp: e.DeprecatedLastTimestamp, count: e.DeprecatedCount, eventTime: e.EventTime, series: series,
		related: e.Related, reportingController: e.ReportingController, reportingID: e.ReportingInstance,
	}
}

// CoreEvent is ValidateEventCreate / ValidateEventUpdate for a write
// through core/v1: the legacy checks only, then (on create, when they
// pass) the generic metadata checks, whose name rule is the path-segment
// one.
func CoreEvent(obj, old runtime.Object) field.ErrorList {
	e, ok := obj.(*corev1.Event)
	if !ok {
		return Generic(obj, old)
	}
	if old != nil {
		return append(validateCommonFields(obj, old), legacyValidateEvent(coreEvent(e), "reportingComponent")...)
	}
	errs := legacyValidateEvent(coreEvent(e), "reportingComponent")
	if len(errs) == 0 {
		errs = apimachineryvalidation.ValidateObjectMetaAccessor(&e.ObjectMeta, true, pathSegmentName, metadataPath)
	}
	return errs
}

// EventsEvent is ValidateEventCreate / ValidateEventUpdate for a write
// through events.k8s.io/v1: the legacy checks, then the strict ones (the
// object metadata, series, eventTime, type, the deprecated fields unset;
// on update the immutable fields).
func EventsEvent(obj, old runtime.Object) field.ErrorList {
	ev, ok := obj.(*eventsv1.Event)
	if !ok {
		return Generic(obj, old)
	}
	e := eventsEvent(ev)
	if o, ok := old.(*eventsv1.Event); ok {
		errs := validateCommonFields(obj, old)
		errs = append(errs, legacyValidateEvent(e, "reportingController")...)
		return append(errs, validateEventUpdate(e, eventsEvent(o), obj, old)...)
	}
	errs := legacyValidateEvent(e, "reportingController")
	errs = append(errs, validateMetaCreate(obj, apimachineryvalidation.NameIsDNSSubdomain)...)
	errs = append(errs, validateEventSeries(e)...)
	if e.eventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.typ != corev1.EventTypeNormal && e.typ != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.typ)))
	}
	if !e.firstTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("firstTimestamp"), "", "needs to be unset"))
	}
	if !e.lastTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("lastTimestamp"), "", "needs to be unset"))
	}
	if e.count != 0 {
		errs = append(errs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
	}
	if e.source.Component != "" || e.source.Host != "" {
		errs = append(errs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
	}
	if len(errs) == 0 {
		errs = apimachineryvalidation.ValidateObjectMetaAccessor(&ev.ObjectMeta, true, pathSegmentName, metadataPath)
	}
	return errs
}

// validateEventUpdate is the strict part of ValidateEventUpdate: metadata
// update, a changed series, and the immutable fields.
func validateEventUpdate(e, o event, obj, old runtime.Object) field.ErrorList {
	errs := MetaUpdate(obj, old)
	if !reflect.DeepEqual(e.series, o.series) {
		errs = append(errs, validateEventSeries(e)...)
	}
	immutable := func(n, o any, name string) {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(n, o, field.NewPath(name))...)
	}
	immutable(e.involvedObject, o.involvedObject, "involvedObject")
	immutable(e.reason, o.reason, "reason")
	immutable(e.message, o.message, "message")
	immutable(e.source, o.source, "source")
	immutable(e.firstTimestamp, o.firstTimestamp, "firstTimestamp")
	immutable(e.lastTimestamp, o.lastTimestamp, "lastTimestamp")
	immutable(e.count, o.count, "count")
	immutable(e.reason, o.reason, "reason")
	immutable(e.typ, o.typ, "type")
	// Changes below a microsecond are tolerated (kubernetes#111928).
	if !e.eventTime.Truncate(time.Microsecond).UTC().Equal(o.eventTime.Truncate(time.Microsecond).UTC()) {
		immutable(e.eventTime, o.eventTime, "eventTime")
	}
	immutable(e.action, o.action, "action")
	immutable(e.related, o.related, "related")
	immutable(e.reportingController, o.reportingController, "reportingController")
	immutable(e.reportingID, o.reportingID, "reportingInstance")
	return errs
}

// validateEventSeries is validateV1EventSeries.
func validateEventSeries(e event) field.ErrorList {
	if e.series == nil {
		return nil
	}
	var errs field.ErrorList
	if e.series.Count < 2 {
		errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
	}
	if e.series.LastObservedTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
	}
	return errs
}

// legacyValidateEvent is legacyValidateEvent: an Event without eventTime
// only has to be in its involved object's namespace; one with it needs a
// reporting controller (named reportingComponent in core/v1) and
// instance, an action and a reason, within their lengths.
func legacyValidateEvent(e event, reportingControllerField string) field.ErrorList {
	var errs field.ErrorList
	involvedNS := field.NewPath("involvedObject", "namespace")
	if e.eventTime.IsZero() {
		if e.involvedObject.Namespace == "" {
			if e.namespace != metav1.NamespaceNone && e.namespace != metav1.NamespaceDefault {
				errs = append(errs, field.Invalid(involvedNS, e.involvedObject.Namespace, "does not match event.namespace"))
			}
		} else if e.namespace != e.involvedObject.Namespace {
			errs = append(errs, field.Invalid(involvedNS, e.involvedObject.Namespace, "does not match event.namespace"))
		}
		return errs
	}
	if e.involvedObject.Namespace == "" && e.namespace != metav1.NamespaceDefault && e.namespace != metav1.NamespaceSystem {
		errs = append(errs, field.Invalid(involvedNS, e.involvedObject.Namespace, "does not match event.namespace"))
	}
	rc := field.NewPath(reportingControllerField)
	if e.reportingController == "" {
		errs = append(errs, field.Required(rc, ""))
	}
	errs = append(errs, validateQualifiedName(e.reportingController, rc)...)
	if e.reportingID == "" {
		errs = append(errs, field.Required(field.NewPath("reportingInstance"), ""))
	}
	if len(e.reportingID) > reportingInstanceLengthLimit {
		errs = append(errs, field.Invalid(field.NewPath("reportingInstance"), "", fmt.Sprintf("can have at most %v characters", reportingInstanceLengthLimit)))
	}
	if e.action == "" {
		errs = append(errs, field.Required(field.NewPath("action"), ""))
	}
	if len(e.action) > actionLengthLimit {
		errs = append(errs, field.Invalid(field.NewPath("action"), "", fmt.Sprintf("can have at most %v characters", actionLengthLimit)))
	}
	if e.reason == "" {
		errs = append(errs, field.Required(field.NewPath("reason"), ""))
	}
	if len(e.reason) > reasonLengthLimit {
		errs = append(errs, field.Invalid(field.NewPath("reason"), "", fmt.Sprintf("can have at most %v characters", reasonLengthLimit)))
	}
	if len(e.message) > noteLengthLimit {
		errs = append(errs, field.Invalid(field.NewPath("message"), "", fmt.Sprintf("can have at most %v characters", noteLengthLimit)))
	}
	return errs
}

// validateCommonFields is the generic registry's check of every update
// (rest.ValidateUpdate): the object metadata, its name a path segment,
// and the metadata update rules.
func validateCommonFields(obj, old runtime.Object) field.ErrorList {
	m := objectMeta(obj)
	errs := apimachineryvalidation.ValidateObjectMetaAccessor(m, m.GetNamespace() != "", pathSegmentName, metadataPath)
	return append(errs, apimachineryvalidation.ValidateObjectMetaAccessorUpdate(m, objectMeta(old), metadataPath)...)
}

// pathSegmentName is the generic registry's name rule (rest's
// validatePathSegment): a name usable as a path segment.
func pathSegmentName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}
