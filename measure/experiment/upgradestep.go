package experiment

import (
	"fmt"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// Upgrade and downgrade steps ("upgrade: 3.6.16" in a timeline) are
// lab/cluster's registry faults of those names, run as every long-running
// fault is (longfault.go). What is theirs alone is their record: each
// event's result.Upgrade, whose client figures come from the cell's
// measured runs once the run has ended (attributeUpgrades).

// attributeUpgrades fills the client figures of the events' upgrades
// from the cell's measured runs, and returns a note for the cell when
// an upgrade moved a member ("" when none did): the environment's
// versions are the members' at the start.
func attributeUpgrades(events []result.FaultEvent, runs []result.Run) string {
	var chain []string
	for i := range events {
		e := &events[i]
		if e.Upgrade == nil {
			continue
		}
		end := e.Time.Add(time.Duration(e.Upgrade.Seconds * float64(time.Second)))
		e.Upgrade.AttributeClients(runs, end)
		if len(e.Upgrade.Steps) == 0 {
			continue
		}
		if len(chain) == 0 {
			chain = append(chain, e.Upgrade.Steps[0].From)
		}
		chain = append(chain, e.Upgrade.To)
	}
	if len(chain) == 0 {
		return ""
	}
	return fmt.Sprintf("the timeline moved the members' etcd during the run: %s (the environment gives their versions at the start)", strings.Join(chain, " -> "))
}
