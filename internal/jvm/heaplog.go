package jvm

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/hopbench/hopbench/internal/results"
)

// HeapLogFlag is the JVM flag that writes its collections to path, one
// line each (unified logging, tag gc, no rotation): what HeapOf reads. The
// lines are written as each collection ends, so a node killed by its
// memory limit leaves those before the kill.
func HeapLogFlag(path string) string {
	return fmt.Sprintf(`-Xlog:gc:file="%s":uptime:filecount=0`, path)
}

// pause is a collection's line: "GC(3) Pause Young (Normal) (G1
// Evacuation Pause) 24M->3M(256M) 3.1ms"; Serial and Parallel write the
// same before->after(committed).
var pause = regexp.MustCompile(`GC\(\d+\) Pause .* (\d+)([KMG])->(\d+)([KMG])\((\d+)([KMG])\)`)

// HeapOf reads a GC log written with HeapLogFlag: the most the heap held
// (used, just before a pause, which is when used is highest), the most it
// had committed, and the pauses that said so (a G1 cycle's remark and
// cleanup are pauses too). Used after the last pause is not seen.
func HeapOf(r io.Reader) (results.Heap, error) {
	var h results.Heap
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := pause.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		h.Pauses++
		h.UsedPeak = max(h.UsedPeak, size(m[1], m[2]))
		h.CommittedPeak = max(h.CommittedPeak, size(m[5], m[6]))
	}
	return h, sc.Err()
}

// size is a GC log's size: a number and its unit, K, M or G.
func size(n, unit string) int64 {
	v, _ := strconv.ParseInt(n, 10, 64) // the pattern admits digits only
	return v << map[string]int{"K": 10, "M": 20, "G": 30}[unit]
}
