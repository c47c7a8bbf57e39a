package tables

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// More core/v1 printers (printers.go printEndpoints, printPodTemplate,
// printResourceQuota, printComponentStatus); LimitRange has none.

func endpointsColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, column("Endpoints", "string", corev1.Endpoints{}.SwaggerDoc()["subsets"]), ageColumn}
}

func printEndpoints(ep *corev1.Endpoints, now time.Time) metav1.TableRow {
	return cells(ep.Name, formatEndpoints(ep), age(ep.CreationTimestamp.Time, now))
}

// formatEndpoints lists up to three address:port pairs (bare addresses for
// a subset without ports) and how many more there are.
func formatEndpoints(ep *corev1.Endpoints) string {
	if len(ep.Subsets) == 0 {
		return "<none>"
	}
	const maxShown = 3
	var list []string
	more, count := false, 0
	add := func(s string) {
		if len(list) == maxShown {
			more = true
			return
		}
		list = append(list, s)
	}
	for _, ss := range ep.Subsets {
		if len(ss.Ports) == 0 {
			count += len(ss.Addresses)
			for _, a := range ss.Addresses {
				add(a.IP)
			}
			continue
		}
		for _, p := range ss.Ports {
			count += len(ss.Addresses)
			for _, a := range ss.Addresses {
				add(net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
			}
		}
	}
	if more {
		return fmt.Sprintf("%s + %d more...", strings.Join(list, ","), count-maxShown)
	}
	return strings.Join(list, ",")
}

// podTemplateColumns has no Age column, as kube-apiserver's.
func podTemplateColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Containers", "string", containerColumnsDescription),
		column("Images", "string", imageColumnsDescription),
		column("Pod Labels", "string", "The labels for the pod template."),
	}
}

func printPodTemplate(pt *corev1.PodTemplate, _ time.Time) metav1.TableRow {
	names, images := layoutContainerCells(pt.Template.Spec.Containers)
	return cells(pt.Name, names, images, labels.FormatLabels(pt.Template.Labels))
}

func resourceQuotaColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
		column("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."),
		ageColumn,
	}
}

// printResourceQuota lists status.hard as used/hard by sorted resource
// name: limits.* in Limit, the rest in Request. It is empty until the
// quota controller has filled the status.
func printResourceQuota(rq *corev1.ResourceQuota, now time.Time) metav1.TableRow {
	names := make([]string, 0, len(rq.Status.Hard))
	for name := range rq.Status.Hard {
		names = append(names, string(name))
	}
	slices.Sort(names)
	var requests, limits []string
	for _, name := range names {
		used, hard := rq.Status.Used[corev1.ResourceName(name)], rq.Status.Hard[corev1.ResourceName(name)]
		s := fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String())
		if pieces := strings.Split(name, "."); len(pieces) > 1 && pieces[0] == "limits" {
			limits = append(limits, s)
		} else {
			requests = append(requests, s)
		}
	}
	return cells(rq.Name, strings.Join(requests, ", "), strings.Join(limits, ", "), age(rq.CreationTimestamp.Time, now))
}

func componentStatusColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Status", "string", "Status of the component conditions"),
		column("Message", "string", "Message of the component conditions"),
		column("Error", "string", "Error of the component conditions"),
	}
}

// printComponentStatus reads the first Healthy condition.
func printComponentStatus(cs *corev1.ComponentStatus, _ time.Time) metav1.TableRow {
	status, message, errText := "Unknown", "", ""
	for _, c := range cs.Conditions {
		if c.Type == corev1.ComponentHealthy {
			status = "Unhealthy"
			if c.Status == corev1.ConditionTrue {
				status = "Healthy"
			}
			message, errText = c.Message, c.Error
			break
		}
	}
	return cells(cs.Name, status, message, errText)
}
