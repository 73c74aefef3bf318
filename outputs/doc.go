// Package outputs keeps the whole of outputs that workflow history only
// holds truncated: a Store writes each as a file whose path the step's
// result carries (OutputRef), named so that a retry of the same activity
// replaces the same file and bounded so that a command printing without
// end cannot fill the disk.
package outputs
