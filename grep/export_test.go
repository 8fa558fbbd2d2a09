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
