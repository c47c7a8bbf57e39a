package scenariofile

// ChaosOtherNamespace is the namespace of a chaos replay's writes that its
// clients do not watch: the RV moves with no event for them.
const ChaosOtherNamespace = "elsewhere"

// BalanceRoundRobinPerLane sends each request of a lane that has no
// route to the next instance in turn, apiserver-0 first, counting each
// lane's requests apart (the chaos property tests' instanceRotation).
const BalanceRoundRobinPerLane = "round-robin-per-lane"

// ChaosAPIServers is the topology of a chaos property test run with n
// apiserver instances: the test's own client (the scenario's lane) pinned
// to apiserver-0, each subject rotating its requests over all of them.
func ChaosAPIServers(n int) APIServers {
	return APIServers{Count: n, Balancing: BalanceRoundRobinPerLane, Routes: map[string]string{"scenario": "apiserver-0"}}
}

// NewChaosReplay is the scenario a chaos property test writes for a
// failing schedule, before its steps: clients (started by the timeline)
// on a server whose watch cache keeps the newest watchCacheEvents events,
// and the expectation that every client's store equals the server's
// state once the faults are cleared. The caller appends the schedule to
// Timeline.
func NewChaosReplay(name, note string, watchCacheEvents int, clients ...Client) *File {
	f := &File{
		Version:    Version,
		Name:       name,
		Summary:    "replay of a chaos schedule: " + note,
		Seed:       1,
		Server:     Server{WatchCacheMinEvents: watchCacheEvents, CountOnly: true},
		Namespaces: []string{ChaosOtherNamespace},
		Clients:    clients,
		Timeline:   []Step{},
	}
	for _, c := range clients {
		f.Expect.StoreEqualsServer = append(f.Expect.StoreEqualsServer, c.Name)
	}
	return f
}
