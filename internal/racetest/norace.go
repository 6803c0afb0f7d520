//go:build !race

package racetest

// Enabled: this binary was built with -race (here it was not).
const Enabled = false
