package trial

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/transport"
)

// jvmSeedsDir begins the name of the directory, under the results
// directory, that a rig keeps its JVM nodes' seeds in while it runs.
const jvmSeedsDir = ".jvm-seeds"

// jvmSetup is what an experiment's JVM nodes share: the seeds files that give their get replies the Go generator's data,
// one for each generator seed the runs use (a part may set its own).
type jvmSetup struct {
	dir   string
	seeds map[uint64]string
}

// jvmNodes prepares the JVM's nodes when some runs have them: it finds the
// node's build (an experiment that needs it and lacks it fails before any
// run; each node, hopbench node --runtime jvm, starts it) and writes the
// seeds of every get those runs make into a directory of its own under
// dir, the experiment's results directory, never the system's temp folder:
// the files are tens of megabytes, and Rig.Close, which removes them, is
// also what an interrupted experiment runs. A run killed outright leaves
// them beside its results, where they are seen.
func jvmNodes(cases []Case, dir string) (*jvmSetup, error) {
	gets := map[uint64][]jvm.Get{}
	for _, c := range cases {
		if c.JVM != nil {
			g := gets[c.Seed]
			if c.Op == transport.OpGet {
				g = append(g, jvm.Get{Model: c.Model, Count: c.Count})
			}
			gets[c.Seed] = g
		}
	}
	if len(gets) == 0 {
		return nil, nil
	}
	if _, err := jvm.Jar(); err != nil {
		return nil, fmt.Errorf("runtime jvm: %w", err)
	}
	if dir == "" {
		return nil, errors.New("runtime jvm: the rig has no results directory (RigConfig.Dir) to keep the JVM node's seeds in")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("runtime jvm: %w", err)
	}
	// One directory per rig: two experiments writing to one results
	// directory do not remove each other's seeds.
	dir, err := os.MkdirTemp(dir, jvmSeedsDir+"-")
	if err != nil {
		return nil, fmt.Errorf("runtime jvm: %w", err)
	}
	s := &jvmSetup{dir: dir, seeds: map[uint64]string{}}
	for seed, g := range gets {
		s.seeds[seed] = filepath.Join(dir, fmt.Sprintf("seeds-%d.bin", seed))
		if err := jvm.WriteSeeds(s.seeds[seed], g, seed); err != nil {
			s.close()
			return nil, fmt.Errorf("runtime jvm: %w", err)
		}
	}
	return s, nil
}

func (s *jvmSetup) close() { os.RemoveAll(s.dir) }
