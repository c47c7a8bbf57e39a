package tables

import (
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Printers of the groups beyond core and apps (batch Jobs and CronJobs,
// networking Ingresses and IngressClasses, policy PodDisruptionBudgets,
// scheduling PriorityClasses, rbac RoleBindings and ClusterRoleBindings,
// node RuntimeClasses) as
// kubernetes pkg/printers/internalversion/printers.go renders them
// (printJob, printCronJob, ...), wide columns included as the server always
// includes them.

func jobColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Status", "string", "Status of the job."),
		column("Completions", "string", batchv1.JobStatus{}.SwaggerDoc()["succeeded"]),
		column("Duration", "string", "Time required to complete the job."),
		ageColumn,
		wideColumn("Containers", "string", containerColumnsDescription),
		wideColumn("Images", "string", imageColumnsDescription),
		wideColumn("Selector", "string", batchv1.JobSpec{}.SwaggerDoc()["selector"]),
	}
}

func printJob(job *batchv1.Job, now time.Time) metav1.TableRow {
	var completions string
	switch parallelism := ptrOr(job.Spec.Parallelism, 0); {
	case job.Spec.Completions != nil:
		completions = fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	case parallelism > 1:
		completions = fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, parallelism)
	default:
		completions = fmt.Sprintf("%d/1", job.Status.Succeeded)
	}
	var jobDuration string
	switch {
	case job.Status.StartTime == nil:
	case job.Status.CompletionTime == nil:
		jobDuration = duration.HumanDuration(now.Sub(job.Status.StartTime.Time))
	default:
		jobDuration = duration.HumanDuration(job.Status.CompletionTime.Sub(job.Status.StartTime.Time))
	}
	names, images := layoutContainerCells(job.Spec.Template.Spec.Containers)
	return cells(job.Name, jobStatus(job), completions, jobDuration, age(job.CreationTimestamp.Time, now),
		names, images, metav1.FormatLabelSelector(job.Spec.Selector))
}

// jobStatus is the Status cell: the first of these conditions that holds,
// in kube-apiserver's order, else Running.
func jobStatus(job *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		return slices.ContainsFunc(job.Status.Conditions, func(c batchv1.JobCondition) bool {
			return c.Type == t && c.Status == corev1.ConditionTrue
		})
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

func cronJobColumns() []metav1.TableColumnDefinition {
	spec, status := batchv1.CronJobSpec{}.SwaggerDoc(), batchv1.CronJobStatus{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Schedule", "string", spec["schedule"]),
		column("Timezone", "string", spec["timeZone"]),
		column("Suspend", "boolean", spec["suspend"]),
		column("Active", "integer", status["active"]),
		column("Last Schedule", "string", status["lastScheduleTime"]),
		ageColumn,
		wideColumn("Containers", "string", containerColumnsDescription),
		wideColumn("Images", "string", imageColumnsDescription),
		wideColumn("Selector", "string", batchv1.JobSpec{}.SwaggerDoc()["selector"]),
	}
}

func printCronJob(cj *batchv1.CronJob, now time.Time) metav1.TableRow {
	lastSchedule := "<none>"
	if cj.Status.LastScheduleTime != nil {
		lastSchedule = age(cj.Status.LastScheduleTime.Time, now)
	}
	timeZone := "<none>"
	if cj.Spec.TimeZone != nil {
		timeZone = *cj.Spec.TimeZone
	}
	// printBoolPtr: "<unset>" for nil, which defaulting makes rare.
	suspend := "<unset>"
	if cj.Spec.Suspend != nil {
		suspend = fmt.Sprintf("%t", *cj.Spec.Suspend)
		suspend = strings.ToUpper(suspend[:1]) + suspend[1:]
	}
	names, images := layoutContainerCells(cj.Spec.JobTemplate.Spec.Template.Spec.Containers)
	return cells(cj.Name, cj.Spec.Schedule, timeZone, suspend, int64(len(cj.Status.Active)), lastSchedule,
		age(cj.CreationTimestamp.Time, now), names, images, metav1.FormatLabelSelector(cj.Spec.JobTemplate.Spec.Selector))
}

func ingressColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Class", "string", "The name of the IngressClass resource that should be used for additional configuration"),
		column("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
		column("Address", "string", "Address is a list containing ingress points for the load-balancer"),
		column("Ports", "string", "Ports of TLS configurations that open"),
		ageColumn,
	}
}

func printIngress(ing *networkingv1.Ingress, now time.Time) metav1.TableRow {
	className := "<none>"
	if ing.Spec.IngressClassName != nil {
		className = *ing.Spec.IngressClassName
	}
	ports := "80"
	if len(ing.Spec.TLS) != 0 {
		ports = "80, 443"
	}
	// The server renders wide, so the address is not clipped.
	var addrs []string
	for _, in := range ing.Status.LoadBalancer.Ingress {
		switch {
		case in.IP != "":
			addrs = append(addrs, in.IP)
		case in.Hostname != "":
			addrs = append(addrs, in.Hostname)
		}
	}
	slices.Sort(addrs)
	return cells(ing.Name, className, ingressHosts(ing.Spec.Rules), strings.Join(slices.Compact(addrs), ","), ports,
		age(ing.CreationTimestamp.Time, now))
}

// ingressHosts is formatHosts: up to three hosts, "*" for none.
func ingressHosts(rules []networkingv1.IngressRule) string {
	const maxHosts = 3
	var hosts []string
	for _, r := range rules {
		if len(hosts) < maxHosts && r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	if len(hosts) == 0 {
		return "*"
	}
	out := strings.Join(hosts, ",")
	if len(rules) > maxHosts && len(hosts) == maxHosts {
		out += fmt.Sprintf(" + %d more...", len(rules)-maxHosts)
	}
	return out
}

func ingressClassColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Controller", "string", "Controller that is responsible for handling this class"),
		column("Parameters", "string", "A reference to a resource with additional parameters"),
		ageColumn,
	}
}

func printIngressClass(ic *networkingv1.IngressClass, now time.Time) metav1.TableRow {
	name := ic.Name
	if ic.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
		name += " (default)"
	}
	parameters := "<none>"
	if p := ic.Spec.Parameters; p != nil {
		parameters = p.Kind
		if p.APIGroup != nil {
			parameters += "." + *p.APIGroup
		}
		parameters += "/" + p.Name
	}
	return cells(name, ic.Spec.Controller, parameters, age(ic.CreationTimestamp.Time, now))
}

func podDisruptionBudgetColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Min Available", "string", "The minimum number of pods that must be available."),
		column("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
		column("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
		ageColumn,
	}
}

func printPodDisruptionBudget(pdb *policyv1.PodDisruptionBudget, now time.Time) metav1.TableRow {
	minAvailable, maxUnavailable := "N/A", "N/A"
	if pdb.Spec.MinAvailable != nil {
		minAvailable = pdb.Spec.MinAvailable.String()
	}
	if pdb.Spec.MaxUnavailable != nil {
		maxUnavailable = pdb.Spec.MaxUnavailable.String()
	}
	return cells(pdb.Name, minAvailable, maxUnavailable, int64(pdb.Status.DisruptionsAllowed), age(pdb.CreationTimestamp.Time, now))
}

func priorityClassColumns() []metav1.TableColumnDefinition {
	doc := schedulingv1.PriorityClass{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Value", "integer", doc["value"]),
		column("Global-Default", "boolean", doc["globalDefault"]),
		ageColumn,
		// kube-apiserver gives it priority 0 though only wide output prints it.
		column("PreemptionPolicy", "string", doc["preemptionPolicy"]),
	}
}

func printPriorityClass(pc *schedulingv1.PriorityClass, now time.Time) metav1.TableRow {
	var preemption string
	if pc.PreemptionPolicy != nil {
		preemption = string(*pc.PreemptionPolicy)
	}
	return cells(pc.Name, int64(pc.Value), pc.GlobalDefault, age(pc.CreationTimestamp.Time, now), preemption)
}

// roleBindingColumns are the columns of RoleBindings and ClusterRoleBindings
// (kind "roleBinding" or "clusterRoleBinding"); the Role column has the
// roleRef doc of rbac/v1beta1, as kube-apiserver's printer takes it from
// there.
func roleBindingColumns(kind, roleRefDoc string) []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Role", "string", roleRefDoc),
		ageColumn,
		wideColumn("Users", "string", "Users in the "+kind),
		wideColumn("Groups", "string", "Groups in the "+kind),
		wideColumn("ServiceAccounts", "string", "ServiceAccounts in the "+kind),
	}
}

func printRoleBinding(rb *rbacv1.RoleBinding, now time.Time) metav1.TableRow {
	return bindingRow(rb.Name, rb.RoleRef, rb.Subjects, age(rb.CreationTimestamp.Time, now))
}

func printClusterRoleBinding(crb *rbacv1.ClusterRoleBinding, now time.Time) metav1.TableRow {
	return bindingRow(crb.Name, crb.RoleRef, crb.Subjects, age(crb.CreationTimestamp.Time, now))
}

// bindingRow is a (Cluster)RoleBinding row: its role as Kind/name and its
// subjects by kind (pkg/apis/rbac SubjectsStrings).
func bindingRow(name string, ref rbacv1.RoleRef, subjects []rbacv1.Subject, createdAge string) metav1.TableRow {
	var users, groups, sas []string
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			sas = append(sas, s.Namespace+"/"+s.Name)
		case rbacv1.UserKind:
			users = append(users, s.Name)
		case rbacv1.GroupKind:
			groups = append(groups, s.Name)
		}
	}
	return cells(name, ref.Kind+"/"+ref.Name, createdAge, strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", "))
}

func runtimeClassColumns() []metav1.TableColumnDefinition {
	// kube-apiserver describes Handler with ObjectMeta's doc of "handler",
	// a key that does not exist: the description is empty.
	return []metav1.TableColumnDefinition{nameColumn, column("Handler", "string", ""), ageColumn}
}

func printRuntimeClass(rc *nodev1.RuntimeClass, now time.Time) metav1.TableRow {
	return cells(rc.Name, rc.Handler, age(rc.CreationTimestamp.Time, now))
}

// ptrOr dereferences p, or returns def for nil.
func ptrOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
