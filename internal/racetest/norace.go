//go:build !race

package racetest

// Enabled says whether this binary was built with -race: here, not.
const Enabled = false
