// Package all registers every stack hopbench ships; import it for its side
// effect wherever stacks are named (the CLI, the experiment runner).
//
// Each stack registers from its own file, built unless the tag
// hopbench_only is set, in which case only the stacks tagged
// hopbench_<technology> are: `go build -tags hopbench_only,hopbench_grpc`
// makes a hopbench with gRPC alone, which is how scripts/binsize.sh
// measures what each stack's libraries add to a service's binary.
package all
