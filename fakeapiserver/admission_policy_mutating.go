package fakeapiserver

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
)

// The MutatingAdmissionPolicy plugin is k8s.io/apiserver's generic policy
// plugin with mutating's source, dispatcher and compilation, assembled
// here as mutating.NewPlugin assembles them, with one difference: the
// dispatcher's schemas. mutating.NewPlugin gives it a type converter
// manager that fetches /openapi/v3 in a goroutine of its own, first right
// after the plugin starts, then every 5 s; a plugin rebuilt for each
// change of the policies (admission_policies.go) would race its first
// fetch. The fake's manager (serverTypeConverters) answers from the
// schemas the server applies with (managedfields.go), which are the same
// OpenAPI. mutating.NewPlugin's compilePolicy, unexported, is
// compileMutatingPolicy below, line for line.

// mutatingPolicyPlugin is the MutatingAdmissionPolicy plugin.
type mutatingPolicyPlugin struct {
	*generic.Plugin[mutating.PolicyHook]
}

// newMutatingPolicyPlugin returns the plugin with tcm's schemas, not yet
// initialised.
func newMutatingPolicyPlugin(tcm patch.TypeConverterManager) *mutatingPolicyPlugin {
	handler := admission.NewHandler(admission.Create, admission.Update, admission.Connect)
	return &mutatingPolicyPlugin{Plugin: generic.NewPlugin(
		handler,
		func(f informers.SharedInformerFactory, _ kubernetes.Interface, dynamicClient dynamic.Interface, restMapper meta.RESTMapper) generic.Source[mutating.PolicyHook] {
			return generic.NewPolicySource(
				f.Admissionregistration().V1().MutatingAdmissionPolicies().Informer(),
				f.Admissionregistration().V1().MutatingAdmissionPolicyBindings().Informer(),
				mutating.NewMutatingAdmissionPolicyAccessor,
				mutating.NewMutatingAdmissionPolicyBindingAccessor,
				compileMutatingPolicy,
				f,
				dynamicClient,
				restMapper,
			)
		},
		func(a authorizer.UnconditionalAuthorizer, m *matching.Matcher, _ kubernetes.Interface) generic.Dispatcher[mutating.PolicyHook] {
			return mutating.NewDispatcher(a, m, tcm)
		},
	)}
}

// Admit implements admission.MutationInterface.
func (p *mutatingPolicyPlugin) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	return p.Dispatch(ctx, a, o)
}

// InspectFeatureGates enables the plugin as the MutatingAdmissionPolicy
// gate says (on by default since 1.36).
func (p *mutatingPolicyPlugin) InspectFeatureGates(featureGates featuregate.FeatureGate) {
	p.SetEnabled(featureGates.Enabled(features.MutatingAdmissionPolicy))
}

// compileMutatingPolicy is mutating's compilePolicy (compilation.go): the
// variables, matchConditions and mutations compiled, any error kept for
// the invocation.
func compileMutatingPolicy(policy *admissionregistrationv1.MutatingAdmissionPolicy) mutating.PolicyEvaluator {
	opts := plugincel.OptionalVariableDeclarations{HasParams: policy.Spec.ParamKind != nil, HasAuthorizer: true}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return mutating.PolicyEvaluator{Error: &apiservercel.Error{
			Type:   apiservercel.ErrorTypeInternal,
			Detail: fmt.Sprintf("failed to initialize CEL compiler: %v", err),
		}}
	}
	variables := make([]plugincel.NamedExpressionAccessor, len(policy.Spec.Variables))
	for i, v := range policy.Spec.Variables {
		variables[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	if policy.Spec.Variables == nil {
		variables = nil
	}
	compiler.CompileAndStoreVariables(variables, opts, environment.StoredExpressions)

	var matcher matchconditions.Matcher
	if conds := policy.Spec.MatchConditions; len(conds) > 0 {
		accessors := make([]plugincel.ExpressionAccessor, len(conds))
		for i := range conds {
			accessors[i] = (*matchconditions.MatchCondition)(&conds[i])
		}
		matcher = matchconditions.NewMatcher(compiler.CompileCondition(accessors, opts, environment.StoredExpressions),
			policy.Spec.FailurePolicy, "policy", "validate", policy.Name)
	}

	var patchers []patch.Patcher
	patchOptions := opts
	patchOptions.HasPatchTypes = true
	for _, m := range policy.Spec.Mutations {
		switch m.PatchType {
		case admissionregistrationv1.PatchTypeJSONPatch:
			if m.JSONPatch != nil {
				accessor := &patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}
				patchers = append(patchers, patch.NewJSONPatcher(compiler.CompileMutatingEvaluator(accessor, patchOptions, environment.StoredExpressions)))
			}
		case admissionregistrationv1.PatchTypeApplyConfiguration:
			if m.ApplyConfiguration != nil {
				accessor := &patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}
				patchers = append(patchers, patch.NewApplyConfigurationPatcher(compiler.CompileMutatingEvaluator(accessor, patchOptions, environment.StoredExpressions)))
			}
		}
	}
	return mutating.PolicyEvaluator{Matcher: matcher, Mutators: patchers, CompositedCompiler: compiler}
}

// serverTypeConverters is the mutating dispatcher's schemas: those the
// server applies with, for the kinds it serves.
type serverTypeConverters struct{ s *Server }

// Run does nothing: the schemas are the server's own.
func (serverTypeConverters) Run(context.Context) {}

// GetTypeConverter returns gvk's schema, nil when the server does not
// serve it (as the library's manager does without a schema).
func (c serverTypeConverters) GetTypeConverter(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	res, ok := c.s.resources.lookupKind(gvk)
	if !ok || res.fields == nil {
		return nil
	}
	return res.fields.typeConverterOf(res)
}

var (
	_ admission.MutationInterface = (*mutatingPolicyPlugin)(nil)
	_ patch.TypeConverterManager  = serverTypeConverters{}
)
