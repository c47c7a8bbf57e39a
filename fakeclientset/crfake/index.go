package crfake

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// indexes are the field indexes of a client: per kind, per field, the
// function giving an object's values. They live in the client, as in a
// manager's informer cache: the server has none.
type indexes struct {
	// mu guards byKind; it is a pointer so the builder's value and the
	// client's share one table (AddIndex after Build).
	mu     *sync.RWMutex
	byKind map[schema.GroupVersionKind]map[string]client.IndexerFunc
}

// add registers fn for field of gvk; a field indexed twice is an error
// (controller-runtime's builder panics with it, AddIndex returns it).
func (x *indexes) add(gvk schema.GroupVersionKind, field string, fn client.IndexerFunc) error {
	if x.mu == nil {
		x.mu = &sync.RWMutex{}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.byKind == nil {
		x.byKind = map[schema.GroupVersionKind]map[string]client.IndexerFunc{}
	}
	if x.byKind[gvk] == nil {
		x.byKind[gvk] = map[string]client.IndexerFunc{}
	}
	if x.byKind[gvk][field] != nil {
		return fmt.Errorf("indexer conflict: field %s for GroupVersionKind %v is already indexed", field, gvk)
	}
	x.byKind[gvk][field] = fn
	return nil
}

// lookup is the index of field for gvk, nil when there is none.
func (x *indexes) lookup(gvk schema.GroupVersionKind, field string) client.IndexerFunc {
	if x.mu == nil {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.byKind[gvk][field]
}

// list lists from the server, answering the requirements of the field
// selector on indexed fields as a manager's cache does
// (pkg/cache/internal/cache_reader.go List: an exact match on an index,
// the limit applied to what matched, no continue):
//
//  1. Requirements on fields with no index for the list's kind go to the
//     server with the request (its field selectors, or its 400).
//  2. If any requirement is on an indexed field, it must be = or ==, the
//     list has no continue token, and the server's list is read whole.
//  3. An item stays when, for every indexed requirement, the index gives
//     it the value; then the limit cuts the items.
func (c *Client) list(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	if lo.FieldSelector == nil || lo.FieldSelector.Empty() {
		return cl.List(ctx, list, opts...)
	}
	gvk, err := apiutil.GVKForObject(list, c.Scheme())
	if err != nil {
		return err
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	var server []fields.Selector
	local := map[string]client.IndexerFunc{}
	values := map[string]string{}
	for _, r := range lo.FieldSelector.Requirements() {
		fn := c.indexes.lookup(gvk, r.Field)
		if fn == nil {
			server = append(server, requirementSelector(r))
			continue
		}
		if r.Operator != selection.Equals && r.Operator != selection.DoubleEquals {
			return fmt.Errorf("field selector on indexed field %q: only exact matches are supported, as by the cache", r.Field)
		}
		local[r.Field], values[r.Field] = fn, r.Value
	}
	if len(local) == 0 {
		return cl.List(ctx, list, opts...)
	}
	if lo.Continue != "" {
		return errors.New("continue list option is not supported by the cache")
	}
	limit := lo.Limit
	lo.Limit = 0
	lo.FieldSelector = nil
	if len(server) > 0 {
		lo.FieldSelector = fields.AndSelectors(server...)
	}
	if err := cl.List(ctx, list, lo); err != nil {
		return err
	}
	return filterList(list, local, values, limit)
}

// filterList keeps the items whose indexes give the wanted values, at most
// limit of them (0: all).
func filterList(list client.ObjectList, local map[string]client.IndexerFunc, values map[string]string, limit int64) error {
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	kept := make([]runtime.Object, 0, len(items))
	for _, item := range items {
		obj, ok := item.(client.Object)
		if !ok || !matches(obj, local, values) {
			continue
		}
		if limit > 0 && int64(len(kept)) == limit {
			break
		}
		kept = append(kept, item)
	}
	return meta.SetList(list, kept)
}

// matches says whether every index gives obj its wanted value.
func matches(obj client.Object, local map[string]client.IndexerFunc, values map[string]string) bool {
	for field, fn := range local {
		found := false
		for _, v := range fn(obj) {
			if v == values[field] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// requirementSelector is one requirement as a selector.
func requirementSelector(r fields.Requirement) fields.Selector {
	if r.Operator == selection.NotEquals {
		return fields.OneTermNotEqualSelector(r.Field, r.Value)
	}
	return fields.OneTermEqualSelector(r.Field, r.Value)
}
