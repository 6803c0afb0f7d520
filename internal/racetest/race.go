//go:build race

package racetest

// Enabled says whether this binary was built with -race: here, it was.
const Enabled = true
