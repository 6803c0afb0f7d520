package oneway

import (
	"strings"
	"testing"
)

// A run's consumer groups are its own at the broker, as its target is:
// every run's g1 was one Kafka group, and after Kafka died and came back
// the next run's g1 was assigned no partition while the dead run's
// members held them. The records still name the groups g1, g2, ...
func TestARunsGroupsAreItsOwnAtTheBroker(t *testing.T) {
	a, b := &rig{run: runID()}, &rig{run: runID()}
	if a.brokerGroup("g1") == b.brokerGroup("g1") {
		t.Fatalf("two runs share the broker group %s", a.brokerGroup("g1"))
	}
	if !strings.HasPrefix(a.brokerGroup("g1"), "g1-") || a.brokerGroup("g1") == a.brokerGroup("g2") {
		t.Errorf("broker groups %s and %s: want g1-RUN and g2-RUN", a.brokerGroup("g1"), a.brokerGroup("g2"))
	}
}
