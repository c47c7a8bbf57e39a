package fakeapiserver

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
)

// crdController holds what a server needs to serve CustomResourceDefinitions:
// apiextensions-apiserver's CRD strategies (which work on the internal
// type, hence a private scheme with its conversions), and the lives of the
// CRDs' resources. Its zero value is ready; the scheme is built on first
// use.
type crdController struct {
	once   sync.Once
	scheme *runtime.Scheme

	// mu serialises the controllers' work (naming, establishing,
	// finalizing) and guards lives.
	mu    sync.Mutex
	lives map[string]*crLife // by CRD name; replaced when a CRD is recreated
	// built are the resource entries last built for each CRD (by name),
	// reused while what they are built from is unchanged (see infosLocked).
	built map[string]crdInfos

	// specs memoises the CRDs' OpenAPI v3 specs, which both their
	// /openapi/v3 documents and their type converters are built from.
	specs openapi.CRDSpecs

	// converters builds the converters of CRDs converted by a webhook
	// (customresource_conversion.go); nil until the first one.
	converters *conversion.CRConverterFactory
}

// crdInfos are the resource entries built from one generation of a CRD
// with one set of accepted names, for one life of its resources.
type crdInfos struct {
	uid        types.UID
	generation int64
	names      apiextensionsv1.CustomResourceDefinitionNames
	life       *crLife
	infos      []*resourceInfo
	err        error
}

// infosLocked returns customResourceInfos(crd, life) with the CRD's
// webhook converter, if any (service references resolved by resolver),
// logging to logger what they fail to build later, reusing the entries
// last built for crd when they were built from the same UID, generation
// (the CRD strategy bumps it on every spec change), accepted names and
// life: the entries are immutable and read nothing else of the CRD, and
// what they build on first use (structural schemas, validators, the type
// converter) is most of what serving a CRD with a large schema costs. A CRD's controllers
// register it twice per write (names accepted, then established) and
// status-only writes register it again. The caller holds mu.
func (c *crdController) infosLocked(crd *apiextensionsv1.CustomResourceDefinition, life *crLife, resolver webhookutil.ServiceResolver, logger *slog.Logger) ([]*resourceInfo, error) {
	if b, ok := c.built[crd.Name]; ok && crd.UID != "" && b.uid == crd.UID && b.generation == crd.Generation &&
		b.life == life && apiequality.Semantic.DeepEqual(b.names, crd.Status.AcceptedNames) {
		return b.infos, b.err
	}
	conv, err := c.webhookConverterLocked(crd, resolver)
	var infos []*resourceInfo
	if err == nil {
		infos, err = customResourceInfos(crd, life, &c.specs, conv, logger)
	}
	if c.built == nil {
		c.built = map[string]crdInfos{}
	}
	c.built[crd.Name] = crdInfos{
		uid: crd.UID, generation: crd.Generation, names: *crd.Status.AcceptedNames.DeepCopy(), life: life, infos: infos, err: err,
	}
	return infos, err
}

// internalScheme returns the scheme with the apiextensions internal and v1
// types and conversions.
func (c *crdController) internalScheme() *runtime.Scheme {
	c.once.Do(func() {
		c.scheme = runtime.NewScheme()
		apiextensionsinstall.Install(c.scheme)
	})
	return c.scheme
}

// toInternal converts a v1 CRD to the internal type.
func (c *crdController) toInternal(obj runtime.Object) (*apiextensionsinternal.CustomResourceDefinition, error) {
	out := &apiextensionsinternal.CustomResourceDefinition{}
	if err := c.internalScheme().Convert(obj, out, nil); err != nil {
		return nil, fmt.Errorf("convert CustomResourceDefinition to internal: %w", err)
	}
	return out, nil
}

// fromInternal writes an internal CRD back into the v1 object dst.
func (c *crdController) fromInternal(in *apiextensionsinternal.CustomResourceDefinition, dst runtime.Object) error {
	crd, ok := dst.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return errNotCRD(dst)
	}
	out := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.internalScheme().Convert(in, out, nil); err != nil {
		return fmt.Errorf("convert CustomResourceDefinition from internal: %w", err)
	}
	out.TypeMeta = crd.TypeMeta
	*crd = *out
	return nil
}

// prepareCreate is the CRD strategy's PrepareForCreate: empty status but
// storedVersions, generation 1.
func (c *crdController) prepareCreate(obj runtime.Object) error {
	in, err := c.toInternal(obj)
	if err != nil {
		return err
	}
	customresourcedefinition.NewStrategy(c.internalScheme()).PrepareForCreate(context.Background(), in)
	return c.fromInternal(in, obj)
}

// validateCreate is the CRD strategy's Validate
// (apiextensions validation.ValidateCustomResourceDefinition).
func (c *crdController) validateCreate(obj runtime.Object) field.ErrorList {
	in, err := c.toInternal(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return customresourcedefinition.NewStrategy(c.internalScheme()).Validate(context.Background(), in)
}

// prepareUpdate runs the CRD strategy (or its status strategy) on an
// update: PrepareForUpdate, then ValidateUpdate, whose errors it returns.
func (c *crdController) prepareUpdate(next, old runtime.Object, status bool) (field.ErrorList, error) {
	in, err := c.toInternal(next)
	if err != nil {
		return nil, err
	}
	inOld, err := c.toInternal(old)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	var errs field.ErrorList
	if status {
		st := customresourcedefinition.NewStatusStrategy(c.internalScheme())
		st.PrepareForUpdate(ctx, in, inOld)
		errs = st.ValidateUpdate(ctx, in, inOld)
	} else {
		st := customresourcedefinition.NewStrategy(c.internalScheme())
		st.PrepareForUpdate(ctx, in, inOld)
		errs = st.ValidateUpdate(ctx, in, inOld)
	}
	return errs, c.fromInternal(in, next)
}

// life returns the life of a CRD's resources, creating it on first use.
// The caller holds mu.
func (c *crdController) lifeLocked(name string) *crLife {
	if c.lives == nil {
		c.lives = map[string]*crLife{}
	}
	l, ok := c.lives[name]
	if !ok {
		l = newCRLife()
		c.lives[name] = l
	}
	return l
}

// endLocked ends a CRD's resources; a CRD created again later gets a new
// life. The caller holds mu.
func (c *crdController) endLocked(name string) {
	if l, ok := c.lives[name]; ok {
		l.end()
		delete(c.lives, name)
	}
	if b, ok := c.built[name]; ok {
		c.specs.Forget(b.uid)
		delete(c.built, name)
	}
}

// otherCRDNames returns the names accepted by the other CRDs of group:
// resource names (plural, singular, short names) and kinds (kind, list
// kind), as the naming controller's getAcceptedNamesForGroup.
func otherCRDNames(crds []*apiextensionsv1.CustomResourceDefinition, self string, group string) (resources, kinds []string) {
	for _, crd := range crds {
		if crd.Name == self || crd.Spec.Group != group {
			continue
		}
		n := crd.Status.AcceptedNames
		resources = append(resources, n.Plural, n.Singular)
		resources = append(resources, n.ShortNames...)
		kinds = append(kinds, n.Kind, n.ListKind)
	}
	return resources, kinds
}

// nameInUse is the naming controller's equalToAcceptedOrFresh.
func nameInUse(requested, accepted string, used []string) error {
	if requested == accepted || !slices.Contains(used, requested) {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}
