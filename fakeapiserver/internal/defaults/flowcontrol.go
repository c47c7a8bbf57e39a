package defaults

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/utils/ptr"
)

// The flowcontrol/v1 defaults (kubernetes pkg/apis/flowcontrol/v1/
// defaults.go); the constants are its Default* values.
const (
	flowSchemaMatchingPrecedence   = 1000
	priorityLevelHandSize          = 8
	priorityLevelQueues            = 64
	priorityLevelQueueLengthLimit  = 50
	priorityLevelConcurrencyShares = 30
)

// FlowSchema is SetDefaults_FlowSchemaSpec: matching precedence 1000.
func FlowSchema(fs *flowcontrolv1.FlowSchema) {
	if fs.Spec.MatchingPrecedence == 0 {
		fs.Spec.MatchingPrecedence = flowSchemaMatchingPrecedence
	}
}

// PriorityLevelConfiguration is SetObjectDefaults_PriorityLevelConfiguration: a Limited
// level gets 30 shares, lends nothing and queues 64 × 50 with hand size 8;
// an Exempt one gets 0 shares and lends nothing.
func PriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) {
	if l := pl.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = ptr.To[int32](priorityLevelConcurrencyShares)
		}
		if l.LendablePercent == nil {
			l.LendablePercent = ptr.To[int32](0)
		}
		if q := l.LimitResponse.Queuing; q != nil {
			q.HandSize = cmpOr(q.HandSize, priorityLevelHandSize)
			q.Queues = cmpOr(q.Queues, priorityLevelQueues)
			q.QueueLengthLimit = cmpOr(q.QueueLengthLimit, priorityLevelQueueLengthLimit)
		}
	}
	if e := pl.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptr.To[int32](0)
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptr.To[int32](0)
		}
	}
}

// cmpOr is v, or def when v is zero.
func cmpOr(v, def int32) int32 {
	if v == 0 {
		return def
	}
	return v
}
