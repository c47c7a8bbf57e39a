package validation

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	validatingadmissionpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/client-go/util/jsonpath"
)

// The CEL parts of the admission policies' validation (kubernetes
// pkg/apis/admissionregistration/validation/validation.go): every
// expression is compiled with k8s.io/apiserver's admission CEL compiler,
// in the environment the policy plugins evaluate it in, and a compile
// error becomes the field error upstream's convertCELErrorToValidationError
// makes of it ("compilation failed: ERROR: <input>:1:3: ...").

// statelessCompiler is upstream's strict stateless CEL compiler (no
// variable composition), used for matchConditions and for a
// ValidatingAdmissionPolicy without variables. Building it type-checks
// the base environment in every combination of the optional variables,
// so it is built once, on first use, like upstream's
// getStrictStatelessCELCompiler; it is immutable afterwards.
var statelessCompiler = sync.OnceValue(func() plugincel.Compiler {
	return plugincel.NewCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
})

// policyCompiler is the compiler of one policy's expressions: the
// composition compiler when the policy may have variables (stateful: it
// remembers the variables compiled so far, in order), made when first
// needed, else the stateless one.
type policyCompiler struct {
	composition bool
	compiler    plugincel.Compiler
}

// newPolicyCompiler returns the compiler of one policy (upstream's
// createCompiler, lazily).
func newPolicyCompiler(composition bool) *policyCompiler {
	return &policyCompiler{composition: composition}
}

// get returns the compiler, making it on first use.
func (p *policyCompiler) get() plugincel.Compiler {
	if p.compiler != nil {
		return p.compiler
	}
	p.compiler = statelessCompiler()
	if p.composition {
		if c, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())); err == nil {
			p.compiler = c
		}
	}
	return p.compiler
}

// validatingPolicyExpressions are findValidatingPolicyPreexistingExpressions.
func validatingPolicyExpressions(p *admissionregistrationv1.ValidatingAdmissionPolicy) preexistingExpressions {
	pre := newPreexistingExpressions()
	for _, mc := range p.Spec.MatchConditions {
		pre.matchConditions.Insert(mc.Expression)
	}
	for _, v := range p.Spec.Validations {
		pre.validations.Insert(v.Expression)
		if v.MessageExpression != "" {
			pre.messageExpressions.Insert(v.MessageExpression)
		}
	}
	for _, a := range p.Spec.AuditAnnotations {
		pre.auditAnnotations.Insert(a.ValueExpression)
	}
	return pre
}

// mutatingPolicyExpressions are findMutatingPolicyPreexistingExpressions.
func mutatingPolicyExpressions(p *admissionregistrationv1.MutatingAdmissionPolicy) preexistingExpressions {
	pre := newPreexistingExpressions()
	for _, mc := range p.Spec.MatchConditions {
		pre.matchConditions.Insert(mc.Expression)
	}
	for _, m := range p.Spec.Mutations {
		if m.ApplyConfiguration != nil {
			pre.applyConfigurations.Insert(m.ApplyConfiguration.Expression)
		}
		if m.JSONPatch != nil {
			pre.jsonPatches.Insert(m.JSONPatch.Expression)
		}
	}
	return pre
}

func newPreexistingExpressions() preexistingExpressions {
	return preexistingExpressions{
		matchConditions: sets.New[string](), validations: sets.New[string](), messageExpressions: sets.New[string](),
		auditAnnotations: sets.New[string](), applyConfigurations: sets.New[string](), jsonPatches: sets.New[string](),
	}
}

// envType is the environment an expression compiles in: the stored one
// when the stored object already had it (a nil set on create).
func envType(stored sets.Set[string], expression string) environment.Type {
	if stored.Has(expression) {
		return environment.StoredExpressions
	}
	return environment.NewExpressions
}

// compileError is convertCELErrorToValidationError: nil when the
// expression compiled.
func compileError(path *field.Path, expression plugincel.ExpressionAccessor, err *cel.Error) *field.Error {
	if err == nil {
		return nil
	}
	switch err.Type {
	case cel.ErrorTypeRequired:
		return field.Required(path, err.Detail)
	case cel.ErrorTypeInvalid:
		return field.Invalid(path, expression.GetExpression(), err.Detail)
	case cel.ErrorTypeInternal:
		return field.InternalError(path, err)
	}
	return field.InternalError(path, fmt.Errorf("unsupported error type: %w", err))
}

// compile compiles expression and returns its field errors.
func compile(c plugincel.Compiler, expression plugincel.ExpressionAccessor, decls plugincel.OptionalVariableDeclarations, env environment.Type, path *field.Path) field.ErrorList {
	if fe := compileError(path, expression, c.CompileCELExpression(expression, decls, env).Error); fe != nil {
		return field.ErrorList{fe}
	}
	return nil
}

// validateMatchConditions is validateMatchConditions: at most 64, each
// with a compiling expression and a qualified name, names unique. The
// expressions compile with the stateless compiler (no variables).
func validateMatchConditions(_ *policyCompiler, m []admissionregistrationv1.MatchCondition, opts policyOptions, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(m) > maxMatchConditions {
		errs = append(errs, field.TooMany(path, len(m), maxMatchConditions))
	}
	names := sets.NewString()
	for i, mc := range m {
		p := path.Index(i)
		if expr := strings.TrimSpace(mc.Expression); expr == "" {
			errs = append(errs, field.Required(p.Child("expression"), ""))
		} else {
			errs = append(errs, compile(statelessCompiler(), &matchconditions.MatchCondition{Expression: expr},
				plugincel.OptionalVariableDeclarations{HasParams: opts.allowParamsInMatchConditions, HasAuthorizer: true},
				envType(opts.preexisting.matchConditions, expr), p.Child("expression"))...)
		}
		if mc.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			errs = append(errs, validateQualifiedName(mc.Name, p.Child("name"))...)
		}
		if mc.Name != "" {
			if names.Has(mc.Name) {
				errs = append(errs, field.Duplicate(p.Child("name"), mc.Name))
			} else {
				names.Insert(mc.Name)
			}
		}
	}
	return errs
}

// validateQualifiedName is core validation's ValidateQualifiedName.
func validateQualifiedName(value string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsQualifiedName(value) {
		errs = append(errs, field.Invalid(path, value, msg).WithOrigin("format=qualified-name"))
	}
	return errs
}

// validateVariable is validateVariable: a CEL identifier and an
// expression the composition compiler compiles and remembers.
func validateVariable(pc *policyCompiler, v *admissionregistrationv1.Variable, hasParams bool, opts policyOptions, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Name) == "" {
		errs = append(errs, field.Required(path.Child("name"), "name is not specified"))
	} else if !isCELIdentifier(v.Name) {
		errs = append(errs, field.Invalid(path.Child("name"), v.Name, "must be a valid CEL identifier"))
	}
	if strings.TrimSpace(v.Expression) == "" {
		return append(errs, field.Required(path.Child("expression"), "expression is not specified"))
	}
	c, ok := pc.get().(*plugincel.CompositedCompiler)
	if !ok {
		return append(errs, field.InternalError(path, errors.New("variable composition is not allowed")))
	}
	variable := &validatingadmissionpolicy.Variable{Name: v.Name, Expression: v.Expression}
	result := c.CompileAndStoreVariable(variable, plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true},
		envType(opts.preexisting.validations, v.Expression))
	if fe := compileError(path.Child("expression"), variable, result.Error); fe != nil {
		errs = append(errs, fe)
	}
	return errs
}

// newlines are the line breaks of the CEL grammar.
var newlines = regexp.MustCompile(`[\n\r]+`)

// validateValidation is validateValidation: a compiling expression, a
// compiling messageExpression if given, a message on one line, a known
// reason.
func validateValidation(pc *policyCompiler, v *admissionregistrationv1.Validation, hasParams bool, opts policyOptions, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	msg := strings.TrimSpace(v.Message)
	msgExpr := strings.TrimSpace(v.MessageExpression)
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(path.Child("expression"), "expression is not specified"))
	} else {
		errs = append(errs, compile(pc.get(), &validatingadmissionpolicy.ValidationCondition{Expression: v.Expression},
			plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true},
			envType(opts.preexisting.validations, v.Expression), path.Child("expression"))...)
	}
	if v.MessageExpression != "" && msgExpr == "" {
		errs = append(errs, field.Invalid(path.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	} else if msgExpr != "" {
		// The untrimmed expression, so that the compiler's column is right;
		// upstream declares params here as it does for matchConditions.
		errs = append(errs, compile(pc.get(), &validatingadmissionpolicy.MessageExpressionCondition{MessageExpression: v.MessageExpression},
			plugincel.OptionalVariableDeclarations{HasParams: opts.allowParamsInMatchConditions, HasAuthorizer: false},
			envType(opts.preexisting.messageExpressions, v.MessageExpression), path.Child("messageExpression"))...)
	}
	if v.Message != "" && msg == "" {
		errs = append(errs, field.Invalid(path.Child("message"), v.Message, "must be non-empty if specified"))
	} else if newlines.MatchString(msg) {
		errs = append(errs, field.Invalid(path.Child("message"), v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil && !supportedValidationPolicyReason.Has(string(*v.Reason)) {
		errs = append(errs, field.NotSupported(path.Child("reason"), *v.Reason, supportedValidationPolicyReason.List()))
	}
	return errs
}

// validateAuditAnnotation is validateAuditAnnotation: "<policy>/<key>" is
// a qualified name, and the value expression compiles within 5 KiB.
func validateAuditAnnotation(pc *policyCompiler, policyName string, a *admissionregistrationv1.AuditAnnotation, hasParams bool, opts policyOptions, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if policyName != "" {
		errs = append(errs, validateQualifiedName(policyName+"/"+a.Key, path.Child("key"))...)
	} else {
		errs = append(errs, field.Invalid(path.Child("key"), a.Key, "requires metadata.name be non-empty"))
	}
	value := path.Child("valueExpression")
	expr := strings.TrimSpace(a.ValueExpression)
	switch {
	case expr == "":
		return append(errs, field.Required(value, "valueExpression is not specified"))
	case len(expr) > maxAuditAnnotationValueExpressionLength:
		return append(errs, field.Required(value, fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExpressionLength)))
	}
	result := pc.get().CompileCELExpression(&validatingadmissionpolicy.AuditAnnotationCondition{ValueExpression: expr},
		plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, envType(opts.preexisting.auditAnnotations, a.ValueExpression))
	if result.Error != nil {
		switch result.Error.Type {
		case cel.ErrorTypeRequired:
			errs = append(errs, field.Required(value, result.Error.Detail))
		case cel.ErrorTypeInvalid:
			errs = append(errs, field.Invalid(value, a.ValueExpression, result.Error.Detail))
		default:
			errs = append(errs, field.InternalError(value, result.Error))
		}
	}
	return errs
}

// validateMutation is validateMutation: a patchType with its own
// expression (compiling), and not the other one.
func validateMutation(pc *policyCompiler, m *admissionregistrationv1.Mutation, hasParams bool, opts policyOptions, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch m.PatchType {
	case "":
		errs = append(errs, field.Required(path.Child("patchType"), ""))
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			errs = append(errs, field.Required(path.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else {
			// Upstream looks the expression up among the stored
			// applyConfiguration expressions.
			errs = append(errs, validatePatchExpression(pc, m.JSONPatch.Expression, func(e string) plugincel.ExpressionAccessor {
				return &patch.JSONPatchCondition{Expression: e}
			}, hasParams, opts.preexisting.applyConfigurations, path.Child("jsonPatch", "expression"))...)
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, field.Invalid(path.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			errs = append(errs, field.Required(path.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else {
			errs = append(errs, validatePatchExpression(pc, m.ApplyConfiguration.Expression, func(e string) plugincel.ExpressionAccessor {
				return &patch.ApplyConfigurationCondition{Expression: e}
			}, hasParams, opts.preexisting.applyConfigurations, path.Child("applyConfiguration", "expression"))...)
		}
		if m.JSONPatch != nil {
			errs = append(errs, field.Invalid(path.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("patchType"), m.PatchType, supportedPatchType.List()))
	}
	return errs
}

// validatePatchExpression is validateApplyConfiguration /
// validateJSONPatch: the trimmed expression is required and compiles with
// the patch types declared.
func validatePatchExpression(pc *policyCompiler, expression string, accessor func(string) plugincel.ExpressionAccessor,
	hasParams bool, stored sets.Set[string], path *field.Path) field.ErrorList {
	expr := strings.TrimSpace(expression)
	if expr == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	return compile(pc.get(), accessor(expr),
		plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true, HasPatchTypes: true},
		envType(stored, expression), path)
}

// validateFieldRef is validateFieldRef: a JSONPath.
func validateFieldRef(fieldRef string, path *field.Path) field.ErrorList {
	fieldRef = strings.TrimSpace(fieldRef)
	if fieldRef == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	if err := jsonpath.New("spec").Parse(fmt.Sprintf("{%s}", fieldRef)); err != nil {
		return field.ErrorList{field.Invalid(path, fieldRef, fmt.Sprintf("invalid JSONPath: %v", err))}
	}
	return nil
}

var (
	// celIdent and celReserved are the CEL grammar's IDENT: an identifier
	// that is no reserved word.
	celIdent    = regexp.MustCompile("^[_a-zA-Z][_a-zA-Z0-9]*$")
	celReserved = sets.NewString("true", "false", "null", "in", "as", "break", "const", "continue", "else",
		"for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while")
)

// isCELIdentifier reports whether name is a CEL identifier.
func isCELIdentifier(name string) bool {
	return celIdent.MatchString(name) && !celReserved.Has(name)
}
