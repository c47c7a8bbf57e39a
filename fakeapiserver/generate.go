package fakeapiserver

// The /openapi/v2 document of DefaultGroupVersions is served prebuilt
// (internal/openapi/prebuilt.go); TestOpenAPIV2Prebuilt fails while it
// differs from what the server would build, and this rewrites it.
//go:generate go test -run ^TestOpenAPIV2Prebuilt$ -update-openapi-v2 .
