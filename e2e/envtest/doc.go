// Package envtest holds an end-to-end test of lw-sim's envtest stand-ins:
// it builds the lw-sim binary, writes a KUBEBUILDER_ASSETS directory with
// "lw-sim envtest-assets", and starts sigs.k8s.io/controller-runtime's
// envtest in its normal mode on it, as a user's suite would, with no code
// change. The package has no non-test code, so controller-runtime is
// linked only into its test binary.
package envtest
