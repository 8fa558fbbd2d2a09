package grep

// readChunk bounds one read call so that a stop request is seen between chunks.
const readChunk = 1 << 20

// binaryProbe is how much of the head of a file is checked for a NUL byte.
const binaryProbe = 8 << 10

// fileStatus says why readFile returned no content.
type fileStatus uint8

const (
	fileOK fileStatus = iota
	fileStopped
	fileBinary     // a NUL byte in its first binaryProbe bytes
	fileOversize   // larger than the search's MaxFileBytes
	fileUnreadable // could not be opened or read, or is no longer a regular file
)
