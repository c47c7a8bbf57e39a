package fakeapiserver

import (
	"context"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// This file decides which reads an apiserver instance serves from its
// watch cache and which from storage, as kube-apiserver v1.37.2's
// CacheDelegator does (apiserver pkg/storage/cacher/delegator.go, with
// delegator/interface.go ShouldDelegateList and cacher.go
// ShouldDelegateExactRV/ShouldDelegateContinue/ShouldDelegateConsistentRead)
// under the feature gates' v1.37 defaults (apiserver
// pkg/features/kube_features.go: ListFromCacheSnapshot on,
// ConsistentListFromCacheSkipTimeoutFallback off, WatchList on) and with an
// etcd that supports progress notifications (so ConsistentReadSupported):
//
//	read                                served from      wait (3 s, then)
//	LIST rv=""                          cache at etcd's  storage (the fallback)
//	  (and continue with rv < 0)        current RV
//	LIST rv="0"                         cache, as it is  none
//	LIST rv=N NotOlderThan (or legacy,  cache, as it is  504 Too large
//	  no limit)                         once at N
//	LIST rv=N Exact (or legacy with a   snapshot at N    504 Too large
//	  limit; continue with rv > 0)      once cache at N  (410 from storage when
//	                                                     N is compacted)
//	GET rv=""                           storage          none
//	GET rv="0"                          cache, as it is  none
//	GET rv=N                            cache once at N  504 Too large
//	WATCH                               cache            (watch-list: 504 ERROR)
//
// Snapshots at an exact RV hold the same objects as the store at that RV,
// so those reads are the store's; what differs per instance is when its
// cache reaches an RV and what it shows meanwhile.
//
// Events (core and events.k8s.io) have no watch cache
// ([resourceInfo.hasWatchCache]): their registry store is etcd3's
// (apiserver pkg/storage/etcd3/store.go, watcher.go), so every read is
// the store's latest or exact state with no wait (an RV etcd has not
// reached is the 504 at once, with no retry advice), resourceVersion="0"
// honours limit, every read fails on a partitioned instance, and a watch
// has no window (only compaction bounds it, with etcd's 410 message), no
// restart floor and no periodic bookmarks. [Server.viewOf] is the one
// place that picks the cache or storage; the read paths then ask the view.

// hasWatchCache reports whether kube-apiserver v1.37.2 serves r from a
// watch cache: every resource but the two event resources, whose cache
// size is 0 (kubernetes pkg/kubeapiserver/default_storage_factory_builder.go
// DefaultWatchCacheSizes; apiserver pkg/server/options/etcd.go then uses
// generic.UndecoratedStorage, etcd3 with no CacheDelegator).
func (r *resourceInfo) hasWatchCache() bool {
	switch r.qualified() {
	case schema.GroupResource{Resource: "events"}, schema.GroupResource{Group: "events.k8s.io", Resource: "events"}:
		return false
	}
	return true
}

// viewOf returns the view that serves res on the instance serving r
// (balancer.go): its watch cache, or, for a resource with no watch cache,
// its storage view, which follows the store with no lag or freeze.
func (s *Server) viewOf(r *http.Request, res *resourceInfo) *apiserverInstance {
	inst := s.instanceOf(r)
	if res.hasWatchCache() {
		return inst
	}
	return inst.storage
}

// readViewOf is viewOf for a LIST or GET: on a storage view of a
// partitioned instance every read needs etcd, so it is the partition's 504
// (etcd3 store.go reads etcd for resourceVersion "0" too).
func (s *Server) readViewOf(r *http.Request, res *resourceInfo) (*apiserverInstance, error) {
	v := s.viewOf(r, res)
	if v.uncached && v.isPartitioned() {
		return nil, errStorageUnreachable()
	}
	return v, nil
}

// errStorageUnreachable is what a read or write delegated to storage gets
// on an instance partitioned from the store (kubewire.StorageUnreachable).
func errStorageUnreachable() error { return kubewire.StorageUnreachable() }

// cacheListRV is the store RV a read of inst's cache "as it is" reads at:
// 0 (the latest) when the cache is fresh, else its position.
func cacheListRV(inst *apiserverInstance) int64 {
	pos, fresh := inst.cacheRV()
	if fresh {
		return 0
	}
	return pos
}

// consistentReadRV is the RV a consistent read (no resourceVersion) reads
// at: the cache's once it has reached etcd's current RV
// (watch_cache.go waitAndListConsistent), or, when it does not within the
// wait, the latest state from storage (delegator.go GetList's fallback on
// IsTooLargeResourceVersion). A partitioned instance can do neither.
func (s *Server) consistentReadRV(ctx context.Context, inst *apiserverInstance) (int64, error) {
	if _, fresh := inst.cacheRV(); fresh {
		return 0, nil
	}
	if inst.isPartitioned() {
		// Its getCurrentRV needs etcd (cacher.go getCurrentRV).
		return 0, errStorageUnreachable()
	}
	if _, err := s.waitForCache(ctx, inst, uint64(s.store.CurrentRV())); err != nil {
		return 0, nil // the fallback to storage: the latest state
	}
	return cacheListRV(inst), nil
}
