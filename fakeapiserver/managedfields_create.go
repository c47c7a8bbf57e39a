package fakeapiserver

import (
	"bytes"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// createFields computes the managedFields a create records, the same
// entry FieldManager.UpdateNoErrors would write, without the field
// manager's layers: a create starts from the empty object, whose typed
// value is computed once here instead of deep-copied and converted on
// every request, and from no managed fields, for which every layer but
// the structured merge is a pass-through. [createFields.track] reports
// when it cannot take that shortcut, and the caller then runs the field
// manager itself.
//
// The layers of managedfields.NewDefaultFieldManager (apimachinery
// pkg/util/managedfields/internal/fieldmanager.go) on a create whose body
// carries no managedFields: decodeLiveOrNew yields no managers;
// versionCheck, lastAppliedUpdater and lastAppliedManager pass Update
// through; skipNonApplied tracks (the live object has no UID and the
// tracking probability is 1); capManagers has one manager to cap;
// buildManagerInfo names the manager {manager or "unknown", Update,
// apiVersion}; managedFieldsUpdater stamps it with the time; stripMeta
// removes its fixed metadata paths; structuredMerge records
// Compare(live, new).Modified ∪ Added through the reset filter
// (merge.Updater.Update with no other manager). The rapid property in
// managedfields_create_test.go holds this against the field manager.
type createFields struct {
	tc         managedfields.TypeConverter
	empty      *typed.TypedValue
	filter     fieldpath.Filter
	kind       schema.GroupVersionKind
	apiVersion string
	// shapes remembers fieldsOf's outcome per object shape
	// (managedfields_create_shape.go).
	shapes *shapeMemo
}

// stripMetaSet is the set stripMetaManager removes from every manager's
// fields (internal/stripmeta.go NewStripMetaManager).
var stripMetaSet = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

// newCreateFields prepares the create shortcut of info's main endpoint:
// the empty object as the field manager sees a create's live object
// (converted to the served version, which sets its kind), as a typed
// value, and the main endpoint's reset filter.
func newCreateFields(scheme *runtime.Scheme, info *resourceInfo, tc managedfields.TypeConverter, reset map[fieldpath.APIVersion]fieldpath.Filter) (*createFields, error) {
	gv := info.Kind.GroupVersion()
	live, err := scheme.ConvertToVersion(info.newObject(), gv)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: resource %s: empty object: %w", info.Kind, err)
	}
	empty, err := tc.ObjectToTyped(live, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: resource %s: empty object: %w", info.Kind, err)
	}
	v := fieldpath.APIVersion(gv.String())
	return &createFields{tc: tc, empty: empty, filter: reset[v], kind: info.Kind, apiVersion: gv.String(), shapes: newShapeMemo(live)}, nil
}

// track records manager's create of obj into its managedFields, stamped
// now, and reports whether it did. It declines, leaving obj as it was,
// when obj carries managedFields (the field manager then starts from
// them), is not of the served kind, or when conversion or comparison
// fails or nothing would be recorded (the field manager's own outcome
// for those is its business).
func (c *createFields) track(obj runtime.Object, manager string, now time.Time) bool {
	m := mustAccessor(obj)
	if len(m.GetManagedFields()) != 0 || obj.GetObjectKind().GroupVersionKind() != c.kind {
		return false
	}
	m.SetManagedFields(nil) // RemoveObjectManagedFields, before the conversion
	fields, ok := c.fieldsOf(obj)
	if !ok {
		return false
	}
	if manager == "" {
		manager = "unknown" // buildManagerInfoManager
	}
	m.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager:    manager,
		Operation:  metav1.ManagedFieldsOperationUpdate,
		APIVersion: c.apiVersion,
		Time:       &metav1.Time{Time: now},
		FieldsType: "FieldsV1",
		FieldsV1:   &metav1.FieldsV1{Raw: fields},
	}})
	return true
}

// fieldsOf is the FieldsV1 encoding of the fields a create of obj sets,
// remembered per shape of obj. The bytes are the caller's own.
func (c *createFields) fieldsOf(obj runtime.Object) ([]byte, bool) {
	shape, ok := c.shapes.shapeOf(obj)
	if !ok {
		return c.computeFields(obj)
	}
	if f, ok := c.shapes.get(shape); ok {
		return bytes.Clone(f.raw), f.ok
	}
	raw, ok := c.computeFields(obj)
	c.shapes.put(shape, shapeFields{raw: bytes.Clone(raw), ok: ok})
	return raw, ok
}

// computeFields is fieldsOf without the memo: the fields Compare finds
// between the empty object and obj, through the reset filter, without
// stripMeta's paths.
func (c *createFields) computeFields(obj runtime.Object) ([]byte, bool) {
	typedObj, err := c.tc.ObjectToTyped(obj, typed.AllowDuplicates)
	if err != nil {
		return nil, false
	}
	cmp, err := c.empty.Compare(typedObj)
	if err != nil {
		return nil, false
	}
	set := cmp.Modified.Union(cmp.Added)
	if c.filter != nil {
		set = c.filter.Filter(set)
	}
	set = set.Difference(stripMetaSet)
	if set.Empty() {
		return nil, false
	}
	raw, err := set.ToJSON()
	if err != nil {
		return nil, false
	}
	return raw, true
}
