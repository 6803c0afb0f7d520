#!/bin/sh
# Runs without -race the tests make test's -race pass skips (see the
# Makefile), and fails if a pattern matches no test: a renamed test would
# otherwise pass here unrun.
#   scripts/unraced.sh
set -eu
GO=${GO:-go}
run() { # package pattern name: the test or subtest (or its prefix) the pattern names
	if ! out=$("$GO" test -count=1 -v -run "$2" "$1" 2>&1); then
		echo "$out"
		exit 1
	fi
	echo "$out" | grep -E '^(ok|--- )' || true
	if ! echo "$out" | grep -qF -- "--- PASS: $3"; then
		echo "unraced: $3 in $1 did not run and pass: was it renamed?" >&2
		exit 1
	fi
}
run ./internal/codec 'TestSizeBoundIsAnUpperBound' TestSizeBoundIsAnUpperBound
run ./internal/transport/mqtt 'TestConformance/json\+zstd/qos2' TestConformance/json+zstd/qos2
run ./internal/transport/mqtt 'TestOneWay/qos=2' TestOneWay/qos=2
run ./internal/cli 'TestTheCommittedStudyReportsAreTheirRecords' TestTheCommittedStudyReportsAreTheirRecords
run ./internal/expdoc 'TestExperimentsMDIsMadeFromItsRecords' TestExperimentsMDIsMadeFromItsRecords
run ./internal/expdoc 'TestOneDigitChangedOnThePageIsCaught' TestOneDigitChangedOnThePageIsCaught
