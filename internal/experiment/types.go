package experiment

import "github.com/hopbench/hopbench/internal/specyaml"

// Duration, ByteSize and Bools are the spec's values of those kinds.
type (
	Duration = specyaml.Duration
	ByteSize = specyaml.ByteSize
	Bools    = specyaml.Bools
)
