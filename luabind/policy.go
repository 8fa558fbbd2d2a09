package luabind

import (
	"fmt"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// ProgramPolicy decides whether the binding may start a program. The
// binding asks it at every process start it offers (pmacs.workers.spawn,
// pmacs.workers.system, pmacs.lsp.start, pmacs.mcp.connect with a cmd),
// with the API's name, the argument vector as the script gave it and the
// working directory the program would start in ("" for the host's). It
// returns the file to run in argv[0]'s place ("" keeps argv[0]), so what
// runs is the file it checked and not whatever a later PATH search finds,
// or an error saying why the program may not run, which the script sees
// after the API's name. It runs on the binding's goroutine.
type ProgramPolicy func(api string, argv []string, dir string) (program string, err error)

// checkProgram asks the policy about argv; it returns argv with the
// program the policy chose in argv[0]'s place. An empty argv is left to
// the API, which reports it.
func (b *Binding) checkProgram(api string, argv []string, dir string) ([]string, error) {
	if b.policy == nil || len(argv) == 0 {
		return argv, nil
	}
	p, err := b.policy(api, slices.Clone(argv), dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", api, err)
	}
	if p == "" || p == argv[0] {
		return argv, nil
	}
	out := slices.Clone(argv)
	out[0] = p
	return out, nil
}

// programOrRaise is checkProgram for the APIs whose refusal is a Lua
// error, as their other mistakes in the spec are.
func (b *Binding) programOrRaise(L *lua.LState, api string, argv []string, dir string) []string {
	out, err := b.checkProgram(api, argv, dir)
	if err != nil {
		raise(L, "%s", err.Error())
	}
	return out
}

// programOrFail is checkProgram for the APIs that answer a program that
// cannot start with nil and a message: it replaces *argv and returns 0,
// or pushes nil and the refusal and returns 2, what the API returns.
func (b *Binding) programOrFail(L *lua.LState, api string, argv *[]string, dir string) int {
	out, err := b.checkProgram(api, *argv, dir)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	*argv = out
	return 0
}
