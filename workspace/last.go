package workspace

// Last returns the manifest this worker last recorded dir as or brought
// it to, even while a change is under way (see At): what a call that only
// reads may take the folder for, as it could always read a folder another
// step was changing.
func (f *Files) Last(dir string) string {
	return f.loadCache(dir).Manifest
}
