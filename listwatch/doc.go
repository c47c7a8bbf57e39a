// Package listwatch is a small list-watch client: the List & Watch loop of
// the article lw-sim grew from (README.md, "The List & Watch article"),
// done right. It keeps a local, indexed copy of one
// collection in step with a kube-apiserver and tells a handler about every
// change.
//
// # What it does
//
//   - Lists the collection in pages of [Options.PageSize] (500 by default)
//     with client-go's pager; continue tokens pin every page to the first
//     page's resourceVersion (RV). If a token expires (410 Expired), the
//     pager re-lists in full, as client-go's does.
//   - Watches from the list's RV with allowWatchBookmarks; bookmarks advance
//     its RV.
//   - On 410 Expired (an HTTP error or an ERROR event), re-lists and diffs
//     the list against its store: keys gone become OnDelete with a
//     cache.DeletedFinalStateUnknown carrying the last known state, newer
//     versions become OnUpdate, new keys OnAdd.
//   - On EOF, connection reset, timeout, 429 or 5xx, re-watches from its last
//     RV without re-listing. A watch the server has not ended 30 s after the
//     timeoutSeconds the client asked for has hung (a stalled proxy, a
//     half-open connection); the client ends it itself and resumes, where
//     client-go's Reflector would wait for as long as the stream stays open.
//   - Never spins: after every attempt that made no progress it waits one
//     step of an exponential backoff with jitter ([DefaultBackoff]: 0.8 s
//     doubling to 30 s, each delay in [d, 2d)), or the server's Retry-After
//     if that is longer. A watch that advanced the RV (or lasted 1 s)
//     resets the backoff. client-go's rest client already retries a 429 or
//     5xx response that carries Retry-After up to 10 times before the
//     client sees it; what is left here is a 429 after those retries, a 429
//     or 5xx ERROR event inside a watch stream (its retryAfterSeconds is
//     honoured), and errors without Retry-After.
//   - Optionally starts with a watch-list ([Options.WatchList]) and falls
//     back to LIST+WATCH when the server refuses it with a 4xx.
//   - Reports every decision to [Options.Trace].
//
// The store is a client-go cache.Indexer; the handler is a client-go
// cache.ResourceEventHandler, called from the goroutine that runs
// [Client.Run], after the store was updated. [Client.Run] blocks until its
// context ends and everything it started has ended.
//
// # Guarantees
//
// These hold against any server that keeps the apiserver's RV contract
// (one global, increasing RV; a watch from RV N delivers every change after
// N in order, or fails with 410). Each is tested against lw-sim's fake
// apiserver through real HTTP, under faults, and by a rapid property test.
//
//  1. Convergence: once the server is quiet and faults stop, the store
//     equals the server's state.
//  2. Order: for each object, the handler sees versions in increasing RV
//     order, each at most once; the client's RV
//     ([Client.LastSyncResourceVersion]) never goes backwards. (A
//     DeletedFinalStateUnknown is a tombstone for the last version already
//     delivered, not a new version.)
//  3. No lost change: every object version that was current at some RV the
//     client passed through is either delivered or superseded by a later
//     delivered version of that object (or its deletion).
//  4. Bounded work: the client re-lists only after a 410 Expired, a
//     too-large RV, or when the server refuses to resume a watch (any other
//     4xx); a broken or timed-out watch costs one WATCH request and no LIST.
//
// # Where it differs from client-go's informer
//
//   - The first list asks for RV "" (a consistent read), not "0" (whatever
//     the watch cache has), so a relist can never take the client's RV
//     backwards.
//   - A watch that closed after less than a second without events is
//     resumed after a backoff; the Reflector re-lists ("very short watch").
//   - A 410 or a watch-list stream that ends early is retried after a
//     backoff if nothing was gained; the Reflector re-issues watch-lists at
//     once.
//   - An object deleted and re-created (new UID) while the client was not
//     watching is reported as OnDelete then OnAdd; the informer reports
//     OnUpdate(old, new).
//   - No resync and no shared processor: one handler, called synchronously.
//
// For the article's optimistic-concurrency pattern (get, modify, update,
// retry on 409 Conflict), use client-go's retry.RetryOnConflict; see the
// example.
package listwatch
