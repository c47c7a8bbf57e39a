package conformance

import "slices"

// Cases returns every case, in a stable order: file by file in the order
// below, each file's cases in the order of its table. Exclusive cases change
// server-wide state (compaction) and run after the others, one at a time,
// in this order.
//
// Each *_cases.go file registers its own cases: a function named after the
// file (listPagingCases in list_paging_cases.go) returns the file's table,
// one row per case with its name, its unexported run function and its
// flags; a family of cases that differ only in their request and the
// answer they expect is a table of rows built by one constructor
// (listErrorCase, watchErrorCase, tooLargeCase, malformedCase). Cases
// concatenates the tables, so a new case is a row in its file and a new
// file is one line below. Tables are built by functions, not held in
// package variables: nothing a caller does to the slice it gets changes
// what the next caller gets, and no package initialisation order is
// involved. TestCasesRegistered fails when a run function is in no table.
func Cases() []Case {
	return slices.Concat(
		listCases(),
		listPagingCases(),
		compactionIdleCases(),
		cacheReadsCases(),
		eventsStorageCases(),
		listErrorsCases(),
		resourcesliceFieldsCases(),
		malformedCases(),
		watchCases(),
		writeCases(),
		requestTimeoutCases(),
		createRvCases(),
		healthCases(),
		namespaceFinalizeCases(),
		deletePropagationCases(),
		garbageCollectorCases(),
		serviceaccountControllerCases(),
		namespaceControllerCases(),
		bootstrapObjectsCases(),
		apiservicesCases(),
		decoderDefaultsCases(),
		pendingCases(),
		writeValidationCases(),
		dryrunCases(),
		subresourceCases(),
		limitsCases(),
		authCases(),
		authRequestinfoCases(),
		applyCases(),
		discoveryCases(),
		rbacCases(),
		rbacReviewsCases(),
		escalationCases(),
		impersonationCases(),
		tokenCases(),
		clientcertCases(),
		openapiV2Cases(),
		watchcheckCases(),
		proxyInstanceCases(),
		crdCases(),
		safetyCases(),
		statusValidationCases(),
		crdListwatchCases(),
		dryrunEventCases(),
		scaleWorkloadCases(),
		listGzipCases(),
		cacheControlCases(),
		podStatusTransitionCases(),
		hpaCsrStatusCases(),
		hpaVersionCases(),
		eventVersionCases(),
		coreStatusValidationCases(),
		tableCases(),
		tableMoreCases(),
		statusMetadataCases(),
		workloadDefaultsCases(),
		serviceDefaultsCases(),
		kindGenerationCases(),
		metadataCases(),
		metadataInformerCases(),
		tableWatchCases(),
		crdDefaultCases(),
		http2Cases(),
		admissionWebhookCases(),
		admissionWebhookValidationCases(),
		crdConversionCases(),
		admissionPolicyCases(),
		admissionPolicyValidationCases(),
		admissionConfigAuthzCases(),
		eventValidationCases(),
		mutatingPolicyCases(),
		policyStatusControllerCases(),
	)
}
