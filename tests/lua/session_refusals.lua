-- Session actions that must be refused with a message, each once found
-- accepted (or worse) by tests/lua/session_fuzz.lua.
local check = require "check"

local s = wt.session{layout = "dojo-tile", model = "tests/fixtures/models/search-small.yaml", strategy = "DP4,TATP4"}
s:step()

-- integers past a C int were cast and wrapped: 2^32 + 2 waves read as 2,
-- unit 2^32,0 as 0,0
check.raises(function() s:delay("fwd.mlp.in", (1 << 32) + 2) end, "out of range", "delay 2^32 + 2 waves")
check.raises(function() s:fail_unit(1 << 32, 0) end, "out of range", "fail_unit at x = 2^32")
check.raises(function() s:fail_link(0, 1 << 32, "E") end, "out of range", "fail_link at y = 2^32")
check.raises(function() s:set_subgroup((1 << 32) + 2, 2) end, "out of range", "set_subgroup 2^32 + 2")
check.eq(s:result().units_live, 25, "no unit failed")

-- a TATP grid whose area overflowed an int (UBSan), or whose sides did sscanf's
check.raises(function() s:set_strategy{tatp_grid = "65536x65536"} end, "at most 2%^30 units", "grid 65536x65536")
check.raises(function() s:set_strategy{tatp_grid = "99999999999x1"} end, "tatp_grid must be WxH", "grid 99999999999x1")

-- a step and an evaluation refused for memory (run with --lua-mem 16MiB):
-- their results, made before the userdata that holds them, leaked when that
-- allocation failed, and the refused step had been taken
local steps = s.steps
local opts = {layout = wt.layout("dojo-tile"), model = "tests/fixtures/models/search-small.yaml",
              strategy = "DP4,TATP4"}
local calls = {step = function() return s:step() end, eval = function() return wt.eval(opts) end}
local hog = {}
local function fill(i) hog[i] = string.rep("x", 1000) .. i end
for i = 1, 1e6 do
  if not pcall(fill, i) then break end
end
for what, call in pairs(calls) do
  local ok, err = pcall(call)
  check.eq(ok, false, what .. " with the memory full")
  check.eq(tostring(err):find("memory") ~= nil, true, what .. ": the error says memory: " .. tostring(err))
end
hog = nil
collectgarbage()
check.eq(s.steps, steps, "the step refused for memory was not taken")
check.eq(s:step().units_live, 25, "a step once memory is back")

print("session_refusals: ok")
