package editor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// ed.plan_workspace_edit plans on a helper goroutine and
// ed.workspace_edit_plan hands the plan over once, in Lua's terms (1-based
// step indexes, the file under the path its buffer is to visit, the file
// operations in order); a refusal is nil and why; a malformed step or an
// unknown token raises with the function's name.
func TestPlanWorkspaceEditFromLua(t *testing.T) {
	e := newIdleEditor(t)
	require.NoError(t, os.WriteFile(filepath.Join(e.root, "x.go"), []byte("package x\n"), 0o644))
	e.L.SetGlobal("ROOT", lua.LString(e.root))
	runLua(t, e, `
local ed = pmacs.editor
token = ed.plan_workspace_edit({
  {kind = "rename", from = ROOT .. "/x.go", to = ROOT .. "/sub/y.go", options = {overwrite = true}},
  {kind = "edit", path = ROOT .. "/sub/y.go", version = 3, edits = {}},
})
assert(ed.workspace_edit_plan(token) == false, "pending until the helper hands it over")
refused = ed.plan_workspace_edit({{kind = "edit", path = "/etc/passwd"}})`)
	for range 2 {
		(<-e.calls)()
	}
	runLua(t, e, `
local ed = pmacs.editor
local plan = assert(ed.workspace_edit_plan(token))
assert(#plan.files == 1 and plan.files[1].path == ROOT .. "/x.go", plan.files[1].path)
assert(plan.files[1].groups[1] == 2 and #plan.files[1].groups == 1 and plan.files[1].version == 3)
assert(not plan.files[1].fresh)
local op = plan.ops[1]
assert(#plan.ops == 1 and op.kind == "rename" and op.step == 1 and op.overwrite == true)
assert(op.from == ROOT .. "/x.go" and op.to == ROOT .. "/sub/y.go" and op.name == ROOT .. "/x.go")
local p, why = ed.workspace_edit_plan(refused)
assert(p == nil and why == "the edit changes /etc/passwd, outside the workspace (" .. ROOT .. ")", why)`)

	for src, want := range map[string]string{
		`pmacs.editor.plan_workspace_edit(42)`:                             "steps",
		`pmacs.editor.plan_workspace_edit({{kind = "copy", path = "/x"}})`: `step 1: unknown kind "copy"`,
		`pmacs.editor.plan_workspace_edit({{kind = "edit"}})`:              "step 1: field path must be a string",
		`pmacs.editor.plan_workspace_edit({"x"})`:                          "step 1 must be a table",
		`pmacs.editor.workspace_edit_plan(token)`:                          "no plan",
	} {
		err := e.L.DoString(src)
		require.Error(t, err, src)
		require.Contains(t, err.Error(), want)
	}
}
