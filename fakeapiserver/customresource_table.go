package fakeapiserver

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// customTable is the Table of custom resources: apiextensions-apiserver's
// table convertor (pkg/registry/customresource/tableconvertor) makes the
// columns of the version's additionalPrinterColumns (Age when it has none)
// and the cells, then each row's object follows ?includeObject= as asTable
// sets it. Date cells are ages computed by the convertor on the wall clock.
func (s *Server) customTable(res *resourceInfo, objs []runtime.Object, listMeta metav1.ListMeta, includeObject metav1.IncludeObjectPolicy) (*metav1.Table, error) {
	list := &unstructured.UnstructuredList{}
	for _, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok {
			list.Items = append(list.Items, *u)
		}
	}
	var in runtime.Object = list
	if listMeta == (metav1.ListMeta{}) && len(objs) == 1 {
		in = objs[0] // a GET or a watch event: the object's resourceVersion
	}
	table, err := res.custom.table.ConvertToTable(context.Background(), in, &metav1.TableOptions{})
	if err != nil {
		return nil, err
	}
	table.TypeMeta = metav1.TypeMeta{Kind: "Table", APIVersion: metav1.SchemeGroupVersion.String()}
	if in == runtime.Object(list) {
		table.ListMeta = listMeta
	}
	for i := range table.Rows {
		embedded, err := rowObject(res, objs[i], includeObject)
		if err != nil {
			return nil, err
		}
		table.Rows[i].Object = runtime.RawExtension{Object: embedded}
	}
	return table, nil
}
