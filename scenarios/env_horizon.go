package scenarios

// WatchCacheHorizon records that the watch cache now keeps history from rv
// on: a watch can start at rv or later, an older one gets ERROR 410.
// Only the scenario knows where the horizon is (it configured the window),
// so it says so; the HTML diagram shades the RVs below it.
func (e *Env) WatchCacheHorizon(rv, format string, args ...any) {
	en := e.entry(KindNote, rv, format, args...)
	en.Horizon = HorizonWatchCache
	e.append(en)
}
