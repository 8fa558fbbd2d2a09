package grep

// SetFileHookForTest installs a hook every fanout goroutine calls with each file it is about
// to search, and returns the function that removes it. Only for a test that runs no other
// search at the same time.
func SetFileHookForTest(hook func(rel string)) (remove func()) {
	testHookFile = hook
	return func() { testHookFile = nil }
}
