-- fs.* on the fixture the Go test writes under arg[1]/fs, with luv-style errors.
local fs = pmacs.workers.fs
local dir = arg[1] .. "/fs"

local listing, err = fs.read_dir(dir):await()
assert(err == nil, tostring(err))
local names, byname = {}, {}
for _, e in ipairs(listing.entries) do names[#names + 1] = e.name; byname[e.name] = e end
assert(table.concat(names, ",") == "a.txt,b.txt,full,link", "sorted entries: " .. table.concat(names, ","))
assert(byname["a.txt"].kind == "file" and byname["a.txt"].size == 5)
assert(byname.full.kind == "dir")
assert(byname.link.kind == "symlink" and byname.link.target == "a.txt")
assert(type(byname["a.txt"].mtime) == "number" and byname["a.txt"].mtime > 1e9, "mtime in seconds")
assert(#listing.errors == 0)
local tolerant = fs.read_dir(dir, {per_entry = true}):await()
assert(#tolerant.entries == 4 and type(tolerant.errors) == "table")

local st = fs.stat(dir .. "/a.txt"):await()
assert(st.name == "a.txt" and st.kind == "file" and st.size == 5 and st.target == nil)

-- Errors: nil, "NAME: message", "NAME".
local v, msg, name = fs.stat(dir .. "/missing"):await()
assert(v == nil and name == "ENOENT", tostring(name))
assert(msg:find("^ENOENT: ") and msg:find("missing", 1, true), msg)

v, msg, name = fs.read_dir(dir .. "/missing"):await()
assert(v == nil and name == "ENOENT")

-- rename, refusing to overwrite unless asked.
assert(fs.rename(dir .. "/a.txt", dir .. "/c.txt"):await() == true)
assert(fs.stat(dir .. "/c.txt"):await().size == 5)
v, msg, name = fs.rename(dir .. "/c.txt", dir .. "/b.txt"):await()
assert(v == nil and name == "EEXIST", tostring(msg))
assert(fs.rename(dir .. "/c.txt", dir .. "/b.txt", {overwrite = true}):await() == true)
assert(fs.stat(dir .. "/b.txt"):await().size == 5, "overwritten")
v, msg, name = fs.rename(dir .. "/nothing", dir .. "/x"):await()
assert(name == "ENOENT")

-- chmod with an octal string or an integer.
assert(fs.chmod(dir .. "/b.txt", "600"):await() == true)
assert(fs.stat(dir .. "/b.txt"):await().mode == 384, "0600 == 384")
assert(fs.chmod(dir .. "/b.txt", 420):await() == true)
assert(fs.stat(dir .. "/b.txt"):await().mode == 420, "420 == 0644")
assert(fs.chmod(dir .. "/b.txt", "0755"):await() == true)
assert(fs.stat(dir .. "/b.txt"):await().mode == 493)
v, msg, name = fs.chmod(dir .. "/missing", "644"):await()
assert(name == "ENOENT")

-- remove: files, symlinks, empty directories; not a full one.
v, msg, name = fs.remove(dir .. "/full"):await()
assert(v == nil and name == "ENOTEMPTY", tostring(msg))
assert(fs.remove(dir .. "/full/inner.txt"):await() == true)
assert(fs.remove(dir .. "/full"):await() == true)
assert(fs.remove(dir .. "/link"):await() == true)
assert(fs.remove(dir .. "/b.txt"):await() == true)
v, msg, name = fs.remove(dir .. "/b.txt"):await()
assert(name == "ENOENT")
assert(#fs.read_dir(dir):await().entries == 0, "everything removed")

-- mkdir: one level, never over an existing path.
assert(fs.mkdir(dir .. "/made"):await() == true)
assert(fs.stat(dir .. "/made"):await().kind == "dir")
v, msg, name = fs.mkdir(dir .. "/made"):await()
assert(v == nil and name == "EEXIST", tostring(msg))
v, msg, name = fs.mkdir(dir .. "/missing/deeper"):await()
assert(v == nil and name == "ENOENT", tostring(msg))
assert(fs.remove(dir .. "/made"):await() == true)
