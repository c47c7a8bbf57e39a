package faults

// Shorthands for the most common faults. Each adds one fault and returns
// its ID (for Remove) or Add's error.

// EndWatches ends the open watch streams m matches, cleanly, now.
func (in *Injector) EndWatches(m Match) (string, error) {
	return in.Add(Fault{Kind: EndWatch, Match: m})
}

// CutWatches cuts the open watch streams m matches mid-frame, now.
func (in *Injector) CutWatches(m Match) (string, error) {
	return in.Add(Fault{Kind: CutWatch, Match: m})
}

// FailNext answers the next n requests m matches with code (429, 500, 503
// or 504; a 429 carries Retry-After: 1).
func (in *Injector) FailNext(n, code int, m Match) (string, error) {
	return in.Add(Fault{Kind: FailRequest, Code: code, Times: n, Match: m})
}

// CompactNow compacts the store to its current RV.
func (in *Injector) CompactNow() (string, error) { return in.Add(Fault{Kind: Compact}) }

// RestartAPIServer is a kube-apiserver restart with etcd intact (see
// [Restart]).
func (in *Injector) RestartAPIServer() (string, error) { return in.Add(Fault{Kind: Restart}) }
