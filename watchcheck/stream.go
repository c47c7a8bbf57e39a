package watchcheck

import (
	"errors"
	"fmt"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
)

// Event is one delivered watch event, reduced to what the guarantees are
// about. An ERROR event has only Type and Code.
type Event struct {
	Type   watch.EventType
	Key    string
	UID    string
	RV     int64
	Labels map[string]string `json:",omitempty"`
	// Fields are the object's selectable fields ([FieldsOf]), so a
	// history built from events ([HistoryFromEvents]) can be projected
	// through field selectors.
	Fields map[string]string `json:",omitempty"`
	// InitialEventsEnd marks the BOOKMARK that ends a watch-list's
	// initial events (metadata.annotations["k8s.io/initial-events-end"]).
	InitialEventsEnd bool `json:",omitempty"`
	// Code is an ERROR event's Status code (410 for an expired RV).
	Code int32 `json:",omitempty"`
}

// Stream is one watch as it was opened and what it delivered.
type Stream struct {
	// Name labels the stream in reports (e.g. the request URL).
	Name string
	// Resource is the plural resource ("configmaps", "deployments.apps");
	// [Transport] fills it in so streams can be matched to histories.
	Resource string
	// StartRV is the watch's resourceVersion. 0 is "" or "0": without
	// InitialEvents the stream starts wherever the server was, and the
	// check is anchored at its first event (Resumable is not checked).
	StartRV int64
	// InitialEvents is sendInitialEvents=true (or the legacy RV "0"
	// watch): the stream opens with ADDED events for a snapshot, which
	// the initial-events-end bookmark dates. Without that bookmark only
	// the initial events' own consistency is checked.
	InitialEvents bool
	// Namespace scopes the watch; "" is all namespaces.
	Namespace string
	// Selector is the label selector; nil selects everything.
	Selector labels.Selector
	// FieldSelector is the field selector (a watch of one object by its
	// path is metadata.name=<name>); nil selects everything. It matches
	// the history's Key (metadata.name, metadata.namespace) and Fields.
	FieldSelector fields.Selector
	// Events are what the watch delivered, in order.
	Events []Event
}

// FromWatchEvent reduces a client-go watch event.
func FromWatchEvent(ev watch.Event) (Event, error) {
	if ev.Type == watch.Error {
		var st apierrors.APIStatus
		if errors.As(apierrors.FromObject(ev.Object), &st) {
			return Event{Type: ev.Type, Code: st.Status().Code}, nil
		}
		return Event{Type: ev.Type}, nil
	}
	m, err := meta.Accessor(ev.Object)
	if err != nil {
		return Event{}, fmt.Errorf("watchcheck: %s event of %T: %w", ev.Type, ev.Object, err)
	}
	e, err := fromMeta(ev.Type, m.GetNamespace(), m.GetName(), string(m.GetUID()), m.GetResourceVersion(), m.GetLabels(), m.GetAnnotations())
	if err != nil || e.Type == watch.Bookmark {
		return e, err
	}
	e.Fields = FieldsOfObject(ev.Object)
	return e, nil
}

func fromMeta(typ watch.EventType, ns, name, uid, rv string, lbls, annotations map[string]string) (Event, error) {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return Event{}, fmt.Errorf("watchcheck: %s event of %s/%s: resourceVersion %q: %w", typ, ns, name, rv, err)
	}
	e := Event{Type: typ, RV: n}
	if typ == watch.Bookmark {
		e.InitialEventsEnd = annotations[metav1.InitialEventsAnnotationKey] == "true"
		return e, nil
	}
	e.Key, e.UID, e.Labels = name, uid, lbls
	if ns != "" {
		e.Key = ns + "/" + name
	}
	return e, nil
}

// Recorder is a watch.Interface that records what it passes on. Read the
// record with [Recorder.Stream] once the watch is stopped or drained.
type Recorder struct {
	inner watch.Interface
	out   chan watch.Event
	done  chan struct{}
	stop  sync.Once

	// mu guards stream.
	mu     sync.Mutex
	stream Stream
}

// Record wraps w: every event read from the returned Recorder is recorded
// into a copy of s (its parameters; its Events are appended to). The
// Recorder's goroutine ends when w's result channel closes or Stop is
// called.
func Record(w watch.Interface, s Stream) *Recorder {
	r := &Recorder{inner: w, out: make(chan watch.Event), done: make(chan struct{}), stream: s}
	go r.run()
	return r
}

func (r *Recorder) run() {
	defer close(r.out)
	for ev := range r.inner.ResultChan() {
		if e, err := FromWatchEvent(ev); err == nil {
			r.mu.Lock()
			r.stream.Events = append(r.stream.Events, e)
			r.mu.Unlock()
		}
		select {
		case r.out <- ev:
		case <-r.done:
			return
		}
	}
}

// ResultChan implements watch.Interface.
func (r *Recorder) ResultChan() <-chan watch.Event { return r.out }

// Stop implements watch.Interface: it stops the inner watch and ends the
// recorder's goroutine.
func (r *Recorder) Stop() {
	r.stop.Do(func() {
		close(r.done)
		r.inner.Stop()
	})
}

// Stream returns what was recorded so far.
func (r *Recorder) Stream() Stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stream
	s.Events = append([]Event(nil), s.Events...)
	return s
}
