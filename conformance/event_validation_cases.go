package conformance

// Cases for the validation of Events (kubernetes
// pkg/apis/core/validation/events.go), which depends on the API written:
// through core/v1 only the legacy rules (an Event with an eventTime needs
// its reporting fields), through events.k8s.io/v1 the strict ones too
// (eventTime, type, the deprecated fields unset, immutable fields on
// update). Both APIs share the core Event storage, so the 422 names the
// kind "Event" without a group and the fields by the core type's names.

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// eventValidationCases are the cases of this file, in the order [Cases]
// runs them.
func eventValidationCases() []Case {
	return []Case{
		{Name: "EventsV1Validation", Run: runEventsV1Validation},
		{Name: "EventsV1ValidationUpdate", Run: runEventsV1ValidationUpdate},
		{Name: "CoreEventValidation", Run: runCoreEventValidation},
	}
}

// eventTime is a valid eventTime (microseconds).
const eventTime = "2026-01-02T03:04:05.000006Z"

// eventsV1 is an events.k8s.io/v1 Event named name regarding a ConfigMap
// of ns, with fields added.
func eventsV1(name, ns string, fields object) object {
	o := object{"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": object{"name": name},
		"regarding": object{"kind": "ConfigMap", "namespace": ns, "name": "cm", "apiVersion": "v1"}}
	for k, v := range fields {
		o[k] = v
	}
	return o
}

// validEventFields are the fields a valid events.k8s.io/v1 Event has
// beyond regarding.
func validEventFields() object {
	return object{"eventTime": eventTime, "type": "Normal", "reason": "Tested", "action": "Test", "note": "n",
		"reportingController": "example.com/tester", "reportingInstance": "tester-1"}
}

// runEventsV1Validation: an events.k8s.io/v1 Event needs eventTime, a
// type of Normal or Warning, reportingController, reportingInstance,
// action and reason within their lengths, and none of the deprecated
// fields.
func runEventsV1Validation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := "/apis/events.k8s.io/v1/namespaces/" + e.ns + "/events"
	post := func(body object) response {
		return e.c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: body})
	}
	checkStatus(t, "no eventTime, no type", post(eventsV1("a", e.ns, nil)), invalid("Event", "", "a",
		cause(causeRequired, "eventTime", "Required value"),
		cause(causeInvalid, "type", `Invalid value: "": has invalid value: `)))

	noReporter := eventsV1("b", e.ns, object{"eventTime": eventTime, "type": "Warning"})
	noReporter["regarding"].(object)["namespace"] = ""
	checkStatus(t, "no reporting fields", post(noReporter), invalid("Event", "", "b",
		invalidValue("involvedObject.namespace", "", "does not match event.namespace"),
		cause(causeRequired, "reportingController", "Required value"),
		invalidValue("reportingController", "", validation.IsQualifiedName("")[0]),
		invalidValue("reportingController", "", validation.IsQualifiedName("")[1]),
		cause(causeRequired, "reportingInstance", "Required value"),
		cause(causeRequired, "action", "Required value"),
		cause(causeRequired, "reason", "Required value")))

	long := strings.Repeat("x", 129)
	fields := validEventFields()
	for k, v := range (object{"type": "Bogus", "reportingInstance": long, "action": long, "reason": long, "note": strings.Repeat("n", 1025),
		"series": object{"count": 1}, "deprecatedCount": 3, "deprecatedFirstTimestamp": "2026-01-01T00:00:00Z",
		"deprecatedLastTimestamp": "2026-01-01T00:00:00Z", "deprecatedSource": object{"component": "c"}}) {
		fields[k] = v
	}
	checkStatus(t, "too long, deprecated fields set", post(eventsV1("c", e.ns, fields)), invalid("Event", "", "c",
		invalidValue("reportingInstance", "", "can have at most 128 characters"),
		invalidValue("action", "", "can have at most 128 characters"),
		invalidValue("reason", "", "can have at most 128 characters"),
		invalidValue("message", "", "can have at most 1024 characters"),
		invalidValue("series.count", "", "should be at least 2"),
		cause(causeRequired, "series.lastObservedTime", "Required value"),
		invalidValue("type", "", "has invalid value: Bogus"),
		invalidValue("firstTimestamp", "", "needs to be unset"),
		invalidValue("lastTimestamp", "", "needs to be unset"),
		invalidValue("count", "", "needs to be unset"),
		invalidValue("source", "", "needs to be unset")))

	r := post(eventsV1("d", e.ns, validEventFields()))
	r.mustCode(t, http.StatusCreated, "create a valid event")
}

// runEventsV1ValidationUpdate: through events.k8s.io/v1 an Event's
// regarding object, reason, note, type, action and reporting fields are
// immutable; a changed series is validated.
func runEventsV1ValidationUpdate(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := "/apis/events.k8s.io/v1/namespaces/" + e.ns + "/events"
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: eventsV1("u", e.ns, validEventFields())}).
		mustCode(t, http.StatusCreated, "create event")
	patch := object{"note": "changed", "type": "Warning", "action": "Other", "series": object{"count": 1}}
	r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path + "/u", Body: patch, ContentType: "application/merge-patch+json"})
	checkStatus(t, "change immutable fields", r, invalid("Event", "", "u",
		invalidValue("series.count", "", "should be at least 2"),
		cause(causeRequired, "series.lastObservedTime", "Required value"),
		invalidValue("message", "changed", "field is immutable"),
		invalidValue("type", "Warning", "field is immutable"),
		invalidValue("action", "Other", "field is immutable")))
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path + "/u",
		Body: object{"series": object{"count": 2, "lastObservedTime": eventTime}}, ContentType: "application/merge-patch+json"})
	r.mustCode(t, http.StatusOK, "add a valid series")
}

// runCoreEventValidation: through core/v1 an Event without eventTime
// needs only its involved object in its namespace (no type, no reporting
// fields); one with an eventTime needs the reporting fields, the
// controller named reportingComponent.
func runCoreEventValidation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := nsPath(e.ns, "events")
	ev := func(name, involvedNS string, fields object) object {
		o := object{"apiVersion": "v1", "kind": "Event", "metadata": object{"name": name},
			"involvedObject": object{"kind": "ConfigMap", "namespace": involvedNS, "name": "cm"}}
		for k, v := range fields {
			o[k] = v
		}
		return o
	}
	post := func(body object) response {
		return e.c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: body})
	}
	post(ev("legacy", e.ns, nil)).mustCode(t, http.StatusCreated, "legacy event without type")
	checkStatus(t, "involved object elsewhere", post(ev("elsewhere", "other", nil)), invalid("Event", "", "elsewhere",
		invalidValue("involvedObject.namespace", "other", "does not match event.namespace")))
	checkStatus(t, "eventTime without reporting fields", post(ev("timed", e.ns, object{"eventTime": eventTime, "reason": "R"})), invalid("Event", "", "timed",
		cause(causeRequired, "reportingComponent", "Required value"),
		invalidValue("reportingComponent", "", validation.IsQualifiedName("")[0]),
		invalidValue("reportingComponent", "", validation.IsQualifiedName("")[1]),
		cause(causeRequired, "reportingInstance", "Required value"),
		cause(causeRequired, "action", "Required value")))
	post(ev("timed", e.ns, object{"eventTime": eventTime, "reason": "R", "action": "A",
		"reportingComponent": "c", "reportingInstance": "i"})).mustCode(t, http.StatusCreated, "event with reporting fields")
}
