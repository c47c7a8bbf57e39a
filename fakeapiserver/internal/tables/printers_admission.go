package tables

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// admissionregistration.k8s.io and flowcontrol.apiserver.k8s.io printers
// (printers.go printMutatingWebhook, printValidatingAdmissionPolicy,
// printFlowSchema, printPriorityLevelConfiguration, ...).

func webhookConfigurationColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Webhooks", "integer", "Webhooks indicates the number of webhooks registered in this configuration"),
		ageColumn,
	}
}

func printMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration, now time.Time) metav1.TableRow {
	return cells(c.Name, int64(len(c.Webhooks)), age(c.CreationTimestamp.Time, now))
}

func printValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration, now time.Time) metav1.TableRow {
	return cells(c.Name, int64(len(c.Webhooks)), age(c.CreationTimestamp.Time, now))
}

// admissionPolicyColumns are a policy's columns; count names its rules
// ("Validations" or "Mutations") with their description.
func admissionPolicyColumns(count, countDescription string) []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column(count, "integer", countDescription),
		column("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy"),
		ageColumn,
	}
}

func validatingAdmissionPolicyColumns() []metav1.TableColumnDefinition {
	return admissionPolicyColumns("Validations", "Validations indicates the number of validation rules defined in this configuration")
}

func mutatingAdmissionPolicyColumns() []metav1.TableColumnDefinition {
	return admissionPolicyColumns("Mutations", "Mutation indicates the number of mutations rules defined in this configuration")
}

func printValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy, now time.Time) metav1.TableRow {
	return cells(p.Name, int64(len(p.Spec.Validations)), paramKindString(p.Spec.ParamKind), age(p.CreationTimestamp.Time, now))
}

func printMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy, now time.Time) metav1.TableRow {
	return cells(p.Name, int64(len(p.Spec.Mutations)), paramKindString(p.Spec.ParamKind), age(p.CreationTimestamp.Time, now))
}

func paramKindString(k *admissionregistrationv1.ParamKind) string {
	if k == nil {
		return "<unset>"
	}
	return k.APIVersion + "/" + k.Kind
}

func admissionPolicyBindingColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("PolicyName", "string", "PolicyName indicates the policy definition which the policy binding binded to"),
		column("ParamRef", "string", "ParamRef indicates the param resource which sets the configuration param"),
		ageColumn,
	}
}

func printValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, now time.Time) metav1.TableRow {
	return cells(b.Name, b.Spec.PolicyName, paramRefString(b.Spec.ParamRef), age(b.CreationTimestamp.Time, now))
}

func printMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding, now time.Time) metav1.TableRow {
	return cells(b.Name, b.Spec.PolicyName, paramRefString(b.Spec.ParamRef), age(b.CreationTimestamp.Time, now))
}

// paramRefString is namespace/name (*/name without a namespace), else the
// selector, else <unset>.
func paramRefString(pr *admissionregistrationv1.ParamRef) string {
	switch {
	case pr == nil:
		return "<unset>"
	case pr.Name != "" && pr.Namespace != "":
		return pr.Namespace + "/" + pr.Name
	case pr.Name != "":
		return "*/" + pr.Name
	case pr.Selector != nil:
		return pr.Selector.String()
	}
	return "<unset>"
}

func flowSchemaColumns() []metav1.TableColumnDefinition {
	spec := flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("PriorityLevel", "string", flowcontrolv1.PriorityLevelConfigurationReference{}.SwaggerDoc()["name"]),
		column("MatchingPrecedence", "string", spec["matchingPrecedence"]),
		column("DistinguisherMethod", "string", spec["distinguisherMethod"]),
		ageColumn,
		column("MissingPL", "string", "references a broken or non-existent PriorityLevelConfiguration"),
	}
}

// printFlowSchema: MissingPL is the Dangling condition's status, "?"
// before the apiserver's config controller has set it.
func printFlowSchema(fs *flowcontrolv1.FlowSchema, now time.Time) metav1.TableRow {
	distinguisher := "<none>"
	if fs.Spec.DistinguisherMethod != nil {
		distinguisher = string(fs.Spec.DistinguisherMethod.Type)
	}
	missing := "?"
	for _, c := range fs.Status.Conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			missing = string(c.Status)
			break
		}
	}
	// SetDefaults_FlowSchemaSpec: precedence 0 is stored as 1000.
	return cells(fs.Name, fs.Spec.PriorityLevelConfiguration.Name, int64(orDefault(fs.Spec.MatchingPrecedence, 1000)), distinguisher,
		age(fs.CreationTimestamp.Time, now), missing)
}

func priorityLevelConfigurationColumns() []metav1.TableColumnDefinition {
	queuing := flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Type", "string", flowcontrolv1.PriorityLevelConfigurationSpec{}.SwaggerDoc()["type"]),
		column("NominalConcurrencyShares", "string", flowcontrolv1.LimitedPriorityLevelConfiguration{}.SwaggerDoc()["nominalConcurrencyShares"]),
		column("Queues", "string", queuing["queues"]),
		column("HandSize", "string", queuing["handSize"]),
		column("QueueLengthLimit", "string", queuing["queueLengthLimit"]),
		ageColumn,
	}
}

// printPriorityLevelConfiguration prints the numbers as numbers and
// <none> where the level is exempt or rejects instead of queuing. Unset
// numbers are flowcontrol/v1's defaults (30 shares, 64 queues, hand size
// 8, queue length 50).
func printPriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration, now time.Time) metav1.TableRow {
	var ncs, queues, handSize, queueLength any = "<none>", "<none>", "<none>", "<none>"
	if l := pl.Spec.Limited; l != nil {
		ncs = int64(ptrOr(l.NominalConcurrencyShares, 30))
		if q := l.LimitResponse.Queuing; q != nil {
			queues, handSize, queueLength = int64(orDefault(q.Queues, 64)), int64(orDefault(q.HandSize, 8)), int64(orDefault(q.QueueLengthLimit, 50))
		}
	}
	return cells(pl.Name, string(pl.Spec.Type), ncs, queues, handSize, queueLength, age(pl.CreationTimestamp.Time, now))
}

// orDefault is v, or def for the zero value (defaulting of a non-pointer
// field).
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
