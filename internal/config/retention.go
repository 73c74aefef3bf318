package config

import (
	"fmt"
	"time"
)

// KeySnapshotRetention is how long workspace snapshots are kept.
const KeySnapshotRetention = "workspace.snapshotRetention"

// DefaultSnapshotRetention keeps a snapshot for a week: long enough to
// roll a plan back after a weekend, short enough that copies of every
// workspace do not pile up.
const DefaultSnapshotRetention = 168 * time.Hour

// retentionProblem refuses a negative retention; zero keeps snapshots for
// ever.
func (w Workspace) retentionProblem() string {
	if w.SnapshotRetention < 0 {
		return fmt.Sprintf("%s must not be negative (0 keeps snapshots for ever)", KeySnapshotRetention)
	}
	return ""
}
