package faults

import "time"

// maxRecords bounds the record log; older records are dropped first. A
// seeded chaos run of thousands of requests fits.
const maxRecords = 10_000

// Record is one injected fault, for scenario traces.
type Record struct {
	// Seq numbers records from 1 in the order they were made.
	Seq int `json:"seq"`
	// Time is when it was injected, on the server's clock.
	Time time.Time `json:"time"`
	// RV is the store's current RV then (a proxy: the highest RV seen).
	RV      int64  `json:"rv"`
	FaultID string `json:"faultID"`
	Kind    Kind   `json:"kind"`
	// Request is the request it hit (for a stream fault, the watch).
	Request *RequestInfo `json:"request,omitempty"`
	// Stream numbers the watch stream from 1, and StreamEvents counts the
	// events it had sent when the fault fired.
	Stream       uint64 `json:"stream,omitempty"`
	StreamEvents int64  `json:"streamEvents,omitempty"`
	// Detail says what happened.
	Detail string `json:"detail"`
}

// recordLocked appends r with its sequence number, time and RV.
func (in *Injector) recordLocked(r Record) {
	n := len(in.records)
	r.Seq = 1
	if n > 0 {
		r.Seq = in.records[n-1].Seq + 1
	}
	r.Time = in.clk.Now()
	r.RV = in.target.CurrentRV()
	if r.Request != nil {
		cp := *r.Request
		r.Request = &cp
	}
	if n >= maxRecords {
		in.records = append(in.records[:0], in.records[n-maxRecords+1:]...)
	}
	in.records = append(in.records, r)
}

// Records returns the faults injected so far, oldest first.
func (in *Injector) Records() []Record {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Record(nil), in.records...)
}
