package signals

// Checkpoint is the state a run hands to its continuation when it
// continues as new. The workflow owns its fields; they are kept here because
// the workflow's input carries it.
type Checkpoint struct {
	State []byte `json:"state"`
}
