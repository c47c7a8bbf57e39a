package watchcheck

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
)

// Change is one write in a [History]: the object it wrote, at the RV it
// got. A delete carries the object's last labels and fields.
type Change struct {
	RV      int64
	Key     string // "namespace/name", or "name" for a cluster-scoped object
	UID     string
	Deleted bool
	Labels  map[string]string
	// Fields are the object's selectable fields beyond metadata.name and
	// metadata.namespace (which Key gives), by field label: a Pod's
	// "spec.nodeName", a Secret's "type" ([FieldsOf] reads them). Only
	// streams with a field selector read them; a label missing reads "".
	Fields map[string]string `json:",omitempty"`
}

// History is every change of one resource, in strictly increasing RV
// order, starting from an empty collection (see the package doc).
type History []Change

// Validate reports a history whose RVs do not strictly increase, or whose
// changes do not form lifecycles (a delete of an absent object, an update
// with another UID).
func (h History) Validate() error {
	live := map[string]string{}
	for i, c := range h {
		if i > 0 && c.RV <= h[i-1].RV {
			return fmt.Errorf("watchcheck: history change %d at rv %d after rv %d", i, c.RV, h[i-1].RV)
		}
		uid, ok := live[c.Key]
		switch {
		case ok && uid != c.UID:
			return fmt.Errorf("watchcheck: history change at rv %d: %s has uid %q, live one %q", c.RV, c.Key, c.UID, uid)
		case !ok && c.Deleted:
			return fmt.Errorf("watchcheck: history change at rv %d deletes absent %s", c.RV, c.Key)
		case c.Deleted:
			delete(live, c.Key)
		default:
			live[c.Key] = c.UID
		}
	}
	return nil
}

// at returns the change at rv, if any.
func (h History) at(rv int64) (Change, bool) {
	i := sort.Search(len(h), func(i int) bool { return h[i].RV >= rv })
	if i < len(h) && h[i].RV == rv {
		return h[i], true
	}
	return Change{}, false
}

// version is one object as a stream sees it.
type version struct {
	Key, UID string
	RV       int64
}

// want is one event a stream should deliver.
type want struct {
	Type watch.EventType
	Key  string
	UID  string
	RV   int64
}

// view is the projection of a history through a stream's scope: its
// namespace, label selector and field selector.
type view struct {
	ns     string
	sel    labels.Selector
	fields fields.Selector
}

// viewOf is s's view; the field selector's aliased keys are rewritten as
// kube-apiserver rewrites them before matching.
func viewOf(s Stream) view {
	return view{ns: s.Namespace, sel: s.Selector, fields: canonicalFields(s.FieldSelector)}
}

func (v view) matches(c Change) bool {
	if v.ns != "" && namespaceOf(c.Key) != v.ns {
		return false
	}
	if v.fields != nil && !v.fields.Matches(fieldSet(c)) {
		return false
	}
	return v.sel == nil || v.sel.Matches(labels.Set(c.Labels))
}

// stateAt is the selection at rv: the matching live objects, by key.
func (h History) stateAt(v view, rv int64) map[string]version {
	state := map[string]version{}
	for _, c := range h {
		if c.RV > rv {
			break
		}
		if c.Deleted || !v.matches(c) {
			delete(state, c.Key)
			continue
		}
		state[c.Key] = version{Key: c.Key, UID: c.UID, RV: c.RV}
	}
	return state
}

// after is what a watch of v from rv delivers: every change after rv as
// the cacher converts it (cache_watcher.go convertToWatchEvent): in the
// selection before and after is MODIFIED, entering it ADDED, leaving it
// (or deleted in it) DELETED.
func (h History) after(v view, rv int64) []want {
	in := map[string]bool{}
	for k := range h.stateAt(v, rv) {
		in[k] = true
	}
	var out []want
	for _, c := range h {
		if c.RV <= rv {
			continue
		}
		before, now := in[c.Key], !c.Deleted && v.matches(c)
		var typ watch.EventType
		switch {
		case before && now:
			typ = watch.Modified
		case now:
			typ = watch.Added
		case before:
			typ = watch.Deleted
		default:
			continue
		}
		in[c.Key] = now
		out = append(out, want{Type: typ, Key: c.Key, UID: c.UID, RV: c.RV})
	}
	return out
}

// namespaceOf is the namespace part of a key ("" for cluster scope).
func namespaceOf(key string) string {
	for i := range len(key) {
		if key[i] == '/' {
			return key[:i]
		}
	}
	return ""
}

// HistoryFromEvents builds a history from a trusted, unfiltered watch's
// events (a watch from an RV before the first write, no selector): ADDED
// and MODIFIED write their object, DELETED deletes it; BOOKMARK and ERROR
// events are skipped. The result is only as right as that watch.
func HistoryFromEvents(events []Event) History {
	var h History
	for _, e := range events {
		switch e.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			h = append(h, Change{RV: e.RV, Key: e.Key, UID: e.UID, Deleted: e.Type == watch.Deleted, Labels: e.Labels, Fields: e.Fields})
		}
	}
	return h
}
