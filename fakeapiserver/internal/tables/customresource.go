package tables

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// CustomResourceConvertor is the table convertor of a CRD version with the
// given additionalPrinterColumns, as apiextensions-apiserver's crdHandler
// builds it (pkg/apiserver/customresource_handler.go): the columns, or Age
// when there are none (serveDefaultColumnsIfEmpty). An invalid printer
// specification gives nil, which falls back to the default table, as the
// handler does.
func CustomResourceConvertor(columns []apiextensionsv1.CustomResourceColumnDefinition) Convertor {
	if len(columns) == 0 {
		columns = []apiextensionsv1.CustomResourceColumnDefinition{{
			Name: "Age", Type: "date", Description: objectMetaDoc["creationTimestamp"], JSONPath: ".metadata.creationTimestamp",
		}}
	}
	c, err := tableconvertor.New(columns)
	if err != nil {
		return nil
	}
	return c
}

// convertCustom is the Table of custom resources: apiextensions-apiserver's
// table convertor (pkg/registry/customresource/tableconvertor) makes the
// columns of the version's additionalPrinterColumns (Age when it has none)
// and the cells, then each row's object follows ?includeObject= as asTable
// sets it. Date cells are ages computed by the convertor on the wall clock.
func convertCustom(res Resource, c Convertor, objs []runtime.Object, opts Options) (*metav1.Table, error) {
	list := &unstructured.UnstructuredList{}
	for _, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok {
			list.Items = append(list.Items, *u)
		}
	}
	var in runtime.Object = list
	if opts.ListMeta == (metav1.ListMeta{}) && len(objs) == 1 {
		in = objs[0] // a GET or a watch event: the object's resourceVersion
	}
	table, err := c.ConvertToTable(context.Background(), in, &metav1.TableOptions{})
	if err != nil {
		return nil, err
	}
	table.TypeMeta = tableTypeMeta
	if in == runtime.Object(list) {
		table.ListMeta = opts.ListMeta
	}
	for i := range table.Rows {
		embedded, err := rowObject(res, objs[i], opts.IncludeObject)
		if err != nil {
			return nil, err
		}
		table.Rows[i].Object = runtime.RawExtension{Object: embedded}
	}
	return table, nil
}
