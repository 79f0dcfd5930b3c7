-- check: assertions for the Lua tests (run by tests/e2e_lua.sh through
-- `wafertop run --lua-path tests/lua`).
local M = {failures = 0}

local function where()
  local info = debug and debug.getinfo and debug.getinfo(3, "Sl")
  return info and (info.short_src .. ":" .. info.currentline) or "?"
end

function M.eq(got, want, what)
  if got ~= want then
    error(string.format("%s: got %s, want %s", what, tostring(got), tostring(want)), 2)
  end
end

function M.near(got, want, rel, what)
  local scale = math.max(math.abs(want), 1e-300)
  if math.abs(got - want) > rel * scale then
    error(string.format("%s: got %.17g, want %.17g (rel %g)", what, got, want, rel), 2)
  end
end

function M.raises(fn, pattern, what)
  local ok, err = pcall(fn)
  if ok then error(what .. ": expected an error", 2) end
  if not tostring(err):find(pattern) then
    error(string.format("%s: error '%s' does not match '%s'", what, tostring(err), pattern), 2)
  end
end

-- Runs fn with wt.print captured; returns the printed lines.
function M.capture(fn)
  local lines, saved = {}, wt.print
  wt.print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring(select(i, ...)) end
    lines[#lines + 1] = table.concat(parts, "\t")
  end
  local ok, err = pcall(fn)
  wt.print = saved
  if not ok then error(err, 0) end
  return lines
end

function M.done(name) print(name .. ": ok") end

return M
