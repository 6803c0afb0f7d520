//go:build race

package mqtt_test

// raceDetector: paho.golang v0.23.0 (the newest served here) writes a
// PUBREL on its connection without its state's lock while a disconnect
// replaces that connection: a race inside the library whenever a QoS 2
// exchange is in flight as a client closes (eclipse-paho/paho.golang#343,
// fixed upstream after v0.23.0). QoS 2 is tested without the race
// detector (make test runs those cases in a pass of their own), and with
// it once paho.golang is upgraded.
const raceDetector = true
