// Package outputs keeps the whole of outputs that workflow history only
// holds truncated: a Store writes each as a file whose path the step's
// result carries (OutputRef), named so that a retry of the same activity
// replaces the same file, readable by the worker's user only, and bounded
// per file, per plan and in total, so that a plan printing without end
// cannot fill the disk; Prune removes the folders of plans past their
// retention.
package outputs
