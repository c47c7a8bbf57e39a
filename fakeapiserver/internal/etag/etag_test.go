package etag

import "testing"

// TestOf pins the format handler3 and the aggregated discovery handler
// produce: 128 uppercase hex digits of the SHA-512.
func TestOf(t *testing.T) {
	const want = "CF83E1357EEFB8BDF1542850D66D8007D620E4050B5715DC83F4A921D36CE9CE47D0D13C5D85F2B0FF8318D2877EEC2F63B931BD47417A81A538327AF927DA3E"
	if got := Of(nil); got != want {
		t.Errorf("Of(nil) = %q, want %q", got, want)
	}
}
