package listwatch

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// change is one difference between the store and a new list.
type change struct {
	key      string
	old, obj runtime.Object // old is nil for an add, obj nil for a delete
	oldRV    uint64
	objRV    uint64
}

// replace makes the store equal to a list taken at listRV and tells the
// handler what changed, in four steps:
//
//  1. Refuse a list older than the client's RV (ErrListWentBackwards).
//  2. Diff the list against the store: keys gone, keys new, keys changed.
//  3. Swap the store's contents in one step (cache.Indexer.Replace), then
//     advance the client's RV to listRV.
//  4. Call the handler: OnDelete(DeletedFinalStateUnknown) for every key
//     gone (the watch missed its delete, so only the last known state is
//     at hand), then OnAdd or OnUpdate for every key new or at a newer RV.
//     An object recreated under the same key (another UID) is a delete of
//     the old one and an add of the new one; client-go's informer reports it
//     as a single OnUpdate instead.
func (c *Client) replace(items []runtime.Object, listRVText string) error {
	listRV, err := parseRV(listRVText)
	if err != nil {
		return err
	}
	if cur := c.rv.Load(); listRV < cur {
		return fmt.Errorf("%w: list at %d, client at %d", ErrListWentBackwards, listRV, cur)
	}
	gone, changed, err := c.diff(items)
	if err != nil {
		return err
	}
	objs := make([]any, len(items))
	for i, it := range items {
		objs[i] = it
	}
	if err := c.store.Replace(objs, listRVText); err != nil {
		return fmt.Errorf("replace store: %w", err)
	}
	c.setRV(listRV)
	initial := !c.synced.Load()
	for _, ch := range gone {
		c.deliverDeleteUnknown(ch)
	}
	for _, ch := range changed {
		c.deliverListed(ch, initial)
	}
	c.trace(TraceEvent{Kind: TraceListed, ListRV: listRVText, Items: len(items)})
	if initial {
		c.synced.Store(true)
		c.trace(TraceEvent{Kind: TraceSynced})
	}
	return nil
}

// diff compares items with the store: gone holds the stored objects whose
// keys are not in items, changed one entry per item (old nil if new).
func (c *Client) diff(items []runtime.Object) (gone, changed []change, err error) {
	listed := make(map[string]bool, len(items))
	for _, it := range items {
		ch := change{obj: it}
		if ch.key, err = c.opts.KeyFunc(it); err != nil {
			return nil, nil, fmt.Errorf("key of listed object: %w", err)
		}
		if ch.objRV, err = objectRV(it); err != nil {
			return nil, nil, err
		}
		listed[ch.key] = true
		if old, ok, _ := c.store.GetByKey(ch.key); ok {
			ch.old = old.(runtime.Object)
			ch.oldRV, _ = objectRV(ch.old) // stored objects were parsed before
		}
		changed = append(changed, ch)
	}
	for _, key := range c.store.ListKeys() {
		if listed[key] {
			continue
		}
		if old, ok, _ := c.store.GetByKey(key); ok {
			gone = append(gone, change{key: key, old: old.(runtime.Object)})
		}
	}
	return gone, changed, nil
}

// deliverDeleteUnknown reports an object that vanished while the client was
// not watching.
func (c *Client) deliverDeleteUnknown(ch change) {
	c.opts.Handler.OnDelete(cache.DeletedFinalStateUnknown{Key: ch.key, Obj: ch.old})
	c.trace(TraceEvent{Kind: TraceApplied, EventType: string(watch.Deleted), Key: ch.key,
		ObjectRV: formatRV(ch.oldRV), Reason: "missing from relist: DeletedFinalStateUnknown"})
}

// deliverListed reports one listed object: added, recreated, updated, or
// nothing if the handler already has this version.
func (c *Client) deliverListed(ch change, initial bool) {
	e := TraceEvent{Kind: TraceApplied, Key: ch.key, ObjectRV: formatRV(ch.objRV), Reason: "relist"}
	switch {
	case ch.old == nil:
		c.opts.Handler.OnAdd(ch.obj, initial)
		e.EventType = string(watch.Added)
	case uid(ch.old) != uid(ch.obj):
		c.opts.Handler.OnDelete(cache.DeletedFinalStateUnknown{Key: ch.key, Obj: ch.old})
		c.opts.Handler.OnAdd(ch.obj, initial)
		e.EventType, e.Reason = string(watch.Added), "relist: recreated with a new UID"
	case ch.objRV > ch.oldRV:
		c.opts.Handler.OnUpdate(ch.old, ch.obj)
		e.EventType = string(watch.Modified)
	case ch.objRV == ch.oldRV:
		return // unchanged: nothing to tell
	default:
		e.Kind, e.EventType, e.Reason = TraceSkipped, string(watch.Modified), "relist returned an older version than the one delivered"
	}
	c.trace(e)
}

// objectRV parses obj's metadata.resourceVersion.
func objectRV(obj runtime.Object) (uint64, error) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return 0, fmt.Errorf("object metadata: %w", err)
	}
	return parseRV(acc.GetResourceVersion())
}

// uid is obj's metadata.uid, "" if it has none.
func uid(obj runtime.Object) string {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return string(acc.GetUID())
}
