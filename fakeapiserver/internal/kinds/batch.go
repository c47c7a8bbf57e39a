package kinds

import (
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// batchKinds: kubernetes pkg/registry/batch/{job,cronjob}/strategy.go.
// Defaults: internal/defaults workloads.go, workloads_create.go (the
// generated selector); validation: internal/validation batch.go,
// job_status.go; printers: internal/tables printers_groups.go; field
// labels: internal/fieldlabels (Job).
var batchKinds = []kind{
	{gk("batch", "Job"), Strategy{
		Default:          typed(defaults.Job),
		Validate:         validation.TypedCreate(validation.Job),
		ValidateStatus:   validation.TypedPair(validation.JobStatus),
		TracksGeneration: true, PrepareNamedForCreate: typed(defaults.JobForNamedCreate),
		// batch/v1 Jobs orphan their pods by default (the job strategy's
		// DefaultGarbageCollectionPolicy keeps the old behaviour).
		GCPolicy: GCOrphanDependents,
	}},
	{gk("batch", "CronJob"), Strategy{
		Default:          typed(defaults.CronJob),
		TracksGeneration: true,
	}},
}
