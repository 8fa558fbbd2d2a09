package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// C-g cancels the task tree behind the last command: the command's task,
// the child it started, and the program the child runs (its process
// group), which then reports "cancelled".
func TestQuitKeyCancelsTheLastCommandsTaskTree(t *testing.T) {
	initFile := filepath.Join(t.TempDir(), "init.lua")
	src := EmbeddedInit() + `
pmacs.editor.map("global", "F9", function()
  pmacs.async.run{name = "long command", function()
    local child = pmacs.async.run(function()
      local h = pmacs.workers.spawn{cmd = {"sleep", "3600"}}
      for _ in h:batches() do end
      local _, err = h:await()
      return err
    end)
    local _, err = child:await()
    pmacs.editor.message("never: " .. tostring(err))
  end}
end)
pmacs.editor.map("global", "F10", function()
  local list = {}
  for _, t in ipairs(pmacs.async.tasks()) do list[#list + 1] = (t.name or "?") .. ":" .. t.state end
  pmacs.editor.message("tasks " .. #list .. " " .. table.concat(list, ","))
end)
`
	require.NoError(t, os.WriteFile(initFile, []byte(src), 0o644))
	h := startEditor(t, Options{Path: t.TempDir(), InitFile: initFile})
	h.waitText("..")
	h.stopProjectWatch()

	h.key(tcell.KeyF9)
	h.until("the command's tasks wait on the program", func(e *session) bool {
		return len(e.commandTasks) == 1 && e.lb.Stats().Jobs == 1
	})
	h.ctrl('g')
	h.waitScreen("the cancel", func(rows []string) bool {
		return strings.Contains(messageLine(rows), "C-g: cancelled 1 task(s) of the last command")
	})
	h.untilWithin(10*time.Second, "the tree and its program end", func(e *session) bool {
		return e.lb.Stats().Jobs == 0 && e.lb.Stats().Tasks == 0
	})
	h.key(tcell.KeyF10)
	h.waitScreen("no task left", func(rows []string) bool { return strings.Contains(messageLine(rows), "tasks 0") })
}
