//go:build race

package racetest

// Enabled: this binary was built with -race.
const Enabled = true
