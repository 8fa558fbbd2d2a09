package grep

// chunkSize is the size of a worker's buffer and so of the first read of a file: most source
// files fit in it whole, and a larger one is read and searched a chunk at a time, so that
// the buffer is reused (no fresh memory to fault in per big file), stays in the processor's
// cache between the read and the search, and one read call stays short.
const chunkSize = 128 << 10

// binaryProbe is how much of the head of a file is checked for a NUL byte.
const binaryProbe = 8 << 10
