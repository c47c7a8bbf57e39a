package fakeapiserver

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
	"github.com/lw-sim/lw-sim/internal/fieldlabels"
)

// The store's secondary indexes. They only narrow what a LIST walks: a
// page read through one is the page a walk of every key gives (store
// ListOptions.Index), so continue tokens, hasMore and remainingItemCount
// do not depend on them. metadata.namespace and metadata.name need none:
// keys are "<namespace>/<name>", so a namespace is a key range and a name
// one key a namespace (store ListOptions.Scan and Name). The store keeps
// one tree an index for every retained state (store indexTrees), so an
// index costs an entry per object value, not a copy per write.
// kube-apiserver's watch cache indexes pods and resourceslices by
// spec.nodeName (pod/strategy.go and resourceslice/strategy.go Indexers)
// and uses the index for a read of its latest snapshot, where its hasMore
// counts the index's items: the fake does so too (store
// ListOptions.IndexMore).
const (
	// indexLabel indexes every object by each of its labels, as "key=value".
	indexLabel = "label"
	// indexNodeName indexes pods and resourceslices by spec.nodeName (""
	// for an unscheduled pod, or a slice without a node).
	indexNodeName = "spec.nodeName"
)

// nodeNameIndexed are the store partitions (storage keys) indexed by
// spec.nodeName, with their kinds: pods (pod/strategy.go Indexers) and
// resource.k8s.io/v1 resourceslices (resourceslice/strategy.go Indexers).
// The other served versions of ResourceSlice are partitions of their own
// (resources.go shareVersionStorage) and are not indexed.
var nodeNameIndexed = map[string]schema.GroupKind{
	"pods":                           {Kind: "Pod"},
	"resourceslices.resource.k8s.io": {Group: "resource.k8s.io", Kind: "ResourceSlice"},
}

// storeIndexes are the indexes of a store resource (its storage key).
func storeIndexes(resource string) []store.Index {
	ix := []store.Index{{Name: indexLabel, Values: labelIndexValues}}
	if gk, ok := nodeNameIndexed[resource]; ok {
		kindFields := fieldlabels.Builtin(gk).Fields
		ix = append(ix, store.Index{Name: indexNodeName, Values: func(obj runtime.Object) []string {
			return []string{kindFields(obj)["spec.nodeName"]}
		}})
	}
	return ix
}

// labelIndexValues are obj's labels as "key=value", in no set order.
func labelIndexValues(obj runtime.Object) []string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	ls := m.GetLabels()
	if len(ls) == 0 {
		return nil
	}
	out := make([]string, 0, len(ls))
	for k, v := range ls {
		out = append(out, k+"="+v)
	}
	// A fixed order, so an update that keeps the labels changes no index.
	slices.Sort(out)
	return out
}

// listNarrowing is what a LIST with these selectors need walk: the keys
// under a narrower prefix (scan), the key of one name in each namespace
// (name), or those of one index value; none of them for all keys under
// prefix. Every object the selectors match is among them.
func listNarrowing(res *resourceInfo, prefix string, ls labels.Selector, fs fields.Selector) (scan, name string, index *store.IndexValue) {
	// The watch cache's own index first: it decides hasMore (list.go
	// listRead.latest).
	if _, indexed := nodeNameIndexed[res.storageKey]; indexed && fs != nil {
		if node, ok := fs.RequiresExactMatch("spec.nodeName"); ok {
			return "", "", &store.IndexValue{Name: indexNodeName, Value: node}
		}
	}
	var ns string
	var hasNS, hasName bool
	if fs != nil && !fs.Empty() {
		if !res.ClusterScoped {
			ns, hasNS = fs.RequiresExactMatch("metadata.namespace")
		}
		name, hasName = fs.RequiresExactMatch("metadata.name")
	}
	// The keys are "<namespace>/<name>" (namespaced) or "<name>".
	switch {
	case res.ClusterScoped && hasName:
		return name, "", nil
	case prefix != "" && hasName:
		return prefix + name, "", nil
	case hasNS && hasName:
		return ns + "/" + name, "", nil
	case prefix == "" && hasNS:
		return ns + "/", "", nil
	case hasName:
		return "", name, nil
	}
	if ls != nil {
		reqs, _ := ls.Requirements()
		for _, r := range reqs {
			switch r.Operator() {
			case selection.Equals, selection.DoubleEquals, selection.In:
				if vs := r.Values(); vs.Len() == 1 {
					return "", "", &store.IndexValue{Name: indexLabel, Value: r.Key() + "=" + vs.UnsortedList()[0]}
				}
			}
		}
	}
	return "", "", nil
}

// narrowingDecides reports whether the keys a LIST walks (under prefix,
// narrowed by listNarrowing's scan or index) are exactly what the
// selectors match, so the LIST needs no filter and decodes nothing
// (store_codec.go): a label index value asked for by the only label
// requirement with no field selector, or one namespace's keys asked for by
// a metadata.namespace=X field selector alone.
func narrowingDecides(prefix, scan string, index *store.IndexValue, ls labels.Selector, fs fields.Selector) bool {
	noLabels := ls == nil || ls.Empty()
	noFields := fs == nil || fs.Empty()
	switch {
	case index != nil:
		if index.Name != indexLabel || !noFields || ls == nil {
			return false
		}
		reqs, _ := ls.Requirements()
		return len(reqs) == 1
	case noLabels && !noFields:
		return namespaceDecides(prefix, scan, fs)
	}
	return false
}

// namespaceDecides reports whether fs is the one requirement
// metadata.namespace=X and the walk is X's keys: its prefix (the path's
// namespace, or the one listNamespace narrowed to) or listNarrowing's scan
// (a continue page, read over all namespaces) is "X/". A path namespace
// other than X keeps the filter, which then matches nothing.
func namespaceDecides(prefix, scan string, fs fields.Selector) bool {
	reqs := fs.Requirements()
	if len(reqs) != 1 || reqs[0].Field != "metadata.namespace" {
		return false
	}
	if op := reqs[0].Operator; op != selection.Equals && op != selection.DoubleEquals {
		return false
	}
	keys := scopePrefix(reqs[0].Value)
	return keys != "" && (prefix == keys || (prefix == "" && scan == keys))
}
