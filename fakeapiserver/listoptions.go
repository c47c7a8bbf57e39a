package fakeapiserver

import (
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionvalidation "k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
	"github.com/lw-sim/lw-sim/internal/fieldlabels"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// watchListEnabled is the state of kube-apiserver's WatchList feature gate
// in v1.37 (Beta, on): it changes both defaulting and validation.
const watchListEnabled = true

// listParams are the parsed, defaulted and validated options of a LIST or
// WATCH, plus what the store needs to read.
type listParams struct {
	opts metainternalversion.ListOptions
	// prefix is the store key prefix of the request's scope: "<ns>/" for
	// one namespace, "" for all namespaces or cluster-scoped resources.
	prefix string
	// filter matches the label and field selectors; nil when both are empty.
	filter func(runtime.Object) bool
	// hasSelector is true when a label or field selector restricts the
	// result, which suppresses remainingItemCount.
	hasSelector bool
	// scan, name and index narrow what a LIST walks to where the
	// selectors' matches can be (listNarrowing); unset, every key under
	// prefix.
	scan, name string
	index      *store.IndexValue
	// narrowed says the keys walked (prefix, scan, index) are exactly what
	// the selectors match (narrowingDecides): a LIST needs no filter then,
	// so it does not decode the objects it visits (store_codec.go).
	narrowed bool
}

// parseListOptions decodes the query as kube-apiserver's listOpts does
// (apiserver pkg/endpoints/handlers/get.go): decode (400), apply the
// WatchList defaults, validate (422 on ListOptions), convert field-selector
// labels (400), and turn a name in the path into a metadata.name selector.
func (s *Server) parseListOptions(req *request) (listParams, error) {
	var p listParams
	opts := &p.opts
	if err := decodeListOptions(kubewire.QueryOf(req.r), opts); err != nil {
		return p, apierrors.NewBadRequest(err.Error())
	}
	if req.verb == "watch" {
		opts.Watch = true
	}
	metainternalversion.SetListOptionsDefaults(opts, watchListEnabled)
	if errs := metainternalversionvalidation.ValidateListOptions(opts, watchListEnabled); len(errs) > 0 {
		return p, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
	}
	if opts.FieldSelector != nil {
		sel, err := fieldlabels.Convert(req.res.Kind.GroupKind(), req.res.FieldLabels, opts.FieldSelector)
		if err != nil {
			return p, apierrors.NewBadRequest(err.Error())
		}
		opts.FieldSelector = sel
	}
	if req.info.name != "" {
		if err := applyNameSelector(opts, req.info.name); err != nil {
			return p, err
		}
	}
	p.prefix = scopePrefix(listNamespace(req, opts))
	p.filter, p.hasSelector = s.selectorFilter(req.res, opts.LabelSelector, opts.FieldSelector)
	if p.hasSelector {
		p.scan, p.name, p.index = listNarrowing(req.res, p.prefix, opts.LabelSelector, opts.FieldSelector)
		p.narrowed = narrowingDecides(p.prefix, p.scan, p.index, opts.LabelSelector, opts.FieldSelector)
	}
	return p, nil
}

// decodeListOptions is
// metainternalversionscheme.ParameterCodec.DecodeParameters(query,
// metav1.SchemeGroupVersion, opts) without the scheme's lookups and
// allocations: nothing for an empty query, else the two conversions the
// codec finds for it (url.Values to v1, v1 to internal; neither has
// defaults), called directly. TestDecodeListOptionsMatchesCodec holds it
// to the codec's answers, errors included.
func decodeListOptions(query url.Values, opts *metainternalversion.ListOptions) error {
	if len(query) == 0 {
		return nil
	}
	var v1opts metav1.ListOptions
	if err := metav1.Convert_url_Values_To_v1_ListOptions(&query, &v1opts, nil); err != nil {
		return err
	}
	return metainternalversion.Convert_v1_ListOptions_To_internalversion_ListOptions(&v1opts, opts, nil)
}

// applyNameSelector makes a name in the path (a single-object watch) a
// metadata.name field selector; an explicit conflicting selector is a 400.
func applyNameSelector(opts *metainternalversion.ListOptions, name string) error {
	if opts.FieldSelector != nil && !opts.FieldSelector.Empty() {
		selected, ok := opts.FieldSelector.RequiresExactMatch("metadata.name")
		if !ok || selected != name {
			return apierrors.NewBadRequest("fieldSelector metadata.name doesn't match requested name")
		}
		return nil
	}
	opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", name)
	return nil
}

// listNamespace is the namespace a LIST or WATCH reads: the one in the
// path or, for an all-namespaces request of a namespaced resource, the one a
// metadata.namespace=X field selector pins, as the registry narrows the
// storage key (apiserver pkg/registry/generic/registry/store.go
// ListPredicate, SelectionPredicate.MatchesSingleNamespace). Narrowing
// changes what a page sees: hasMore, and the continue token's start key,
// which becomes relative to the namespace. MatchesSingleNamespace refuses to
// narrow when a continue token is present, so a continue page of such a
// list is read over all namespaces with the token's namespace-relative key,
// exactly as upstream does.
func listNamespace(req *request, opts *metainternalversion.ListOptions) string {
	if req.info.namespace != "" || req.res.ClusterScoped || opts.Continue != "" || opts.FieldSelector == nil {
		return req.info.namespace
	}
	ns, ok := opts.FieldSelector.RequiresExactMatch("metadata.namespace")
	if !ok || len(apimachineryvalidation.ValidateNamespaceName(ns, false)) > 0 {
		return ""
	}
	return ns
}

// scopePrefix is the store key prefix of a namespace ("" for all).
func scopePrefix(namespace string) string {
	if namespace == "" {
		return ""
	}
	return namespace + "/"
}

// selectorFilter builds the object filter for the selectors; it returns nil
// when nothing is selected away, so the store can count remaining items.
func (s *Server) selectorFilter(res *resourceInfo, ls labels.Selector, fs fields.Selector) (func(runtime.Object) bool, bool) {
	hasLabels := ls != nil && !ls.Empty()
	hasFields := fs != nil && !fs.Empty()
	if !hasLabels && !hasFields {
		return nil, false
	}
	return func(obj runtime.Object) bool {
		if hasLabels {
			m, err := meta.Accessor(obj)
			if err != nil || !ls.Matches(labels.Set(m.GetLabels())) {
				return false
			}
		}
		if hasFields && res.convertsOnRead() {
			// The fields of the version asked for (an events.k8s.io
			// Event's regarding.name is the stored involvedObject.name):
			// builtin_conversion.go.
			view, err := res.conversion.fromStorage(obj)
			if err != nil {
				return false
			}
			obj = view
		}
		return !hasFields || fs.Matches(fieldlabels.Set(res.FieldLabels, !res.ClusterScoped, obj))
	}, true
}
