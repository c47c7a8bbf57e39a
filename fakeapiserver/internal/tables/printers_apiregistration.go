package tables

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// The APIService printer of kube-aggregator's registry (pkg/registry/
// apiservice/etcd/etcd.go ConvertToTable): the service that hosts the API
// ("Local" for the server's own) and whether it is available.

func apiServiceColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Service", "string", "The reference to the service that hosts this API endpoint."),
		column("Available", "string", "Whether this service is available."),
		ageColumn,
	}
}

// printAPIService prints Available as the condition's status, with its
// reason in parentheses when it is not True; Unknown without a condition.
func printAPIService(svc *apiregistrationv1.APIService, now time.Time) metav1.TableRow {
	service := "Local"
	if svc.Spec.Service != nil {
		service = fmt.Sprintf("%s/%s", svc.Spec.Service.Namespace, svc.Spec.Service.Name)
	}
	status := string(apiregistrationv1.ConditionUnknown)
	for _, c := range svc.Status.Conditions {
		if c.Type != apiregistrationv1.Available {
			continue
		}
		status = string(c.Status)
		if c.Status != apiregistrationv1.ConditionTrue && c.Reason != "" {
			status = fmt.Sprintf("%s (%s)", c.Status, c.Reason)
		}
		break
	}
	return cells(svc.Name, service, status, age(svc.CreationTimestamp.Time, now))
}
