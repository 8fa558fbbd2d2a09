package grep

// CompileIgnoreForTest parses ignore-file text as Search does and returns its verdict
// function (0 no line matches, 1 ignored, 2 whitelisted), so that tests can check and time
// one decision on its own.
func CompileIgnoreForTest(text []byte) func(rel string, isDir bool) int {
	g := parseGitignore(text)
	return func(rel string, isDir bool) int {
		if g == nil {
			return 0
		}
		return int(g.match(rel, isDir))
	}
}

// SetFileHookForTest installs a hook every fanout goroutine calls with each file it is about
// to search, and returns the function that removes it. Only for a test that runs no other
// search at the same time.
func SetFileHookForTest(hook func(rel string)) (remove func()) {
	testHookFile = hook
	return func() { testHookFile = nil }
}
