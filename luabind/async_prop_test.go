package luabind

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
)

// treeGen writes a random Lua program: a tree of tasks that start children,
// dispatch jobs (sleeps, programs, streams they iterate and leave), await,
// cancel and detach one another, and end by returning, raising a tagged
// error table, or waiting until they are cancelled.
type treeGen struct {
	r     *rand.Rand
	sb    strings.Builder
	tags  int
	procs int
	dir   string
}

func (g *treeGen) line(depth int, format string, args ...any) {
	g.sb.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(&g.sb, format, args...)
	g.sb.WriteByte('\n')
}

// task writes a function body at depth; level bounds the tree's height.
// forever: the task may end by waiting until cancelled (never for a
// detached task, which nothing would cancel).
func (g *treeGen) task(depth, level int, forever bool) {
	g.line(depth, "local kids, jobs = {}, {}")
	if level > 0 {
		for range g.r.IntN(3) {
			detach := g.r.IntN(6) == 0
			g.line(depth, "kids[#kids + 1] = run{name = %q, function()", fmt.Sprintf("t%d", g.r.IntN(1000)))
			g.task(depth+1, level-1, forever && !detach)
			g.line(depth, "end}")
			if detach {
				g.line(depth, "kids[#kids]:detach()")
			}
		}
	}
	for range g.r.IntN(3) {
		switch g.r.IntN(4) {
		case 0:
			g.line(depth, "jobs[#jobs + 1] = w.sleep(%d)", g.r.IntN(30))
		case 1:
			g.procs++
			g.line(depth, "jobs[#jobs + 1] = w.spawn{cmd = {\"sh\", \"-c\", %q}}",
				fmt.Sprintf("echo $$ > %s; echo started; exec sleep 3600", filepath.Join(g.dir, "p"+strconv.Itoa(g.procs))))
			if g.r.IntN(2) == 0 {
				// Take its first line by hand (a loop left would cancel
				// it): the program has started and keeps running.
				g.line(depth, "do local h = jobs[#jobs]; h:batches()(h) end")
			}
		case 2:
			g.line(depth, "do local h = w.emit_n(1e9, {max_batch = %d}); local n = 0", 1+g.r.IntN(64))
			g.line(depth, "  for b in h:batches() do n = n + 1; if n >= %d then break end end end", 1+g.r.IntN(4))
		case 3:
			g.line(depth, "a.sleep(%d)", g.r.IntN(20))
		}
	}
	for range g.r.IntN(4) {
		switch g.r.IntN(4) {
		case 0:
			g.line(depth, "if #kids > 0 then observe(kids[%d %% #kids + 1]:await()) end", g.r.IntN(4))
		case 1:
			g.line(depth, "if #kids > 0 then kids[%d %% #kids + 1]:cancel(\"gen\") end", g.r.IntN(4))
		case 2:
			g.line(depth, "if #jobs > 0 then jobs[%d %% #jobs + 1]:cancel() end", g.r.IntN(4))
		case 3:
			g.line(depth, "if #jobs > 0 then jobs[%d %% #jobs + 1]:await{timeout_ms = %d} end", g.r.IntN(4), g.r.IntN(20))
		}
	}
	switch k := g.r.IntN(5); {
	case k == 0:
		g.tags++
		g.line(depth, "raise(%d)", g.tags)
	case k == 1 && forever:
		g.line(depth, "a.sleep(3600 * 1000)")
	default:
		g.line(depth, "return %d", g.r.IntN(10))
	}
}

// program is the whole script: some trees, some cancelled after a while,
// every one awaited (the errors each await gets are observed).
func (g *treeGen) program() string {
	g.sb.WriteString(`local a, w = pmacs.async, pmacs.workers
local run = a.run
raised, seen = {}, {}
function observe(v, err)
  if v == nil and type(err) == "table" and err.tag then seen[err.tag] = true end
end
function raise(tag)
  raised[tag] = a.current()
  error({tag = tag})
end
local tops = {}
`)
	n := 1 + g.r.IntN(4)
	for i := range n {
		g.line(0, "tops[%d] = run(function()", i+1)
		g.task(1, 2, true)
		g.line(0, "end)")
	}
	g.line(0, "a.sleep(%d)", g.r.IntN(30))
	g.line(0, "for i = 1, #tops do if i %% 2 == 0 then tops[i]:cancel(\"top\") end end")
	g.line(0, "a.sleep(%d)", g.r.IntN(30))
	g.line(0, "for i = 1, #tops do tops[i]:cancel(\"end\") end")
	g.line(0, "for i = 1, #tops do observe(tops[i]:await()) end")
	return g.sb.String()
}

// Random trees of tasks, jobs, streams and cancels always end with every
// job settled, every program's process gone, no task left, and each raised
// error delivered exactly once: to a task that awaited it, or reported as
// unhandled, unless the task that raised it had been cancelled first (it
// then ends cancelled).
func TestRandomTaskTreesEndCleanly(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 6
	}
	tracked, raisedAll := 0, 0
	defer func() {
		// The property means something only if programs ran and errors
		// were raised.
		require.Positive(t, tracked, "no program ever started")
		require.Positive(t, raisedAll, "no error was ever raised")
	}()
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			dir := t.TempDir()
			g := &treeGen{r: rand.New(rand.NewPCG(seed, 27)), dir: dir}
			src := g.program()
			h := newHarness(t, false)
			fn, err := h.b.LoadString(src, "tree.lua")
			require.NoError(t, err, src)
			root := h.b.Spawn(fn)
			h.drive(t, 60*time.Second)

			require.True(t, root.Done(), src)
			require.Equal(t, 0, h.b.Stats().Tasks, "no task left\n%s", src)
			require.Equal(t, 0, h.b.Stats().Jobs, "every job settled\n%s", src)
			require.Empty(t, h.b.Tasks())
			require.Equal(t, 0, h.rt.Stats().Pending, "the runtime has nothing pending")

			// Each error: collected by an await (a task awaited twice gives
			// it twice) or else reported, once; never both.
			reported := map[int]int{}
			L := h.b.L()
			for _, f := range h.b.TakeFailed() {
				var te *TaskError
				require.ErrorAs(t, f.Err(), &te)
				if tb, ok := te.value.(*lua.LTable); ok {
					if tag, ok := tb.RawGetString("tag").(lua.LNumber); ok {
						reported[int(tag)]++
					}
				}
			}
			seen := L.GetGlobal("seen").(*lua.LTable)
			raised := L.GetGlobal("raised").(*lua.LTable)
			raised.ForEach(func(k, v lua.LValue) {
				tag := int(k.(lua.LNumber))
				task := v.(*lua.LUserData).Value.(*Task)
				collected := seen.RawGetInt(tag) == lua.LTrue
				state := taskStateNames[task.state]
				switch task.state {
				case taskCancelled:
					require.False(t, collected || reported[tag] > 0, "error %d of a cancelled task was delivered\n%s", tag, src)
				default:
					require.True(t, collected != (reported[tag] == 1), "error %d (its task ended %s): collected %v, reported %d times\n%s",
						tag, state, collected, reported[tag], src)
				}
				delete(reported, tag)
				seen.RawSetInt(tag, lua.LNil)
			})
			require.Empty(t, reported, "errors reported that no task raised")
			seen.ForEach(func(k, _ lua.LValue) { t.Errorf("error %v collected that no task raised", k) })

			// Every program that got as far as writing its pid is gone.
			var procs []proctest.Proc
			started := 0
			for i := 1; i <= g.procs; i++ {
				b, err := os.ReadFile(filepath.Join(dir, "p"+strconv.Itoa(i)))
				if err != nil || !strings.HasSuffix(string(b), "\n") {
					continue
				}
				started++
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if in, ok := proctest.Stat(pid); ok {
					procs = append(procs, proctest.Proc{Pid: pid, Start: in.Start})
				}
			}
			proctest.Gone(t, 5*time.Second, procs...)
			tracked += started
			raisedAll += g.tags
		})
	}
}
