package tables

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Resource is what the Table conversion needs to know about the served
// resource whose objects it converts.
type Resource interface {
	// GroupVersionKind is the served kind: it picks the built-in printer
	// and is set on whole objects embedded in rows.
	GroupVersionKind() schema.GroupVersionKind
	// GroupResource names the resource in the 406 of a kind that cannot
	// be printed ("limitranges", "deployments.apps").
	GroupResource() schema.GroupResource
	// TableConvertor is the resource's own convertor (a custom resource's
	// [CustomResourceConvertor]); nil means the built-in printers.
	TableConvertor() Convertor
}

// Convertor is the method of apiserver's rest.TableConvertor that
// apiextensions-apiserver's tableconvertor.New result offers.
type Convertor interface {
	ConvertToTable(ctx context.Context, obj, tableOptions runtime.Object) (*metav1.Table, error)
}

// Options are the request-dependent inputs of a conversion.
type Options struct {
	// ListMeta is copied into the Table (resourceVersion, continue,
	// remainingItemCount). A zero ListMeta with exactly one object (a GET,
	// a watch event) gives the Table that object's resourceVersion, as the
	// printers' GenerateTable does for a single object.
	ListMeta metav1.ListMeta
	// IncludeObject is the ?includeObject= query value ("" means the
	// default, Metadata).
	IncludeObject metav1.IncludeObjectPolicy
	// Now is the time ages are computed at (the server's clock).
	Now time.Time
	// List is set when objs are a list's items (even one or none), unset
	// for a single object (a GET, a watch event): kube-apiserver prints
	// some lists differently (StorageClass marks the default class).
	List bool
}

// Convert converts objects of one resource into the Table kubectl asks
// for. Errors: an invalid IncludeObject is a 400 with kube-apiserver's text
// ([ValidateIncludeObject]); an object the kind's printer cannot print is a
// 406 for the default convertor (no metadata) and a plain error (the
// server's 500) otherwise.
func Convert(res Resource, objs []runtime.Object, opts Options) (*metav1.Table, error) {
	if err := ValidateIncludeObject(opts.IncludeObject); err != nil {
		return nil, err
	}
	if c := res.TableConvertor(); c != nil {
		return convertCustom(res, c, objs, opts) // customresource.go
	}
	p, hasPrinter := printers[res.GroupVersionKind().GroupKind()]
	if !hasPrinter {
		p = defaultPrinter
	}
	table := &metav1.Table{
		TypeMeta:          tableTypeMeta,
		ListMeta:          opts.ListMeta,
		ColumnDefinitions: slices.Clone(p.columns),
	}
	if !p.nilRows {
		table.Rows = make([]metav1.TableRow, 0, len(objs))
	}
	printRow := p.row
	if opts.List && p.listRow != nil {
		printRow = p.listRow(objs)
	}
	for _, obj := range objs {
		row, ok := printRow(obj, opts.Now)
		if !ok {
			return nil, cannotPrint(res, obj, hasPrinter)
		}
		embedded, err := rowObject(res, obj, opts.IncludeObject)
		if err != nil {
			return nil, err
		}
		row.Object.Object = embedded
		table.Rows = append(table.Rows, row)
	}
	if opts.ListMeta == (metav1.ListMeta{}) && len(objs) == 1 {
		if m, err := meta.Accessor(objs[0]); err == nil {
			table.ResourceVersion = m.GetResourceVersion()
		}
	}
	return table, nil
}

// tableTypeMeta is the apiVersion and kind of every Table.
var tableTypeMeta = metav1.TypeMeta{Kind: "Table", APIVersion: metav1.SchemeGroupVersion.String()}

// ValidateIncludeObject checks ?includeObject= as apiserver's
// optionsForTransform does (handlers/response.go, with
// meta/v1beta1/validation.ValidateTableOptions), before any conversion; a
// watch handler calls it before it starts the stream.
func ValidateIncludeObject(p metav1.IncludeObjectPolicy) error {
	switch p {
	case metav1.IncludeMetadata, metav1.IncludeNone, metav1.IncludeObject, "":
		return nil
	}
	fe := field.Invalid(field.NewPath("includeObject"), p, "must be 'Metadata', 'Object', 'None', or empty")
	return apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", fe.Error()))
}

// rowObject is the object a row embeds for the includeObject policy, as
// asTable sets it. Store objects are shared, so one without its apiVersion
// and kind is copied before they are set.
func rowObject(res Resource, obj runtime.Object, p metav1.IncludeObjectPolicy) (runtime.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	switch {
	case p == metav1.IncludeObject:
		if obj.GetObjectKind().GroupVersionKind().Empty() {
			obj = obj.DeepCopyObject()
			obj.GetObjectKind().SetGroupVersionKind(res.GroupVersionKind())
		}
		return obj, nil
	case p == metav1.IncludeNone && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true":
		return nil, nil
	default:
		// Metadata, "" and the initial-events-end bookmark object.
		partial := meta.AsPartialObjectMetadata(m)
		partial.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
		return partial, nil
	}
}

// cannotPrint is the error for an object the kind's printer cannot print:
// the default convertor's 406 (rest/table.go errNotAcceptable) for one
// without metadata, the table generator's "no table handler" 500 for a Go
// type the printer does not take.
func cannotPrint(res Resource, obj runtime.Object, hasPrinter bool) error {
	if !hasPrinter {
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusNotAcceptable,
			Reason:  metav1.StatusReason("NotAcceptable"),
			Message: fmt.Sprintf("the resource %s does not support being converted to a Table", res.GroupResource()),
		}}
	}
	return fmt.Errorf("no table handler registered for this type %T", obj)
}
