package conformance

// RVSemantic is one row of the resourceVersion reference
// (docs/rv-semantics.md, which TestRVSemanticsDoc renders from
// [RVSemantics]): a request shape, what kube-apiserver v1.37.2 answers, and
// the conformance cases that prove it against the real server.
type RVSemantic struct {
	// Verb is GET (one object), LIST or WATCH.
	Verb string
	// Request is the query that matters ("resourceVersion=0").
	Request string
	// Answer is what the server does, in a sentence.
	Answer string
	// Cases are the names of the cases that check it.
	Cases []string
}

// RVSemantics is the reference, verb by verb. Each row names at least one
// case of [Cases]; TestRVSemanticsDoc fails on a name that is not one.
func RVSemantics() []RVSemantic {
	return []RVSemantic{
		{"GET", "no resourceVersion", "The object as it is now (a quorum read of storage); 404 if it does not exist.",
			[]string{"CacheGetUnsetReadsStorage", "GetNotFound"}},
		{"GET", "resourceVersion=0", "Any version: the watch cache's copy, however old, with no wait.",
			[]string{"GetRV0", "CacheGetRV0"}},
		{"GET", "resourceVersion=N", "Not older than N: waits up to 3 s for the cache to reach N, then 504 `Too large resource version`.",
			[]string{"CacheGetNotOlderThanJustWritten", "GetTooLargeRV"}},
		{"GET", "resourceVersion=abc", "500 (not 400, as a LIST would answer): the parse error of the resourceVersion, as kube-apiserver words it.",
			[]string{"GetInvalidRV"}},

		{"LIST", "no resourceVersion", "Consistent: the collection at storage's current revision (from the cache once it has caught up), in key order, paged by `limit`.",
			[]string{"CacheListConsistentSeesLastWrite", "ListPagination", "ListKeyOrder"}},
		{"LIST", "resourceVersion=0", "Any version: whatever the cache holds now; `limit` is ignored, so no continue token.",
			[]string{"ListRV0IgnoresLimit", "ListRV0NotOlderThan"}},
		{"LIST", "resourceVersion=N (no match, no limit)", "Not older than N (the legacy meaning): the latest state, whose RV is N or more, even when N is old.",
			[]string{"ListLegacyRVIsNotOlderThan", "ListNotOlderThanOldRV"}},
		{"LIST", "resourceVersion=N&resourceVersionMatch=NotOlderThan", "The same, with `limit` honoured.",
			[]string{"ListNotOlderThanHonoursLimit", "CacheListNotOlderThanJustWritten"}},
		{"LIST", "resourceVersion=N&limit=L (no match)", "Exact N (the legacy paging meaning): the collection as it was at N, the list's RV is N.",
			[]string{"ListLegacyPagedIsExact"}},
		{"LIST", "resourceVersion=N&resourceVersionMatch=Exact", "Exact N: the state at N; 410 `The resourceVersion for the provided list is too old.` once N is compacted.",
			[]string{"ListExactOldState", "ListExactCompacted"}},
		{"LIST", "resourceVersion=N, N ahead of the server", "Waits up to 3 s for N, then 504 `Too large resource version` (any match, with or without limit).",
			[]string{"ListTooLargeRV", "ListTooLargeRVExact", "ListTooLargeRVNotOlderThan", "ListTooLargeRVPaged"}},
		{"LIST", "continue=TOKEN", "The next page at the token's RV (every page of one list is one snapshot); 410 with a fresh token once that RV is compacted, which happens on an idle server too.",
			[]string{"ListContinuePinnedRV", "ListContinueCompacted", "ListContinueExpiresWhenIdle"}},
		{"LIST", "resourceVersionMatch without resourceVersion, Exact with 0, a match with continue", "422 Invalid: the combinations ListOptions validation refuses.",
			[]string{"ListRVMatchWithoutRV", "ListExactRV0Forbidden", "ListRVMatchWithContinue"}},
		{"LIST", "continue=TOKEN&resourceVersion=N", "400 `specifying resource version is not allowed when using continue`.",
			[]string{"ListContinueWithRV"}},

		{"WATCH", "no resourceVersion", "Defaulted to a watch-list: a synthetic ADDED for every object now (consistent, in key order), then the changes.",
			[]string{"WatchRVUnsetInitialEvents"}},
		{"WATCH", "resourceVersion=0&allowWatchBookmarks=true", "Also a watch-list: ADDED for every object the cache holds, then a BOOKMARK annotated `k8s.io/initial-events-end`.",
			[]string{"WatchRV0WithBookmarksIsWatchList"}},
		{"WATCH", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan", "The current state (not the state at the RV given) as ADDED, the initial-events-end BOOKMARK, then the changes; the state is taken before the 200, so a write made after it is an event; an RV ahead of the server gets 200 then an ERROR 504 event.",
			[]string{"WatchListExplicit", "WatchListFromRVCurrentState", "WatchListWritesAfterHeadersAreEvents", "WatchListEmptyCollection", "WatchListTooLargeRV"}},
		{"WATCH", "sendInitialEvents=false", "No initial events: only the changes from now on.",
			[]string{"WatchSendInitialEventsFalse"}},
		{"WATCH", "resourceVersion=N (N current)", "Only the changes after N: live events.",
			[]string{"WatchFromCurrentRVLiveOnly", "WatchLiveEvents"}},
		{"WATCH", "resourceVersion=N (N in the cache's window)", "Every change after N, replayed in RV order, then live: no gap, no duplicate.",
			[]string{"WatchFromRVReplay", "WatchStreamGuarantees"}},
		{"WATCH", "resourceVersion=N (N older than the window)", "200, then one ERROR event with a 410 Status (`too old resource version`), then the end: the client must relist.",
			[]string{"WatchTooOldRV"}},
		{"WATCH", "resourceVersion=N (N ahead of the server)", "Accepted silently: 200, and only events with an RV above N.",
			[]string{"WatchTooLargeRVSilent"}},
		{"WATCH", "timeoutSeconds=T", "Ends cleanly at T (no ERROR); with bookmarks allowed, a BOOKMARK comes shortly before.",
			[]string{"WatchTimeoutEndsCleanly", "WatchBookmarkBeforeDeadline"}},
		{"WATCH", "sendInitialEvents without a match, a match without sendInitialEvents, Exact", "422 Invalid.",
			[]string{"WatchSendInitialEventsWithoutMatch", "WatchMatchWithoutSendInitialEvents", "WatchMatchExactUnsupported"}},
	}
}
