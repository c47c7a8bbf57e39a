package fakeapiserver

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/discovery"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/tables"
	"github.com/lw-sim/lw-sim/internal/fieldlabels"
)

// A CustomResourceDefinition's resource is served by the same handlers as
// the built-ins: each served version is one resourceInfo whose custom field
// carries what apiextensions-apiserver's crdHandler builds per version
// (pkg/apiserver/customresource_handler.go getOrCreateServingInfoFor): the
// structural schemas, the registry strategy (pkg/registry/customresource),
// the table convertor for additionalPrinterColumns and the JSON and YAML
// serializers that prune and coerce on decode. All versions of a CRD share
// one store partition (plural.group), whose objects are kept in the storage
// version; with conversion "None", reading through another version only
// rewrites apiVersion (done by the serializers on output), with "Webhook"
// the CRD's conversion webhook converts (customresource_conversion.go).

// crStrategy is the method set of customresource.NewStrategy's (unexported)
// strategy and of its status strategy that the handlers use.
type crStrategy interface {
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
	GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error)
}

// customResource is one served version of a CRD's resource. It is
// immutable; a CRD update builds new ones.
type customResource struct {
	crdName        string
	gk             schema.GroupKind
	version        string
	storageVersion string
	// serving returns the schemas and strategies, built on first use.
	serving               func() *crServing
	hasStatus             bool // the version has a status subresource
	preserveUnknownFields bool
	table                 tables.Convertor // nil: the default table
	categories            []string
	scale                 *apiextensionsv1.CustomResourceSubresourceScale
	// converter is the CRD's webhook converter (apiextensions-apiserver's
	// safe crConverter); nil for conversion "None".
	converter runtime.ObjectConvertor
	// life ends the resource's watches when its CRD is deleted; shared by
	// every version and by the entries of later updates of the same CRD.
	life *crLife
}

// crServing is what a served version validates, prunes and defaults
// with: what the crdHandler builds on the first request for the resource
// (getOrCreateServingInfoFor), not when the CRD is written, and what
// walking a large schema costs (converting it, its structural form, its
// validators). A version builds it when first used; if that fails (never
// for a CRD the v1 validation accepted: it requires structural schemas),
// its writes fail with the error, as the handler answers every request
// with it, and reads neither prune nor default.
type crServing struct {
	// structural holds the structural schema of every version with one,
	// defaults pruned as the handler prunes them; nil entries for none.
	structural map[string]*structuralschema.Structural
	// defaulting holds every version's defaulting schema: its structural
	// schema trimmed to the paths to its defaults, nil for none
	// (customresource_defaulting.go).
	defaulting     map[string]*structuralschema.Structural
	strategy       crStrategy
	statusStrategy crStrategy // nil without a status subresource
}

// crdSchemas are the schemas of every version of a CRD, which its served
// versions share.
type crdSchemas struct {
	internal   map[string]versionSchema
	structural map[string]*structuralschema.Structural
	defaulting map[string]*structuralschema.Structural
}

// buildCRDSchemas converts crd's schemas (internal, structural,
// defaulting), as the handler does.
func buildCRDSchemas(crd *apiextensionsv1.CustomResourceDefinition) (*crdSchemas, error) {
	internal := internalSchemas(crd)
	structural, err := structuralSchemas(crd, internal)
	if err != nil {
		return nil, err
	}
	return &crdSchemas{internal: internal, structural: structural, defaulting: defaultingSchemas(structural)}, nil
}

// failedStrategy is the strategy of a version whose serving info could
// not be built: every write is refused with the error.
type failedStrategy struct{ err error }

// PrepareForCreate does nothing.
func (failedStrategy) PrepareForCreate(context.Context, runtime.Object) {}

// PrepareForUpdate does nothing.
func (failedStrategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// Validate refuses obj with the error.
func (f failedStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return field.ErrorList{field.InternalError(nil, f.err)}
}

// ValidateUpdate refuses obj with the error.
func (f failedStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return field.ErrorList{field.InternalError(nil, f.err)}
}

// GetAttrs returns the error.
func (f failedStrategy) GetAttrs(runtime.Object) (labels.Set, fields.Set, error) {
	return nil, nil, f.err
}

// crLife is closed when the CRD's objects are all deleted and its
// resources unregistered: open watches then send what is left and end, as
// the real server ends them when it tears down the CR storage.
type crLife struct {
	once sync.Once
	done chan struct{}
}

func newCRLife() *crLife { return &crLife{done: make(chan struct{})} }

func (l *crLife) end() { l.once.Do(func() { close(l.done) }) }

// customResourceInfos builds the resource entries of every served version
// of an established CRD, as the crdHandler does on the first request; what
// walks the schema is built when first used: the schemas and strategies
// (crServing; a failure is logged to logger) and the type converter, from
// the specs in built (lazyTypeConverter). conv is its webhook converter
// (nil for conversion "None").
func customResourceInfos(crd *apiextensionsv1.CustomResourceDefinition, life *crLife, built *openapi.CRDSpecs, conv runtime.ObjectConvertor, logger *slog.Logger) ([]*resourceInfo, error) {
	tc := newLazyTypeConverter(func() managedfields.TypeConverter { return crdTypeConverter(crd, built) })
	storageVersion, err := apihelpers.GetCRDStorageVersion(crd)
	if err != nil {
		return nil, err
	}
	schemas := sync.OnceValues(func() (*crdSchemas, error) { return buildCRDSchemas(crd) })
	var infos []*resourceInfo
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		cr, err := newCustomResource(crd, v, storageVersion, schemas, life, logger)
		if err != nil {
			return nil, err
		}
		cr.converter = conv
		info := cr.resourceInfo(crd, v)
		info.TypeConverter = tc
		info.fields = &lazyFieldManagers{}
		infos = append(infos, info)
	}
	return infos, nil
}

// versionSchema is internalSchema's result for one version.
type versionSchema struct {
	internal *apiextensionsinternal.CustomResourceValidation
	err      error
}

// internalSchemas converts every version's schema once (a walk of the
// whole schema), for the structural schemas and the validators, which
// only read it.
func internalSchemas(crd *apiextensionsv1.CustomResourceDefinition) map[string]versionSchema {
	out := make(map[string]versionSchema, len(crd.Spec.Versions))
	for _, v := range crd.Spec.Versions {
		internal, err := internalSchema(crd, v.Name)
		out[v.Name] = versionSchema{internal: internal, err: err}
	}
	return out
}

// structuralSchemas converts each version's schema (its internal one in
// schemas) to a structural one, as the handler does (defaults pruned
// unless unknown fields are preserved).
func structuralSchemas(crd *apiextensionsv1.CustomResourceDefinition, schemas map[string]versionSchema) (map[string]*structuralschema.Structural, error) {
	out := map[string]*structuralschema.Structural{}
	for _, v := range crd.Spec.Versions {
		internal, err := schemas[v.Name].internal, schemas[v.Name].err
		if err != nil || internal == nil {
			out[v.Name] = nil
			continue
		}
		s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			if crd.Spec.PreserveUnknownFields {
				continue
			}
			return nil, fmt.Errorf("structural schema of %s %s: %w", crd.Name, v.Name, err)
		}
		if !crd.Spec.PreserveUnknownFields {
			s = s.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(s); err != nil {
				return nil, fmt.Errorf("prune defaults of %s %s: %w", crd.Name, v.Name, err)
			}
		}
		out[v.Name] = s
	}
	return out, nil
}

// internalSchema is a version's validation converted to the internal type
// the validation packages take (nil without a schema).
func internalSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*apiextensionsinternal.CustomResourceValidation, error) {
	val, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil || val == nil {
		return nil, err
	}
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
		return nil, fmt.Errorf("convert schema of %s %s: %w", crd.Name, version, err)
	}
	return internal, nil
}

// newCustomResource builds one version's entry: its table convertor and
// subresources now, its schemas (from schemas, shared by the CRD's
// versions) and strategy on first use (crServing; a failure is logged to
// logger).
func newCustomResource(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion, storageVersion string, schemas func() (*crdSchemas, error), life *crLife, logger *slog.Logger) (*customResource, error) {
	subresources, err := apihelpers.GetSubresourcesForVersion(crd, v.Name)
	if err != nil {
		return nil, err
	}
	var statusSpec *apiextensionsinternal.CustomResourceSubresourceStatus
	if subresources != nil && subresources.Status != nil {
		statusSpec = &apiextensionsinternal.CustomResourceSubresourceStatus{}
	}
	var scaleSpec *apiextensionsinternal.CustomResourceSubresourceScale
	var scale *apiextensionsv1.CustomResourceSubresourceScale
	if subresources != nil && subresources.Scale != nil {
		scale = subresources.Scale.DeepCopy()
		scaleSpec = &apiextensionsinternal.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scaleSpec, nil); err != nil {
			return nil, fmt.Errorf("convert scale of %s %s: %w", crd.Name, v.Name, err)
		}
	}
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Status.AcceptedNames.Kind}
	cr := &customResource{
		crdName:               crd.Name,
		gk:                    kind.GroupKind(),
		version:               v.Name,
		storageVersion:        storageVersion,
		hasStatus:             statusSpec != nil,
		preserveUnknownFields: crd.Spec.PreserveUnknownFields,
		categories:            crd.Status.AcceptedNames.Categories,
		scale:                 scale,
		life:                  life,
	}
	cr.serving = sync.OnceValue(func() *crServing {
		sch, err := schemas()
		var srv *crServing
		if err == nil {
			srv, err = newCRServing(crd, v, kind, sch, statusSpec, scaleSpec)
		}
		if err != nil {
			logger.Warn("fakeapiserver: CustomResourceDefinition not served", "name", crd.Name, "version", v.Name, "err", err)
			srv = &crServing{strategy: failedStrategy{err: err}}
			if statusSpec != nil {
				srv.statusStrategy = failedStrategy{err: err}
			}
		}
		return srv
	})
	cr.table = tables.CustomResourceConvertor(v.AdditionalPrinterColumns)
	return cr, nil
}

// newCRServing builds the validators and strategy of version v of crd,
// of kind, from its schemas sch.
func newCRServing(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion, kind schema.GroupVersionKind, sch *crdSchemas,
	statusSpec *apiextensionsinternal.CustomResourceSubresourceStatus, scaleSpec *apiextensionsinternal.CustomResourceSubresourceScale) (*crServing, error) {
	vs := sch.internal[v.Name]
	internal, err := vs.internal, vs.err
	if err != nil {
		return nil, err
	}
	var props *apiextensionsinternal.JSONSchemaProps
	if internal != nil {
		props = internal.OpenAPIV3Schema
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, fmt.Errorf("schema validator of %s %s: %w", crd.Name, v.Name, err)
	}
	var statusValidator apiservervalidation.SchemaValidator
	if statusSpec != nil {
		// For the status subresource, validate only against the status schema.
		if props != nil && props.Properties != nil {
			if st, ok := props.Properties["status"]; ok {
				if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&st); err != nil {
					return nil, fmt.Errorf("status validator of %s %s: %w", crd.Name, v.Name, err)
				}
			}
		}
	}
	strategy := customresource.NewStrategy(unstructuredTyper{}, crd.Spec.Scope == apiextensionsv1.NamespaceScoped, kind,
		validator, statusValidator, sch.structural[v.Name], statusSpec, scaleSpec, v.SelectableFields)
	srv := &crServing{structural: sch.structural, defaulting: sch.defaulting, strategy: strategy}
	if statusSpec != nil {
		srv.statusStrategy = customresource.NewStatusStrategy(strategy)
	}
	return srv, nil
}

// resourceInfo is the handlers' view of one served version.
func (cr *customResource) resourceInfo(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion) *resourceInfo {
	names := crd.Status.AcceptedNames
	gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
	kind := gv.WithKind(names.Kind)
	listKind := gv.WithKind(names.ListKind)
	info := &resourceInfo{
		Resource: Resource{
			Kind:          kind,
			Plural:        names.Plural,
			ClusterScoped: crd.Spec.Scope == apiextensionsv1.ClusterScoped,
			ShortNames:    names.ShortNames,
			FieldLabels:   fieldlabels.ForCustomResource(crd.Spec.Scope == apiextensionsv1.NamespaceScoped, v.SelectableFields, cr.selectableFields),
			Default:       cr.defaultObject,
		},
		gvr:        gv.WithResource(names.Plural),
		listKind:   listKind,
		singular:   names.Singular,
		hasStatus:  cr.hasStatus,
		verbs:      discovery.StoredVerbs(),
		storageKey: schema.GroupResource{Group: crd.Spec.Group, Resource: names.Plural}.String(),
		custom:     cr,
		writes:     customWrites{},
		reads:      customReads{},
	}
	info.newObject = func() runtime.Object {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(kind)
		return u
	}
	info.newList = func() runtime.Object {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(listKind)
		return l
	}
	return info
}

// selectableFields is the strategy's field set (metadata fields and the
// CRD's selectableFields); an object it cannot read has none. A stored
// object of a CRD converted by a webhook is read as this version's watch
// cache holds it, converted (customresource_conversion.go); one the
// webhook cannot convert has none.
func (cr *customResource) selectableFields(obj runtime.Object) fields.Set {
	if u, ok := obj.(*unstructured.Unstructured); ok && cr.convertsByWebhook() && u.GroupVersionKind().Version != cr.version {
		view, err := cr.readView(u)
		if err != nil {
			return nil
		}
		obj = view
	}
	_, set, err := cr.serving().strategy.GetAttrs(obj)
	if err != nil {
		return nil
	}
	return set
}

// defaultObject applies the structural schema's defaults of the object's
// version, as the handler's unstructuredDefaulter does after decoding
// (walking only the paths to them: customresource_defaulting.go).
func (cr *customResource) defaultObject(obj runtime.Object) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	structuraldefaulting.Default(u.UnstructuredContent(), cr.serving().defaulting[u.GroupVersionKind().Version])
}

// gone is closed when the CRD is deleted; nil (never ready) for built-ins.
func (r *resourceInfo) gone() <-chan struct{} { return r.readStrategy().gone(r) }

// unstructuredTyper types unstructured objects by their apiVersion and
// kind (crdserverscheme's UnstructuredObjectTyper, without its global use).
type unstructuredTyper struct{}

func (unstructuredTyper) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	if _, ok := obj.(runtime.Unstructured); !ok {
		return nil, false, fmt.Errorf("fakeapiserver: %T is not unstructured", obj)
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		return nil, false, runtime.NewMissingKindErr("object has no kind field ")
	}
	if gvk.Version == "" {
		return nil, false, runtime.NewMissingVersionErr("object has no apiVersion field")
	}
	return []schema.GroupVersionKind{gvk}, false, nil
}

func (unstructuredTyper) Recognizes(schema.GroupVersionKind) bool { return true }
