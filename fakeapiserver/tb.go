package fakeapiserver

// TB is the part of testing.TB that [Start] and [Server.InjectFault] use:
// *testing.T, *testing.B and *testing.F satisfy it, and so does any test
// framework's handle that can fail a test and register cleanups.
//
// It is declared here, rather than taking testing.TB, so that importing
// fakeapiserver does not link package testing (and its flags) into
// programs such as the lw-sim binary; testing.TB also has an unexported
// method, so nothing outside package testing could implement it.
type TB interface {
	// Helper marks the calling function as a test helper.
	Helper()
	// Errorf reports a failure and lets the test go on.
	Errorf(format string, args ...any)
	// Fatalf reports a failure and stops the test.
	Fatalf(format string, args ...any)
	// Cleanup registers f to run when the test and its subtests end.
	Cleanup(f func())
}
