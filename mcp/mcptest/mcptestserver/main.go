// Command mcptestserver runs the mcptest MCP server on stdin and stdout.
// Its only argument is the mode (serve, garbage, silent, stubborn); the
// default is serve.
package main

import (
	"os"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
)

func main() {
	mode := mcptest.ModeServe
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	os.Exit(mcptest.Main(mode))
}
