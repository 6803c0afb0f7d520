//go:build !race

package codec_test

const raceDetector = false
