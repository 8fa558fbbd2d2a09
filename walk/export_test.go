package walk

// SetMaxHeldDirsForTest bounds the directories a walk holds open and returns the function
// that restores the bound. Only for a test that runs no other walk at the same time.
func SetMaxHeldDirsForTest(n int32) (restore func()) {
	old := maxHeldDirs
	maxHeldDirs = n
	return func() { maxHeldDirs = old }
}
