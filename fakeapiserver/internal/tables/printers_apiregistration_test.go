package tables

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// apiServiceGroupKind is the kind of printers_apiregistration.go.
var apiServiceGroupKind = schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}

func init() {
	// The columns of kube-aggregator pkg/registry/apiservice/etcd/etcd.go
	// ConvertToTable, checked by TestTableColumnDefinitions.
	moreColumnPins[apiServiceGroupKind] = []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Service", Type: "string", Description: "The reference to the service that hosts this API endpoint."},
		{Name: "Available", Type: "string", Description: "Whether this service is available."},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	}
}

// TestPrintAPIService: Service is Local without a service reference, else
// namespace/name; Available is the condition's status, with its reason
// unless True, and Unknown without one.
func TestPrintAPIService(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	created := metav1.NewTime(now.Add(-10 * time.Minute))
	cond := func(s apiregistrationv1.ConditionStatus, reason string) []apiregistrationv1.APIServiceCondition {
		return []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: s, Reason: reason}}
	}
	tests := []struct {
		name string
		svc  apiregistrationv1.APIService
		want []any
	}{
		{"local available", apiregistrationv1.APIService{Status: apiregistrationv1.APIServiceStatus{Conditions: cond(apiregistrationv1.ConditionTrue, "Local")}},
			[]any{"v1.x", "Local", "True", "10m"}},
		{"remote, reason", apiregistrationv1.APIService{Spec: apiregistrationv1.APIServiceSpec{Service: &apiregistrationv1.ServiceReference{Namespace: "ns", Name: "s"}},
			Status: apiregistrationv1.APIServiceStatus{Conditions: cond(apiregistrationv1.ConditionFalse, "MissingEndpoints")}},
			[]any{"v1.x", "ns/s", "False (MissingEndpoints)", "10m"}},
		{"no condition", apiregistrationv1.APIService{}, []any{"v1.x", "Local", "Unknown", "10m"}},
	}
	for _, tt := range tests {
		tt.svc.Name, tt.svc.CreationTimestamp = "v1.x", created
		if diff := cmp.Diff(tt.want, printAPIService(&tt.svc, now).Cells); diff != "" {
			t.Errorf("%s: cells (-want +got):\n%s", tt.name, diff)
		}
	}
}
