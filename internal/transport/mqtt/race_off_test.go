//go:build !race

package mqtt_test

const raceDetector = false
