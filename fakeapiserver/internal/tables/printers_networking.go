package tables

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// networking.k8s.io and discovery.k8s.io printers (printers.go
// printNetworkPolicy, printEndpointSlice, printServiceCIDR,
// printIPAddress); Ingress and IngressClass are in printers_groups.go.

func networkPolicyColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, column("Pod-Selector", "string", networkingv1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]), ageColumn}
}

func printNetworkPolicy(np *networkingv1.NetworkPolicy, now time.Time) metav1.TableRow {
	return cells(np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), age(np.CreationTimestamp.Time, now))
}

func endpointSliceColumns() []metav1.TableColumnDefinition {
	doc := discoveryv1.EndpointSlice{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("AddressType", "string", doc["addressType"]),
		column("Ports", "string", doc["ports"]),
		column("Endpoints", "string", doc["endpoints"]),
		ageColumn,
	}
}

func printEndpointSlice(es *discoveryv1.EndpointSlice, now time.Time) metav1.TableRow {
	ports := make([]string, 0, len(es.Ports))
	for _, p := range es.Ports {
		switch {
		case p.Port != nil:
			ports = append(ports, strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			ports = append(ports, *p.Name)
		default:
			ports = append(ports, "*")
		}
	}
	var addrs []string
	for _, ep := range es.Endpoints {
		addrs = append(addrs, ep.Addresses...)
	}
	return cells(es.Name, string(es.AddressType), listWithMore(ports), listWithMore(addrs), age(es.CreationTimestamp.Time, now))
}

// listWithMore is listWithMoreString over a whole list: up to three
// entries and how many more, <unset> for none.
func listWithMore(list []string) string {
	const maxShown = 3
	if len(list) > maxShown {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:maxShown], ","), len(list)-maxShown)
	}
	if len(list) == 0 {
		return "<unset>"
	}
	return strings.Join(list, ",")
}

func serviceCIDRColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, column("CIDRs", "string", networkingv1.ServiceCIDRSpec{}.SwaggerDoc()["cidrs"]), ageColumn}
}

func printServiceCIDR(sc *networkingv1.ServiceCIDR, now time.Time) metav1.TableRow {
	return cells(sc.Name, strings.Join(sc.Spec.CIDRs, ","), age(sc.CreationTimestamp.Time, now))
}

// ipAddressColumns has no Age column though each row has an age cell:
// kube-apiserver's printer has the same mismatch.
func ipAddressColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, column("ParentRef", "string", networkingv1.IPAddressSpec{}.SwaggerDoc()["parentRef"])}
}

func printIPAddress(ip *networkingv1.IPAddress, now time.Time) metav1.TableRow {
	parent := "<none>"
	if ref := ip.Spec.ParentRef; ref != nil {
		parent = strings.ToLower(schema.GroupResource{Group: ref.Group, Resource: ref.Resource}.String())
		if ref.Namespace != "" {
			parent += "/" + ref.Namespace
		}
		parent += "/" + ref.Name
	}
	return cells(ip.Name, parent, age(ip.CreationTimestamp.Time, now))
}
