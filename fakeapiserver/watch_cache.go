package fakeapiserver

import (
	"context"

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
