package conformance

// Cases for core/v1 and events.k8s.io/v1 Events, which kube-apiserver
// stores once (the cohabitating resources share the /events prefix) and
// converts between (kubernetes pkg/apis/events/v1/conversion.go: note is
// message, regarding is involvedObject, deprecatedSource,
// deprecatedFirstTimestamp, deprecatedLastTimestamp and deprecatedCount
// are source, firstTimestamp, lastTimestamp and count).

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// eventVersionCases are the cases of this file, in the order [Cases] runs
// them.
func eventVersionCases() []Case {
	return []Case{
		{Name: "EventsV1ReadAsCore", Run: runEventsV1ReadAsCore},
		{Name: "WebhookEventsEquivalent", Run: runWebhookEventsEquivalent},
	}
}

// eventShape is an Event's fields but its metadata, with its name and
// labels.
func eventShape(o object) object {
	out := object{}
	for k, v := range o {
		if k != "metadata" {
			out[k] = v
		}
	}
	m := metaOf(o)
	out["name"], out["labels"] = m["name"], m["labels"]
	return out
}

// runEventsV1ReadAsCore: an Event created through events.k8s.io/v1 reads
// through core/v1 (GET, a LIST selecting involvedObject.name, a watch
// from before the create) with its fields renamed; a core Event reads
// through events.k8s.io/v1 (GET, a LIST selecting regarding.name) with
// its message as note and source, timestamps and count as the deprecated
// fields.
func runEventsV1ReadAsCore(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	core, events := "/api/v1/namespaces/"+e.ns+"/events", "/apis/events.k8s.io/v1/namespaces/"+e.ns+"/events"
	r := e.c.do(ctx, t, request{Path: core})
	r.mustCode(t, http.StatusOK, "list core events")
	var l list
	r.decode(t, &l)
	w := e.c.watch(ctx, t, request{Path: core, Query: q("resourceVersion", l.Metadata.ResourceVersion)})
	defer w.stop()

	body := eventsV1("ev1", e.ns, validEventFields())
	body["metadata"].(object)["labels"] = object{"via": "events"}
	body["series"] = object{"count": 2, "lastObservedTime": "2026-01-02T03:04:06.000007Z"}
	body["related"] = object{"kind": "Pod", "namespace": e.ns, "name": "p"}
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: events, Body: body})
	r.mustCode(t, http.StatusCreated, "create through events.k8s.io/v1")
	wantCore := parseJSON(t, `{"apiVersion":"v1","kind":"Event","name":"ev1","labels":{"via":"events"},
	"involvedObject":{"kind":"ConfigMap","namespace":"`+e.ns+`","name":"cm","apiVersion":"v1"},"reason":"Tested","message":"n",
	"source":{},"firstTimestamp":null,"lastTimestamp":null,"type":"Normal","eventTime":"2026-01-02T03:04:05.000006Z",
	"series":{"count":2,"lastObservedTime":"2026-01-02T03:04:06.000007Z"},"action":"Test","related":{"kind":"Pod","namespace":"`+e.ns+`","name":"p"},
	"reportingComponent":"example.com/tester","reportingInstance":"tester-1"}`)
	r = e.c.do(ctx, t, request{Path: core + "/ev1"})
	r.mustCode(t, http.StatusOK, "get through core/v1")
	if diff := cmp.Diff(wantCore, normalJSON(t, eventShape(decoded(t, r)))); diff != "" {
		t.Errorf("get through core/v1 (-want +got):\n%s", diff)
	}
	r = e.c.do(ctx, t, request{Path: core, Query: q("fieldSelector", "involvedObject.name=cm,reason=Tested")})
	r.mustCode(t, http.StatusOK, "list through core/v1")
	var items struct {
		Items []object `json:"items"`
	}
	r.decode(t, &items)
	if len(items.Items) != 1 || nameOf(items.Items[0]) != "ev1" {
		t.Errorf("core list selecting involvedObject.name=cm: %d items", len(items.Items))
	}
	ev := w.mustNext(ctx, "core event")
	if diff := cmp.Diff(wantCore, normalJSON(t, eventShape(ev.Object))); ev.Type != "ADDED" || diff != "" {
		t.Errorf("core watch event %s (-want +got):\n%s", ev.Type, diff)
	}

	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: core, Body: object{"apiVersion": "v1", "kind": "Event", "metadata": object{"name": "ev2"},
		"involvedObject": object{"kind": "ConfigMap", "name": "other", "namespace": e.ns}, "reason": "R", "message": "m", "type": "Warning",
		"source": object{"component": "kubelet", "host": "node-1"}, "count": 3,
		"firstTimestamp": "2026-01-02T03:04:05Z", "lastTimestamp": "2026-01-02T03:05:05Z"}})
	r.mustCode(t, http.StatusCreated, "create through core/v1")
	wantEvents := parseJSON(t, `{"apiVersion":"events.k8s.io/v1","kind":"Event","name":"ev2","labels":null,"eventTime":null,
	"reason":"R","regarding":{"kind":"ConfigMap","namespace":"`+e.ns+`","name":"other"},"note":"m","type":"Warning",
	"deprecatedSource":{"component":"kubelet","host":"node-1"},"deprecatedFirstTimestamp":"2026-01-02T03:04:05Z",
	"deprecatedLastTimestamp":"2026-01-02T03:05:05Z","deprecatedCount":3}`)
	r = e.c.do(ctx, t, request{Path: events + "/ev2"})
	r.mustCode(t, http.StatusOK, "get through events.k8s.io/v1")
	if diff := cmp.Diff(wantEvents, normalJSON(t, eventShape(decoded(t, r)))); diff != "" {
		t.Errorf("get through events.k8s.io/v1 (-want +got):\n%s", diff)
	}
	r = e.c.do(ctx, t, request{Path: events, Query: q("fieldSelector", "regarding.name=other")})
	r.mustCode(t, http.StatusOK, "list through events.k8s.io/v1")
	items.Items = nil
	r.decode(t, &items)
	if len(items.Items) != 1 || nameOf(items.Items[0]) != "ev2" {
		t.Errorf("events.k8s.io list selecting regarding.name=other: %d items", len(items.Items))
	}
}

// runWebhookEventsEquivalent: a create through events.k8s.io/v1 and a
// webhook whose rule names core/v1 events with matchPolicy Equivalent.
func runWebhookEventsEquivalent(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	coreRule := object{"operations": []string{"CREATE"}, "apiGroups": []string{""}, "apiVersions": []string{"v1"}, "resources": []string{"events"}}
	installWebhooks(ctx, t, e, wh, "validating", hook{name: "equivalent", path: "/allow", rules: []object{coreRule}})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/events.k8s.io/v1/namespaces/" + e.ns + "/events", Body: eventsV1("ev1", e.ns, validEventFields())})
	r.mustCode(t, http.StatusCreated, "create through events.k8s.io/v1")
	var got []string
	for _, req := range wh.requests("/allow", e.ns) {
		s := req.Kind.Group + "/" + req.Kind.Version + "/" + req.Kind.Kind
		if req.RequestKind != nil {
			s += " from " + metav1.GroupVersionKind(*req.RequestKind).String()
		}
		got = append(got, s)
	}
	if diff := cmp.Diff([]string{"/v1/Event from events.k8s.io/v1, Kind=Event"}, got); diff != "" {
		t.Errorf("requests of the Equivalent core/v1 webhook (-want +got):\n%s", diff)
	}
}
